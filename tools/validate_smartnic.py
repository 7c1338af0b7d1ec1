#!/usr/bin/python3
"""smartnic.md §III and §V-B on the platform: Fig. 2a (the software baseline's calibration
point and its predictions), Fig. 4a-style breakdown and Fig. 4b-style scaling.

Runs build/sc_main/trainvp on configs/papers/smartnic/{baseline_naive,baseline,smartnic,
smartnic_bfp}.yaml (6 nodes, 20-layer 2048x2048 MLP, batch 448 and 1792), then the same systems
from 2 to 32 nodes, reads each run's stats.json and timeline.json and writes the `smartnic`
section of docs/validation.md with PNG plots in docs/validation/.  One constant is fitted, on
an unmasked number each: the software ring's per-thread throughput, to Fig. 2a's naive 51 %,
and the bandwidth of the progress thread's sums from the cache, to issue 23's Fig. 4a
calibration case (nodes.yaml); every other number is a prediction (§V's other results are
masked).

    /usr/bin/python3 tools/validate_smartnic.py [--build build] [--jobs 2] [--nodes 2,4,8,16,32]
"""
import argparse
import concurrent.futures
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
from validation_section import replace_section  # noqa: E402

SYSTEMS = [("baseline", "baseline (software ring, 100 GbE, 2 comm cores)"),
           ("smartnic", "smart NIC (FP32, 40 GbE)"),
           ("smartnic_bfp", "smart NIC + BFP16 (40 GbE)")]
BATCHES = [448, 1792]




def thread_rate_gbps():
    """host.cpu stack.send_rate of nodes.yaml's baseline_node, in Gb/s (the fitted constant;
    recv_rate is the same)."""
    with open(os.path.join(ROOT, "configs", "papers", "smartnic", "nodes.yaml")) as f:
        return float(re.search(r"send_rate:\s*([0-9.]+)Gb/s", f.read()).group(1))


# Fig. 2a's runs besides the baseline: the naive implementation (the calibration point) and, to
# show what the thread scaling assumption does, the overlapped baseline with the ring driven at
# one progress thread (a software cost that does not grow with the comm cores).
FIG2A_EXTRA = {"baseline_naive": ("baseline_naive", []),
               "baseline_1thread": ("baseline", ["components.node.host.stack.threads=1"])}


def run(build, system, batch, nodes, coarse, outdir, reuse=False):
    cfg_name, extra = FIG2A_EXTRA.get(system, (system, []))
    cfg = os.path.join(ROOT, "configs", "papers", "smartnic", cfg_name + ".yaml")
    out = os.path.join(outdir, "%s_b%d_n%d" % (system, batch, nodes))
    sets = ["workload.training.batch=%d" % batch,
            "components.node.count=%d" % nodes,
            "components.switch.ports=%d" % nodes] + extra
    if not system.startswith("baseline"):
        sets.append("components.node.fpga.ring_size=%d" % nodes)
        if coarse:
            # Scaling runs: 64 KiB pieces (8x the default) with 8x the FIFOs, so the same
            # number of slots; the 6-node breakdown uses the defaults.
            sets += ["components.node.fpga.segment=64KiB",
                     "components.node.fpga.input_fifo=256KiB",
                     "components.node.fpga.rx_fifo=512KiB",
                     "components.node.fpga.tx_fifo=512KiB",
                     "components.node.fpga.output_fifo=256KiB"]
    cmd = [os.path.join(build, "sc_main", "trainvp"), "run", cfg, "--out", out, "--force"]
    for s in sets:
        cmd += ["--set", s]
    if not reuse:
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError("%s failed:\n%s%s" % (" ".join(cmd), r.stdout, r.stderr))
    return (system, batch, nodes), breakdown(out)


def breakdown(out):
    """Iteration time of node[0] and its Fig. 4a parts, in ms."""
    with open(os.path.join(out, "stats.json")) as f:
        stats = json.load(f)
    host = stats["blocks"]["node[0].host"]["stats"]
    total = host["completion_time"]["value"] / 1e6
    with open(os.path.join(out, "timeline.json")) as f:
        tl = json.load(f)
    events = tl["traceEvents"] if isinstance(tl, dict) else tl
    names = {}
    for e in events:
        if e.get("ph") == "M":
            names[(e.get("pid"), e.get("tid"))] = e.get("args", {}).get("name")
    fwd = bwd = upd = 0.0
    for e in events:
        if e.get("ph") != "X" or names.get((e.get("pid"), e.get("tid"))) != "node[0].host.cpu":
            continue
        d = e["dur"] / 1e3  # us -> ms
        if e["name"].startswith("fwd_"):
            fwd += d
        elif e["name"].startswith("bwd_"):
            bwd += d
        elif e["name"].startswith("update_"):
            upd += d
    # What the compute cores wait for: the all-reduce that is not hidden behind compute.
    exposed = total - fwd - bwd - upd
    return {"total": total, "forward": fwd, "backward": bwd, "update": upd, "exposed": exposed}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--nodes", default="2,4,8,16,32")
    ap.add_argument("--baseline-nodes", default="2,4,8,16,32",
                    help="node counts simulated for the baseline (its runs are frame-level)")
    ap.add_argument("--coarse", action="store_true",
                    help="64 KiB card pieces for N != 6 (faster; loses throughput at small N: "
                         "N = 2, batch 448 took 124 ms instead of 101 ms)")
    ap.add_argument("--doc", default=os.path.join(ROOT, "docs", "validation.md"))
    ap.add_argument("--reuse", metavar="DIR",
                    help="read the runs a previous invocation left in DIR (its temporary "
                         "folder, printed at the start) instead of running them again: for "
                         "regenerating the text only, with the same build and configs")
    args = ap.parse_args()
    nodes = [int(x) for x in args.nodes.split(",")]
    base_nodes = [int(x) for x in args.baseline_nodes.split(",")]
    outdir = args.reuse or tempfile.mkdtemp(prefix="smartnic_validation_")
    print("runs in", outdir, flush=True)

    jobs = []
    for system, _ in SYSTEMS:
        for batch in BATCHES:
            jobs.append((system, batch, 6, False))
            for n in (base_nodes if system == "baseline" else nodes):
                if n != 6:
                    jobs.append((system, batch, n, args.coarse))
    jobs += [("baseline_naive", 1792, 6, False), ("baseline_1thread", 1792, 6, False)]
    res = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as ex:
        futs = [ex.submit(run, args.build, s, b, n, c, outdir, bool(args.reuse)) for s, b, n, c in jobs]
        for f in concurrent.futures.as_completed(futs):
            key, value = f.result()
            res[key] = value
            print("done", key, "%.3f ms" % value["total"], flush=True)

    # One node: forward + backward + update on all 28 cores, no exchange (the smart NIC hosts
    # have comm_cores 0, so their compute ops are exactly one node's).
    single = {b: res[("smartnic", b, 6)]["forward"] + res[("smartnic", b, 6)]["backward"] +
              res[("smartnic", b, 6)]["update"] for b in BATCHES}

    figdir = os.path.join(ROOT, "docs", "validation")
    os.makedirs(figdir, exist_ok=True)
    lines = ["Regenerate: `/usr/bin/python3 tools/validate_smartnic.py` (needs a build; ~%d runs)."
             % len(jobs), "",
             "smartnic.md §III and §V-B, on configs/papers/smartnic/ (sources of every param in "
             "`nodes.yaml`). Times of node[0] (all nodes are alike). Exposed all-reduce = "
             "iteration time - forward - backward - update on the compute cores (timeline).", ""]
    nv, ov, o1 = (res[("baseline_naive", 1792, 6)], res[("baseline", 1792, 6)],
                  res[("baseline_1thread", 1792, 6)])
    lines += ["### Fig. 2a: the software baseline, 6 nodes, batch 1792 (ms per iteration)", "",
              "**Three constants are fitted**, each on one unmasked case. (1) §III's naive "
              "figure fixes the per-byte cost of the host's communication stack (host.cpu "
              "`stack:`, ip/host/comm_stack.h), `send_rate` = `recv_rate` = %g Gb/s of payload "
              "per progress thread, so that the naive implementation's exposed all-reduce is "
              "51 %% of its iteration. (2) Issue 23's calibration case (Fig. 4a, below) fixes "
              "`sum_cached_bandwidth`, the bandwidth of a sum on the progress thread when its "
              "inputs are in the last-level cache. The sums run on the thread that drives the "
              "ring (MPI's reduction), on one core: from DRAM at `sum_bandwidth` = 12.8 GB/s "
              "(one core's concurrency over the memory latency, Little's law, cited in "
              "configs/papers/smartnic/nodes.yaml, which shows all the arithmetic) when the "
              "inputs exceed the 38.5 MB cache (the naive implementation's 55.9 MB blocks), "
              "from the cache otherwise (the overlapped one's 2.8 MB blocks). A ring step's "
              "send, receive and sum share the progress threads: on one thread (the naive "
              "implementation, §III: \"one thread triggers an asynchronous all-reduce\") they "
              "add up, on the overlapped implementation's 2 comm cores the send runs beside "
              "the receive and its sum. (3) §III's backward +11 %% (overlapped over naive) "
              "fixes `irq_share`: the receive path's interrupt work that lands on the compute "
              "cores (the NIC's queues and interrupts spread over all 28 cores) and stretches "
              "the compute op running there, beside the core split's 28/26. The overlapped "
              "exposed all-reduce and total are then predictions."
              % thread_rate_gbps(), "",
              "| implementation | forward | backward | exposed all-reduce | update | total |",
              "|---|---|---|---|---|---|"]
    for label, r in (("naive (after backward, 28 cores, 1 thread drives the ring; "
                      "baseline_naive.yaml)", nv),
                     ("overlapped (2 comm cores, layer-wise; baseline.yaml)", ov),
                     ("overlapped, ring on 1 progress thread (thread-independent cost)", o1)):
        lines.append("| %s | %.2f | %.2f | %.2f | %.2f | %.2f |" % (
            label, r["forward"], r["backward"], r["exposed"], r["update"], r["total"]))
    lines += ["", "| Fig. 2a figure | paper (§III) | platform | thread-independent cost | kind |",
              "|---|---|---|---|---|",
              "| naive: exposed all-reduce / iteration | 51 %% | %.1f %% | (same) | fitted |"
              % (100 * nv["exposed"] / nv["total"]),
              "| overlapped: exposed all-reduce, naive / overlapped | 50x | %.0fx | %.1fx | "
              "prediction |" % (nv["exposed"] / ov["exposed"], nv["exposed"] / o1["exposed"]),
              "| overlapped: total time, naive / overlapped | 1.85x | %.3fx | %.3fx | prediction |"
              % (nv["total"] / ov["total"], nv["total"] / o1["total"]),
              "| overlapped: backward pass | +11 %% | +%.1f %% | +%.1f %% | fitted (the "
              "core split, 28/26, and irq_share) |" % (100 * (ov["backward"] / nv["backward"] - 1),
                                        100 * (o1["backward"] / nv["backward"] - 1)), "",
              "The total and the exposed all-reduce follow from the calibrations and the core "
              "split. The 50x is the least certain figure: the overlapped exposed time is ~2 % "
              "of the iteration (the last layer's exchange and the update's tail), and the "
              "critical-path definition of tests/validation/test_smartnic_fig2a.cpp gives a "
              "different ratio (the test's comment has it). The backward slow-down is "
              "host.cpu's core split (its compute part takes 28/26 as long, +7.7 %%, its "
              "memory traffic does not slow: +7.2 %% in all) plus the interrupt work on the "
              "compute cores, fitted to the paper's +11 %%. Memory contention is not it: "
              "sharing the DRAM between the NIC's DMA and the host moves this backward by "
              "+0.3 %% (the MLP's backward is compute-bound). A software cost that does not grow with the "
              "threads (last column) cannot hide the ring behind the backward pass: it "
              "contradicts Fig. 2a, which is why the throughput is taken per thread.", ""]
    lines += ["Fig. 4a-style breakdowns and Fig. 4b-style scaling below: **predictions, "
              "reported as computed** (§V's gains are masked and nothing is fitted to them).",
              "",
              "What moved in issue 8: the baseline. Before, pcie.link and memory served "
              "requests in call order, and the NICs' receive DMA writes reserved microseconds "
              "ahead held back the send DMA reads (ip/pcie/README.md, \"Service order\"): that "
              "artefact, not the software, made the baseline slow (145.26 ms at batch 448, "
              "0.999x the smart NIC; without it and uncalibrated 103.0 ms, faster than the smart "
              "NIC, the opposite of Fig. 4a). Now requests are served in arrival order and the "
              "software ring's throughput is calibrated on Fig. 2a (above); the smart NIC's "
              "rows did not move. Fig. 4a's direction (the smart NIC reduces the iteration "
              "time) is checked by tests/validation/test_smartnic_fig2a.cpp at both batches.",
              "",
              "Since then the software cost moved where it belongs: from nic.basic "
              "`efficiency` (a stand-in) to host.cpu `comm_thread_rate` (14.1 Gb/s per thread, "
              "paced sends only), and in issue 23 to the host's communication stack "
              "(`stack:`), with a cost on both the send and the receive side of each thread: "
              "re-fitted on the same naive point, 2 x 14.1 = 28.2 Gb/s each way on one thread "
              "that does both; the figures moved by < 0.1 %. Then (issue 23, session 16) the "
              "sums moved onto the progress thread at one core's bandwidth (above); the naive "
              "point re-fitted the per-byte cost to 34.6 Gb/s.",
              ""]
    for b in BATCHES:
        lines += ["### Fig. 4a-style breakdown, 6 nodes, batch %d (ms per iteration)" % b, "",
                  "| system | forward | backward | exposed all-reduce | update | total | vs baseline |",
                  "|---|---|---|---|---|---|---|"]
        t0 = res[("baseline", b, 6)]["total"]
        for s, label in SYSTEMS:
            r = res[(s, b, 6)]
            lines.append("| %s | %.2f | %.2f | %.2f | %.2f | %.2f | %.3fx |" % (
                label, r["forward"], r["backward"], r["exposed"], r["update"], r["total"],
                t0 / r["total"]))
        lines.append("")
    # Issue 23's calibration case: Fig. 4a, batch 448, smart NIC without BFP vs the baseline.
    base, nic = res[("baseline", 448, 6)], res[("smartnic", 448, 6)]
    lines += ["### Calibration case (issue 23): Fig. 4a, batch 448, smart NIC (FP32) vs baseline",
              "", "| figure | paper (§V-B) | platform | difference | error (relative) | kind |",
              "|---|---|---|---|---|---|"]
    for label, key, paper, kind in (("exposed all-reduce", "exposed", -37.0, "fitted"),
                                    ("backward", "backward", -10.0, "prediction"),
                                    ("total", "total", -18.0, "prediction")):
        ours = 100.0 * (nic[key] / base[key] - 1.0)
        lines.append("| %s | %.0f %% | %.1f %% | %+.1f pp | %+.0f %% | %s |" % (
            label, paper, ours, ours - paper, 100.0 * (ours / paper - 1.0), kind))
    lines += ["", "**Exposed all-reduce: the calibration (fitted); backward and total: "
              "predictions.** The case fixes one param of one mechanism: the sums' bandwidth "
              "from the cache (37 GB/s; the smart NIC's exposed all-reduce, %.2f ms, over 0.63 "
              "asks %.2f ms of the baseline, which gives %.2f ms). The same Fig. 2a naive "
              "point could not give it with the stack's per-byte cost alone (the previous "
              "model): that cost is linear in the threads, so the overlapped baseline's 2 "
              "threads moved exactly 2x what the naive one does, and the case needs more; what "
              "is not linear is the sum, which the naive thread runs from DRAM (55.9 MB blocks "
              "beyond the cache) and the overlapped one from the cache (2.8 MB blocks). The "
              "fitted 37 GB/s is the round value that gives -37.0 %%. The backward "
              "difference is host.cpu's core split (28/26 on the compute part, the memory "
              "traffic unsplit) plus the receive path's interrupt work on the compute cores, "
              "whose share Fig. 2a's +11 %% at batch 1792 fixes: a prediction at batch 448. "
              "The total follows from all three; each prediction is within 4 percentage "
              "points of the paper, with "
              "the relative errors above. The smart NIC's own rows follow the paper's §IV-C "
              "model, validated within 3 %% by the paper." % (
                  nic["exposed"], nic["exposed"] / 0.63, base["exposed"]), ""]
    # The case's three figures against the smart NIC's own breakdown: with T = F + B + U + E on
    # both sides and the baseline computing no faster (F_b + U_b >= F_s + U_s: 26 of 28 cores),
    # T_b = T_s / 0.82, B_b = B_s / 0.90, E_b = E_s / 0.63 hold together only if
    # E_s <= ((1/0.82 - 1) (F_s + U_s) + (1/0.82 - 1/0.90) B_s) / (1/0.63 - 1/0.82).
    a, b_, c = 1 / 0.82, 1 / 0.90, 1 / 0.63
    e_max = ((a - 1) * (nic["forward"] + nic["update"]) + (a - b_) * nic["backward"]) / (c - a)
    fu_b = nic["total"] * a - nic["backward"] * b_ - nic["exposed"] * c
    # The FP32 ring's bytes at 40 GbE: 2 x 5/6 of the MLP's 20 x 2048 x 2048 x 4 B per node.
    ring_ms = 2 * 5 / 6 * 335.54432e6 / 5e9 * 1e3
    lines += ["**The three figures cannot all hold against this smart NIC.** Each side's "
              "iteration is forward + backward + update + exposed all-reduce, and the baseline "
              "computes on 26 of 28 cores, so its forward + update is no shorter than the smart "
              "NIC's. With the smart NIC's rows above, the paper's -18 %% total, -10 %% backward "
              "and -37 %% exposed would leave the baseline %.2f ms of forward + update, against "
              "the smart NIC's own %.2f ms. They are consistent only if the smart NIC's exposed "
              "all-reduce is at most ((1/0.82 - 1)(F + U) + (1/0.82 - 1/0.90) B) / (1/0.63 - "
              "1/0.82) = %.1f ms (the platform: %.2f ms). So the miss is on the smart NIC's "
              "side as much as the baseline's: the paper's smart NIC hides more of its "
              "all-reduce behind the backward pass than the §IV-C pipeline does here. At 40 "
              "GbE its ring moves %.1f MB per node (2 x 5/6 of the %.1f MB gradient), %.1f ms "
              "at line rate, against the %.2f ms backward. A ring cannot finish before its "
              "bytes have crossed the link, so an exposed all-reduce of at most %.1f ms needs a "
              "backward pass of at least %.1f ms on the smart-NIC node, %.2fx the platform's: "
              "its compute below the peak this config assumes (100 %%, no published "
              "efficiency), or the ring faster than 40 GbE carries FP32. Neither can be fitted "
              "here: the case already fixes one param." % (
                  fu_b, nic["forward"] + nic["update"], e_max, nic["exposed"],
                  # the MLP: 20 layers of 2048 x 2048 fp32 weights = 335.54432 MB
                  2 * 5 / 6 * 335.54432, 335.54432, ring_ms, nic["backward"], e_max,
                  ring_ms - e_max, (ring_ms - e_max) / nic["backward"]), ""]
    lines += ["Backward is longer in the baseline because 2 of its 28 cores run the "
              "all-reduce (host.cpu's core split: 28/26 slower), Fig. 2a's shaded part. "
              "Exposed all-reduce = iteration time - forward - backward - update on the "
              "compute cores.", ""]
    for b in BATCHES:
        lines += ["### Fig. 4b-style scaling, batch %d: throughput normalised to one node" % b,
                  "", "One node: forward + backward + update = %.2f ms (no exchange, 28 cores). "
                  "Speed-up(N) = N x T_1 / T_N; ideal = N." % single[b], "",
                  "| N | " + " | ".join(label for _, label in SYSTEMS) + " |",
                  "|---|" + "---|" * len(SYSTEMS)]
        for n in sorted(set(nodes + base_nodes + [6])):
            row = []
            for s, _ in SYSTEMS:
                r = res.get((s, b, n))
                row.append("%.2f" % (n * single[b] / r["total"]) if r else "—")
            lines.append("| %d | %s |" % (n, " | ".join(row)))
        lines.append("")
    lines += [("Scaling runs other than N = 6 use 64 KiB pieces in the cards (8x the default, "
               "with 8x the FIFO bytes). " if args.coarse else
               "Every run uses the cards' default 8 KiB pieces. ") +
              "The baseline is simulated frame by frame up to N = %d (its runs are the slowest)."
              % max(base_nodes), ""]

    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        for b in BATCHES:
            fig, ax = plt.subplots(figsize=(5, 3.5))
            parts = ["forward", "backward", "exposed", "update"]
            bottoms = [0.0] * len(SYSTEMS)
            for p in parts:
                vals = [res[(s, b, 6)][p] for s, _ in SYSTEMS]
                ax.bar([l.split(" (")[0] for _, l in SYSTEMS], vals, bottom=bottoms, label=p)
                bottoms = [x + y for x, y in zip(bottoms, vals)]
            ax.set_ylabel("ms per iteration")
            ax.set_title("6 nodes, MLP 20x2048^2, batch %d" % b)
            ax.legend(fontsize=8)
            fig.tight_layout()
            fig.savefig(os.path.join(figdir, "smartnic_breakdown_b%d.png" % b), dpi=100)
            plt.close(fig)
            fig, ax = plt.subplots(figsize=(5, 3.5))
            alln = sorted(set(nodes + base_nodes + [6]))
            ax.plot(alln, alln, "k--", label="ideal")
            for s, label in SYSTEMS:
                xs = [n for n in alln if (s, b, n) in res]
                ax.plot(xs, [n * single[b] / res[(s, b, n)]["total"] for n in xs], "o-",
                        label=label.split(" (")[0])
            ax.set_xlabel("nodes")
            ax.set_ylabel("throughput / one node")
            ax.set_title("batch %d" % b)
            ax.legend(fontsize=8)
            fig.tight_layout()
            fig.savefig(os.path.join(figdir, "smartnic_scaling_b%d.png" % b), dpi=100)
            plt.close(fig)
        for b in BATCHES:
            lines.append("![breakdown %d](validation/smartnic_breakdown_b%d.png) "
                         "![scaling %d](validation/smartnic_scaling_b%d.png)" % (b, b, b, b))
        lines.append("")
    except ImportError:
        lines.append("(matplotlib not available: no plots; run with /usr/bin/python3)")
    replace_section("smartnic", "\n".join(lines), doc=args.doc)
    print("wrote the smartnic section of", args.doc)


if __name__ == "__main__":
    main()
