#!/usr/bin/python3
"""The standard NoC experiment on noc.interposer -> docs/validation.md section `noc-uniform`.

    /usr/bin/python3 tools/validate_noc.py [--build build]

4x4 and 8x8 mesh, dimension-order (xy) routing, uniform random traffic of 8-flit packets,
2-stage routers with 4 VCs x 32 flit buffers (aries.md §V), offered load from 0.005
flits/node/cycle to saturation; once with 1-cycle links (the usual on-chip set-up) and once
with the ARIES interposer's 10 ns links at 1 GHz (aries.md §V).  Writes the latency-vs-load
plot (docs/validation/noc_uniform_latency.png) and the saturation table.  Every point is a
`trainvp run` of configs/examples/noc_mesh_uniform.yaml; nothing is fitted.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools"))
from validation_section import replace_section  # noqa: E402

CONFIG = "configs/examples/noc_mesh_uniform.yaml"
STAGES, FLITS = 2, 8
WARMUP, MEASURE, DRAIN = 2000, 10000, 20000


def run(build, k, link_cycles, rate, tmp):
    out = os.path.join(tmp, f"k{k}_l{link_cycles}_r{rate:.4f}")
    cmd = [os.path.join(build, "sc_main", "trainvp"), "run", CONFIG, "--quiet", "--force",
           "--out", out,
           "--set", f"noc.size={k}", "--set", f"noc.traffic.injection_rate={rate}",
           "--set", f"noc.link_latency={link_cycles}ns",
           "--set", f"noc.traffic.warmup_cycles={WARMUP}", "--set", f"noc.traffic.measure_cycles={MEASURE}",
           "--set", f"noc.traffic.drain_cycles={DRAIN}"]
    env = dict(os.environ, SYSTEMC_DISABLE_COPYRIGHT_MESSAGE="1")
    subprocess.run(cmd, cwd=ROOT, env=env, check=True)
    s = json.load(open(os.path.join(out, "stats.json")))["blocks"]["noc"]["stats"]
    return {
        "rate": rate,
        "offered": s["offered_load"]["value"],
        "accepted": s["accepted_throughput"]["value"],
        "latency": s["latency"]["mean"],
        "hops": s["hops"]["mean"],
        "unfinished": s["unfinished_packets"]["value"],
    }


def zero_load(k, link_cycles):
    # H (s + L) + s + (F - 1) with H = 2k/3, the mean DOR hop count of uniform traffic to the
    # other N - 1 nodes (tests/integration/test_noc_uniform.cpp derives it).
    return 2.0 * k / 3.0 * (STAGES + link_cycles) + STAGES + FLITS - 1


def saturated(p):
    # Beyond saturation the network no longer accepts what is offered: measured packets are
    # not all delivered within the drain, or the accepted throughput falls 5 % short.
    return p["unfinished"] > 0 or p["accepted"] < 0.95 * p["offered"]


def knee(points, t0):
    # The load at which the mean latency reaches 3x zero-load (a common definition of the
    # saturation point, Dally & Towles 2004, ch. 23), interpolated between sweep points.
    ok = [p for p in points if p["unfinished"] == 0]
    for a, b in zip(ok, ok[1:]):
        if a["latency"] <= 3 * t0 < b["latency"]:
            f = (3 * t0 - a["latency"]) / (b["latency"] - a["latency"])
            return a["offered"] + f * (b["offered"] - a["offered"])
    return None


def sweep(build, k, link_cycles, tmp):
    t0 = zero_load(k, link_cycles)
    points, rate = [], 0.005
    steps = [0.005, 0.01, 0.02] + [round(0.05 * i, 3) for i in range(1, 21)]
    last_ok = None
    for rate in steps:
        p = run(build, k, link_cycles, rate, tmp)
        points.append(p)
        if saturated(p):
            break
        last_ok = rate
    # Refine the saturation load between the last unsaturated and the first saturated point.
    lo, hi = last_ok, rate
    for _ in range(4):
        mid = round((lo + hi) / 2, 4)
        p = run(build, k, link_cycles, mid, tmp)
        points.append(p)
        if saturated(p):
            hi = mid
        else:
            lo = mid
    points.sort(key=lambda p: p["rate"])
    return t0, points, lo, hi


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    args = ap.parse_args()
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        for k in (4, 8):
            for link in (1, 10):
                results[(k, link)] = sweep(args.build, k, link, tmp)

    os.makedirs(os.path.join(ROOT, "docs", "validation"), exist_ok=True)
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for (k, link), (t0, points, lo, hi) in sorted(results.items()):
        ok = [p for p in points if p["unfinished"] == 0]
        ax.plot([p["offered"] for p in ok], [p["latency"] for p in ok], marker="o", ms=3,
                label=f"{k}x{k} mesh, {link}-cycle links")
    ax.set_xlabel("offered load (flits/node/cycle)")
    ax.set_ylabel("mean packet latency (cycles)")
    ax.set_yscale("log")
    ax.set_title("Uniform random traffic, DOR, 8-flit packets, 2-stage routers, 4 VCs x 32")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    png = os.path.join("docs", "validation", "noc_uniform_latency.png")
    fig.savefig(os.path.join(ROOT, png), dpi=110)

    lines = [
        "Regenerate: `/usr/bin/python3 tools/validate_noc.py` (runs "
        f"`trainvp run {CONFIG}` per point).",
        "",
        "### NoC: uniform random traffic on the mesh (noc.interposer)",
        "",
        "k x k mesh, dimension-order (xy) routing, uniform random destinations, 8-flit packets, "
        "Bernoulli injection; routers with 2 pipeline stages, 4 VCs x 32 flit buffers, one "
        "flit per link per cycle (aries.md §V). Warm-up 2000 cycles, measurement window "
        "10000 cycles, drain up to 20000. Latency is creation to tail ejection. Zero-load: "
        "T0 = H (s + L) + s + F - 1 with H = 2k/3 (tested within 5 % in "
        "tests/integration/test_noc_uniform.cpp). Saturation throughput: the highest accepted "
        "throughput of the sweep; the sweep stops where the network no longer accepts the "
        "offered load (accepted < 95 % of offered, or measured packets undelivered after the "
        "drain) and that load is bracketed by bisection. The latency knee is the load where "
        "the mean latency reaches 3 T0. The bisection bound of uniform traffic on a k x k mesh "
        "is 4/k flits/node/cycle.",
        "",
        f"![latency vs load]({os.path.relpath(png, 'docs')})",
        "",
        "| mesh | link latency | zero-load T0 (formula, cycles) | latency at 0.005 (simulated) | "
        "latency knee 3 T0 (flits/node/cycle) | saturation load bracket | saturation throughput "
        "| bisection bound 4/k |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for (k, link), (t0, points, lo, hi) in sorted(results.items()):
        first = points[0]
        best = max(p["accepted"] for p in points)
        kn = knee(points, t0)
        kn = f"{kn:.3f}" if kn is not None else "—"
        lines.append(f"| {k}x{k} | {link} cycle{'s' if link > 1 else ''} | {t0:.1f} | "
                     f"{first['latency']:.1f} | {kn} | {lo:.3f} – {hi:.3f} | {best:.3f} | "
                     f"{4 / k:.2f} |")
    lines += ["", "Points (offered load, accepted throughput, mean latency in cycles):", ""]
    for (k, link), (t0, points, lo, hi) in sorted(results.items()):
        pts = ", ".join(f"{p['offered']:.3f}/{p['accepted']:.3f}/"
                        f"{p['latency']:.0f}{'*' if p['unfinished'] else ''}" for p in points)
        lines.append(f"- {k}x{k}, {link}-cycle links: {pts}")
    lines += ["", "`*`: measured packets still undelivered after the drain (beyond saturation; "
              "the latency is of the delivered ones)."]
    replace_section("noc-uniform", "\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
