#!/usr/bin/python3
"""aries.md Fig. 9 style: all-reduce throughput vs data size on the NoC -> docs/validation.md
section `noc-allreduce`.

    /usr/bin/python3 tools/validate_noc_allreduce.py [--build build]

Ring, double binary tree (DB-T) and multi-tree (MT) all-reduce on 4x4 and 8x8 mesh, torus and
flattened butterfly, plus ARIES_LT (aries.md §IV-A-2: the latency-optimised hierarchical
ring, L = 2, with row/column bypass segments closing its rings) and ARIES_BW (§IV-A-1:
a bypass segment beside every ring edge), ARIES DB-T and MT with bypass segments bridging
tree edges (§IV-B-1, `bypass.plan: tree`) and ARIES's concentrated multi-tree (§IV-B-2,
Fig. 8), from 1 KB to 2 MB per chiplet; aries.md §V parameters (2-stage
routers, 4 VCs x 32 buffers, 10 ns / 68 GB/s links, 1 GHz).  Each point is a `trainvp run` of
configs/examples/noc_ring_allreduce.yaml.  These are the platform's predictions; the paper's
Fig. 9 gives curves, not numbers, and nothing is fitted.
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

CONFIG = "configs/examples/noc_ring_allreduce.yaml"
SIZES = ["1KiB", "4KiB", "16KiB", "64KiB", "256KiB", "1MiB", "2MiB"]
SIZE_BYTES = {"1KiB": 1024, "4KiB": 4096, "16KiB": 16384, "64KiB": 65536, "256KiB": 262144,
              "1MiB": 1048576, "2MiB": 2097152}
ALGOS = [("ring", "Ring"), ("double_binary_tree", "DB-T"), ("multi_tree", "MT")]
TOPOS = [("mesh", "mesh"), ("torus", "torus"), ("flattened_butterfly", "FB")]
TREE_PLAN = ("noc.bypass.plan=tree",)
# The ARIES curves of each panel: key, legend, (topology, collective, extra --set).
ARIES = {
    "ring": [("aries_bw", "ARIES_BW (bypass per ring edge)",
              ("aries", "ring", ("noc.bypass.plan=bandwidth_ring", "noc.router.local_port_width=2"))),
             ("aries_lt", "ARIES_LT (hier. ring L=2 + bypass)",
              ("aries", "hierarchical_ring", ("noc.collective.levels=2",)))],
    "double_binary_tree": [("aries_tree", "ARIES DB-T (tree bypass plan)",
                            ("aries", "double_binary_tree", TREE_PLAN))],
    "multi_tree": [("aries_tree", "ARIES MT (tree bypass plan)",
                    ("aries", "multi_tree", TREE_PLAN)),
                   ("cmt_mesh", "concentrated MT on mesh",
                    ("mesh", "concentrated_multi_tree", ())),
                   ("aries_cmt", "ARIES concentrated MT (tree bypass plan)",
                    ("aries", "concentrated_multi_tree", TREE_PLAN))],
}


def run(build, tmp, k, topo, algo, size, extra=()):
    out = os.path.join(tmp, f"{k}_{topo}_{algo}_{size}_{len(extra)}_{abs(hash(extra))}")
    cmd = [os.path.join(build, "sc_main", "trainvp"), "run", CONFIG, "--quiet", "--force",
           "--out", out, "--set", f"noc.size={k}", "--set", f"noc.topology={topo}",
           "--set", f"noc.collective.algorithm={algo}", "--set", f"noc.collective.size={size}"]
    for e in extra:
        cmd += ["--set", e]
    env = dict(os.environ, SYSTEMC_DISABLE_COPYRIGHT_MESSAGE="1")
    subprocess.run(cmd, cwd=ROOT, env=env, check=True)
    s = json.load(open(os.path.join(out, "stats.json")))["blocks"]["noc"]["stats"]
    return s["collective_throughput"]["value"] / 1e9, s["energy"]["value"] / 1e6


def ring_closing_bypass(k):
    # Track 0 of every row and column: one segment from position 0 to k-1, both directions,
    # on the ports a mesh leaves idle at the ends (aries.md §III-B-2), so the level rings of the
    # hierarchical ring (rows, then columns) close in one hop instead of k - 1.
    m = k - 1
    seg = "{{dim: {d}, line: {l}, from: 0, to: {m}, fwd_out: -{d}, fwd_in: -{d}, bwd_out: +{d}, bwd_in: +{d}}}"
    return "[" + ", ".join(seg.format(d=d, l=l, m=m) for l in range(k) for d in "xy") + "]"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    args = ap.parse_args()
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    res = {}
    with tempfile.TemporaryDirectory() as tmp:
        for k in (4, 8):
            for algo, _ in ALGOS:
                for topo, _ in TOPOS:
                    for size in SIZES:
                        res[(k, algo, topo, size)] = run(args.build, tmp, k, topo, algo, size)
                for key, _, (topo, coll, extra) in ARIES[algo]:
                    if key == "aries_lt":
                        extra = extra + ("noc.bypass.segments=" + ring_closing_bypass(k),)
                    for size in SIZES:
                        res[(k, algo, key, size)] = run(args.build, tmp, k, topo, coll, size,
                                                        extra)

    os.makedirs(os.path.join(ROOT, "docs", "validation"), exist_ok=True)
    fig, axes = plt.subplots(3, 2, figsize=(10, 11), sharex=True)
    x = [SIZE_BYTES[s] for s in SIZES]
    for col, k in enumerate((4, 8)):
        for row, (algo, aname) in enumerate(ALGOS):
            ax = axes[row][col]
            topos = TOPOS + [(key, name) for key, name, _ in ARIES[algo]]
            for topo, tname in topos:
                ax.plot(x, [res[(k, algo, topo, s)][0] for s in SIZES], marker="o", ms=3,
                        label=tname)
            ax.set_xscale("log", base=2)
            ax.set_title(f"({'abcdef'[row * 2 + col]}) {k}x{k} {aname} all-reduce")
            ax.set_ylabel("throughput (GB/s)")
            ax.grid(True, alpha=0.3)
            ax.legend(fontsize=8)
    for ax in axes[-1]:
        ax.set_xlabel("data size per chiplet (bytes)")
    fig.tight_layout()
    png = os.path.join("docs", "validation", "noc_allreduce_throughput.png")
    fig.savefig(os.path.join(ROOT, png), dpi=100)

    lines = [
        "Regenerate: `/usr/bin/python3 tools/validate_noc_allreduce.py` (runs "
        f"`trainvp run {CONFIG}` per point).",
        "",
        "### NoC: all-reduce throughput vs data size (aries.md Fig. 9 style, predictions)",
        "",
        "One rank per chiplet (ring: neighbours on neighbouring routers; trees: row-major), "
        "dimension-order routing, 8-flit packets of 68 B flits, aries.md §V router and link "
        "parameters. A rank enters its next step when its sends were delivered and its "
        "receives arrived; reductions take no time (no PE-array model yet). Throughput = data "
        "size / all-reduce time. ARIES_LT is the hierarchical ring (L = 2: rows, then columns) on the ARIES "
        "interposer with a bypass segment across every row and column closing each level's "
        "ring in one hop; a bypass spanning n pitches takes n x 10 ns (an assumption: "
        "aries.md gives only the one-hop latency); the comparison with the ring depends on "
        "that assumption. "
        "ARIES_BW is the bandwidth-optimised ring (aries.md §IV-A-1): a one-pitch bypass "
        "segment beside every ring edge, packets alternating between the two links, with the "
        "local port injecting and ejecting 2 flits per cycle (`router.local_port_width: 2`, an "
        "assumption: with 1 the endpoints cap it at the mesh ring's throughput). "
        "ARIES DB-T and ARIES MT run the same schedules as on the mesh with `bypass.plan: "
        "tree` (noc/collective/aries_tree_plan.h): every dimension-order leg of two or more "
        "pitches between tree neighbours gets a bypass segment where a track (two per row "
        "and column) and a port are free, legs of tree edges within a row or column first, "
        "then shortest first; routes take them. "
        "Concentrated MT is ARIES's concentrated multi-tree (aries.md §IV-B-2, Fig. 8: 2x2 "
        "blocks reduce into two concentrators, a binary multi-tree over the N/4 blocks per "
        "half, then back), shown on the mesh and on ARIES with the tree plan, to separate the "
        "algorithm's gain from the bypass links'. The tree curves keep a 1-flit-per-cycle "
        "local port: a parent receiving two children's messages is bounded by its ejection "
        "port, which bypass links do not widen.",
        "",
        "Reading: bridging tree edges raises DB-T throughput by about 14 % on 4x4 and 9 % on "
        "8x8 at large sizes (on 4x4 exactly the flattened butterfly's: every tree edge within "
        "a row or column becomes one hop in both). It raises the N-tree MT by 5-25 % on 4x4 "
        "(more with size) and leaves it within 5 % of the mesh, either way, on 8x8, where its "
        "N(N-1) directed pairs need far more segments than two tracks and four ports per "
        "router hold. The concentrated multi-tree's gain over MT comes from the algorithm "
        "(fewer, shorter transfers): the same schedule on the mesh is within 1 % of ARIES "
        "from 16 KiB up (5 % below it at 1 KiB on 4x4). "
        "aries.md Fig. 9(c)-(f) shows ARIES ahead of mesh and torus with the gap growing with "
        "size and with 64 nodes; here the DB-T gap is flat above 64 KiB and the MT gap "
        "is the concentration's, not the bypass links'.",
        "",
        f"![throughput vs size]({os.path.relpath(png, 'docs')})",
        "",
        "Throughput in GB/s:",
        "",
        "| k | algorithm | topology | " + " | ".join(SIZES) + " |",
        "|---|---|---|" + "---|" * len(SIZES),
    ]
    for k in (4, 8):
        for algo, aname in ALGOS:
            topos = TOPOS + [(key, name) for key, name, _ in ARIES[algo]]
            for topo, tname in topos:
                vals = " | ".join(f"{res[(k, algo, topo, s)][0]:.2f}" for s in SIZES)
                lines.append(f"| {k}x{k} | {aname} | {tname} | {vals} |")
    lines += ["", "NoC energy of one all-reduce of 1 MiB per chiplet, in uJ: dynamic (buffers, "
              "crossbar, allocation, links by length, ARIES muxes and segment switches) + "
              "static power x the all-reduce's time (noc/energy; the energies and powers are "
              "the block's defaults, a DSENT 0.91 Bulk32LVT run of its router and link, "
              "docs/dsent-32nm.md; aries.md gives none). A faster all-reduce moving "
              "the same bits (ARIES_BW) saves static energy only; a bypass of n pitches is "
              "charged n pitches of wire but skips n - 1 routers' buffers, crossbars and "
              "allocations:", "",
              "| k | algorithm | " + " | ".join(n for _, n in TOPOS) + " | ARIES variants |",
              "|---|---|" + "---|" * (len(TOPOS) + 1)]
    for k in (4, 8):
        for algo, aname in ALGOS:
            cells = [f"{res[(k, algo, t, '1MiB')][1]:.1f}" for t, _ in TOPOS]
            cells.append(", ".join(f"{name.split(' (')[0]} {res[(k, algo, key, '1MiB')][1]:.1f}"
                                   for key, name, _ in ARIES[algo]))
            lines.append(f"| {k}x{k} | {aname} | " + " | ".join(cells) + " |")
    replace_section("noc-allreduce", "\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
