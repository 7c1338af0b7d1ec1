#!/usr/bin/python3
"""Issue 25: which readings of aries.md's flattened-butterfly (FB) set-up could give the one
public calibration case (§V-B, Fig. 10(a), 4x4 ring all-reduce: ARIES 2.10x over mesh and
torus, 1.52x over FB) while keeping §V-B's "mesh and torus almost identical"?  Prints the
tables of docs/aries-fb-ring.md.

    /usr/bin/python3 tools/aries_fb_bound.py [--build build] [--jobs 2]

Every point is tools/validate_aries_training.py's own `run()` (same config, same --set values
per model from its MODELS table, rings at message level as it runs them), 4x4, with extra
--set values per variant:
  - the ring on the Hamiltonian cycle (`collective.mapping: ring`, today's) or in rank order
    (`row_major`, rank i on router i: ASTRA-sim numbers NPUs this way);
  - FB's channels m times wider (`link_bandwidth` and `flit_size` both x m, so a link still
    carries one flit per cycle: noc.interposer's cycles_per_flit is ceil(flit_size /
    (link_bandwidth / clock)), a wider link with 68 B flits would change nothing);
  - ring_2d (a ring per row, then per column, as ASTRA-sim's ring_ring);
  - FB with the smallest hop cost the block allows (1 ns links, 1-stage routers), the most any
    reading based on fewer or shorter hops could give at 1x bandwidth.
ARIES is always its own bandwidth ring on the Hamiltonian cycle (validate_aries_training's
ARIES_PLAN): under row_major its bandwidth-ring plan is refused (noc.collective.mapping must be
the ring's Hamiltonian cycle; tests/configs/bad/noc_bandwidth_ring_needs_ring_mapping.yaml).
Nothing is fitted; nothing here writes into docs/.
"""
import argparse
import concurrent.futures
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import validate_aries_training as vat  # noqa: E402

K = 4
PAPER = {"mesh": 2.10, "torus": 2.10, "fb": 1.52}  # aries.md §V-B, Fig. 10(a)
MULTS = (1.0, 1.25, 1.5, 1.75, 2.0, 2.5, 3.0)      # FB channel width / the mesh's
MESH_TORUS_TOL = 0.05  # "almost identical": torus / mesh within 5 % for every model
ROW_MAJOR = ("noc.collective.mapping=row_major",)
HAM = ("noc.collective.mapping=ring",)
IDEAL_HOP = ("noc.link_latency=1ns", "noc.router.pipeline_stages=1")
NAMES = {"mesh": "mesh", "torus": "torus", "flattened_butterfly": "FB", "aries": "ARIES"}


def wide(m):
    """FB channel m x the mesh's: bandwidth and flit both scaled (one flit per cycle)."""
    return (f"noc.link_bandwidth={68 * m:g}GB/s", f"noc.flit_size={68 * m:g}B")


# (key, label, topology, collective, extra --set values)
POINTS = [("aries", "ARIES, its bandwidth ring (Hamiltonian)", "aries", "ring", ())]
for topo in ("mesh", "torus", "flattened_butterfly"):
    POINTS.append((f"{topo}/ham", f"{NAMES[topo]}, ring on the Hamiltonian cycle", topo,
                   "ring", HAM))
for topo in ("mesh", "torus", "flattened_butterfly"):
    POINTS.append((f"{topo}/row", f"{NAMES[topo]}, ring in rank order (row_major)", topo,
                   "ring", ROW_MAJOR))
for topo in ("mesh", "torus", "flattened_butterfly"):
    POINTS.append((f"{topo}/2d", f"{NAMES[topo]}, ring_2d (row rings, then column rings)",
                   topo, "ring_2d", ()))
for mapping, sets in (("ham", HAM), ("row", ROW_MAJOR)):
    for m in MULTS[1:]:
        POINTS.append((f"fb/{mapping}/x{m:g}", f"FB x{m:g} channel, "
                       f"{'Hamiltonian' if mapping == 'ham' else 'row_major'}",
                       "flattened_butterfly", "ring", sets + wide(m)))
POINTS.append(("fb/ham/ideal", "FB, Hamiltonian, 1 ns links + 1-stage routers",
               "flattened_butterfly", "ring", HAM + IDEAL_HOP))
POINTS.append(("fb/row/ideal", "FB, row_major, 1 ns links + 1-stage routers",
               "flattened_butterfly", "ring", ROW_MAJOR + IDEAL_HOP))


def interpolate(xs, ys, target):
    """The first x where the piecewise-linear y(x) reaches target; None if it never does."""
    for (x0, y0), (x1, y1) in zip(zip(xs, ys), zip(xs[1:], ys[1:])):
        if (y0 - target) * (y1 - target) <= 0 and y0 != y1:
            return x0 + (target - y0) * (x1 - x0) / (y1 - y0)
    return None


def needed(ys, target):
    """The channel width (one of MULTS, interpolated) where ys reaches target, as text."""
    x = interpolate(list(MULTS), ys, target)
    if x is not None:
        return f"{x:.2f}x"
    return f"> {MULTS[-1]:g}x" if abs(ys[-1] - target) < abs(ys[0] - target) else "never"


def simulate(build, jobs, points):
    """{(point key, model): run()'s stats} for every point and model of vat.MODELS."""
    res = {}
    # trainvp prints a 'finished' line per run on stdout: keep stdout for the tables.
    sys.stdout.flush()
    saved = os.dup(1)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
                futs = {}
                for i, (key, _, topo, algo, more) in enumerate(points):
                    # A folder per point: run() names its outputs by the --set values only.
                    sub = os.path.join(tmp, f"p{i}")
                    os.makedirs(sub, exist_ok=True)
                    for model, _, per, extra, _ in vat.MODELS:
                        futs[(key, model)] = pool.submit(_run, build, sub, topo, algo, model,
                                                         per, extra, more)
                for k, f in futs.items():
                    res[k] = f.result()
    finally:
        os.dup2(saved, 1)
        os.close(devnull)
        os.close(saved)
    return res


def hamiltonian_decomposition(topo):
    """Most edge-disjoint Hamiltonian cycles found in the 4x4 topology's router graph (depth-
    first search, neighbours in index order), each cycle a ring that could run concurrently."""
    n = K * K
    adj = {r: set() for r in range(n)}
    for a in range(n):
        for b in range(a + 1, n):
            ax, ay, bx, by = a % K, a // K, b % K, b // K
            dx, dy = (bx - ax) % K, (by - ay) % K
            if topo == "mesh":
                link = (ay == by and abs(ax - bx) == 1) or (ax == bx and abs(ay - by) == 1)
            elif topo == "torus":
                link = (ay == by and dx in (1, K - 1)) or (ax == bx and dy in (1, K - 1))
            else:  # flattened butterfly: every router of a row and of a column
                link = ay == by or ax == bx
            if link:
                adj[a].add(b)
                adj[b].add(a)

    def cycles(adj):
        path, seen = [0], {0}

        def rec():
            u = path[-1]
            if len(path) == n:
                if 0 in adj[u]:
                    yield list(path)
                return
            for v in sorted(adj[u]):
                if v not in seen:
                    seen.add(v)
                    path.append(v)
                    yield from rec()
                    path.pop()
                    seen.discard(v)
        return rec()

    def best(adj, budget):
        most = 0
        for c in cycles(adj):
            budget[0] -= 1
            if budget[0] < 0:
                break
            rest = {r: set(v) for r, v in adj.items()}
            for i in range(n):
                a, b = c[i], c[(i + 1) % n]
                rest[a].discard(b)
                rest[b].discard(a)
            most = max(most, 1 + best(rest, budget))
            if all(not v for v in rest.values()) or most * 2 >= min(len(v) for v in
                                                                    adj.values()):
                break  # every link used, or the lowest degree allows no more
        return most
    return best(adj, [100000])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args()
    start = time.time()
    res = simulate(args.build, args.jobs, POINTS)
    _report(args, res, start)


def _report(args, res, start):
    models = [(m, n) for m, n, *_ in vat.MODELS]
    it = {k: v["iteration_time"] for k, v in res.items()}
    comm = {k: v["communication_time"] for k, v in res.items()}

    def ratio(key, m):
        return it[(key, m)] / it[("aries", m)]

    def row(key, label):
        rs = [ratio(key, m) for m, _ in models]
        return (f"| {label} | " + " | ".join(f"{it[(key, m)] / 1e6:.3f}" for m, _ in models) +
                " | " + " | ".join(f"{r:.2f}x" for r in rs) +
                f" | **{max(rs):.2f}x** | {sum(rs) / len(rs):.2f}x |")

    # The FB channel width each reading needs, from the measured widths.
    need, need_rows = {}, []
    for mapping, name in (("ham", "Hamiltonian"), ("row", "row_major")):
        keys = [f"flattened_butterfly/{mapping}"] + [f"fb/{mapping}/x{m:g}" for m in MULTS[1:]]
        for target_name in ("a", "b"):
            if target_name == "a":  # ARIES / FB, falls with the width
                series = {m: [ratio(k, m) for k in keys] for m, _ in models}
                target, tgt = PAPER["fb"], f"ARIES/FB = {PAPER['fb']:.2f}x"
            else:  # mesh / FB under the same mapping, grows with the width
                series = {m: [it[(f"mesh/{mapping}", m)] / it[(k, m)] for k in keys]
                          for m, _ in models}
                target = PAPER["mesh"] / PAPER["fb"]
                tgt = f"mesh/FB (same mapping) = {target:.2f}x"
            cells = [needed(series[m], target) for m, _ in models]
            # Largest / mean over the models of the ratio, at each width.
            for agg in (max, lambda v: sum(v) / len(v)):
                cells.append(needed([agg([series[m][j] for m, _ in models])
                                     for j in range(len(MULTS))], target))
            if target_name == "a":
                need[mapping] = interpolate(list(MULTS), [max(series[m][j] for m, _ in models)
                                                          for j in range(len(MULTS))], target)
            need_rows.append(f"| {name} | {tgt} | " + " | ".join(cells) + " |")

    # Check the interpolation: FB at the width the largest-over-models reading needs, whole
    # bytes per flit (the bandwidth follows the flit: one flit per cycle at 1 GHz).
    check = []
    for mapping, sets in (("ham", HAM), ("row", ROW_MAJOR)):
        if need[mapping] is None:
            continue
        flit = round(68 * need[mapping])
        check.append((f"fb/{mapping}/check", f"FB x{flit / 68:.3f} channel ({flit} B flits), "
                      f"{'Hamiltonian' if mapping == 'ham' else 'row_major'} (check)",
                      "flattened_butterfly", "ring",
                      sets + (f"noc.link_bandwidth={flit}GB/s", f"noc.flit_size={flit}B")))
    more = simulate(args.build, args.jobs, check)
    res.update(more)
    it.update({k: v["iteration_time"] for k, v in more.items()})
    wall = time.time() - start

    print(f"{len(res)} runs ({len(POINTS) + len(check)} points x {len(models)} models), "
          f"{wall:.0f} s wall with {args.jobs} jobs, "
          f"`{os.path.join(args.build, 'sc_main', 'trainvp')}`.\n")
    print("Iteration time (ms) per model and ARIES's speed-up over each (aries.md §V-B: "
          f"{PAPER['mesh']:.2f}x over mesh and torus, {PAPER['fb']:.2f}x over FB; read as the "
          "largest over the models, as validate_aries_training.py does; the mean is shown too):"
          "\n")
    print("| variant | " + " | ".join(f"{n} ms" for _, n in models) + " | " +
          " | ".join(f"ARIES/X {n}" for _, n in models) + " | largest | mean |")
    print("|---|" + "---|" * (2 * len(models) + 2))
    for key, label, *_ in POINTS + check:
        if key == "aries":
            continue
        print(row(key, label))
    print("| ARIES (reference) | " +
          " | ".join(f"{it[('aries', m)] / 1e6:.3f}" for m, _ in models) + " | " +
          " | ".join("1.00x" for _ in models) + " | | |")

    print("\nmesh ~ torus (aries.md §V-B), torus / mesh iteration time per model:\n")
    for tag, name in (("ham", "Hamiltonian"), ("row", "row_major"), ("2d", "ring_2d")):
        rs = [it[(f"torus/{tag}", m)] / it[(f"mesh/{tag}", m)] for m, _ in models]
        ok = all(abs(r - 1) <= MESH_TORUS_TOL for r in rs)
        print(f"- {name}: " + ", ".join(f"{r:.3f}" for r in rs) +
              f" -> {'holds' if ok else 'fails'} (within {MESH_TORUS_TOL * 100:.0f} %)")

    print("\nFB channel width needed (interpolated linearly between the measured widths "
          f"{', '.join(f'{m:g}' for m in MULTS)}), per model and for the largest / mean over "
          "the models. (a) ARIES/FB = 1.52x as printed; (b) FB as much faster than the mesh "
          f"(same mapping) as in the paper ({PAPER['mesh']:.2f} / {PAPER['fb']:.2f} = "
          f"{PAPER['mesh'] / PAPER['fb']:.3f}x), since the platform's ARIES/mesh is not 2.10x. "
          "'never': the ratio stays on the wrong side of the target at every width (the "
          "transformer's ARIES/mesh is 1.03x):\n")
    print("| mapping | target | " + " | ".join(n for _, n in models) + " | largest | mean |")
    print("|---|---|" + "---|" * (len(models) + 2))
    for r in need_rows:
        print(r)

    print("\nWhat hops cost: communication time (sum of the all-reduces, ms) with the platform's "
          "hop (10 ns link + 2 router stages = 12 cycles per one-pitch hop) and with the "
          "smallest the block allows (1 ns + 1 stage = 2 cycles), and the share of the "
          "communication time that difference is:\n")
    print("| model | FB Ham. | FB Ham., 2-cycle hops | share | mesh row_major | FB row_major | "
          "FB row_major, 2-cycle hops | share (vs mesh row_major) |")
    print("|---|" + "---|" * 7)
    for m, n in models:
        c = {k: comm[(k, m)] for k in ("flattened_butterfly/ham", "fb/ham/ideal", "mesh/row",
                                      "flattened_butterfly/row", "fb/row/ideal")}
        print(f"| {n} | {c['flattened_butterfly/ham'] / 1e6:.3f} | "
              f"{c['fb/ham/ideal'] / 1e6:.3f} | "
              f"{(1 - c['fb/ham/ideal'] / c['flattened_butterfly/ham']) * 100:.1f} % | "
              f"{c['mesh/row'] / 1e6:.3f} | {c['flattened_butterfly/row'] / 1e6:.3f} | "
              f"{c['fb/row/ideal'] / 1e6:.3f} | "
              f"{(1 - c['fb/row/ideal'] / c['mesh/row']) * 100:.1f} % |")

    print("\nConcurrent rings: edge-disjoint Hamiltonian cycles of the 4x4 router graph (each "
          "could carry a ring of its own, in both directions): " +
          ", ".join(f"{NAMES[t]} {hamiltonian_decomposition(t)}"
                    for t in ("mesh", "torus", "flattened_butterfly")) +
          " (depth-first search). A ring over c of them with a local port c times as wide is, "
          "at message level, the same bandwidth as one ring on c x wider channels (FB x2 above "
          "equals ARIES, whose ring is two links per edge and a 2-flit local port).")


def _run(build, tmp, topo, algo, model, per, extra, more):
    try:
        return vat.run(build, tmp, K, topo, algo, model, per, extra, more)
    except subprocess.CalledProcessError as e:
        sys.exit(f"aries_fb_bound: {topo} {algo} {model} {' '.join(more)}: {e}")


if __name__ == "__main__":
    main()
