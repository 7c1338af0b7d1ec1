#!/usr/bin/env python3
"""inceptionn.md Table II on the platform, and INC (Alg. 1) as a prediction.

    /usr/bin/python3 tools/validate_inceptionn.py [--build build] [--models alexnet,hdc,...]

Runs configs/papers/inceptionn/{wa,inc}_<model>.yaml (one iteration each; the paper's rows are
100-iteration times, divided by 100 here) and rewrites the section `inceptionn-table2` of
docs/validation.md.  Forward and backward rows are inputs (the configs' forward_time and
backward_time); GPU copy and gradient sum of AlexNet are fitted (one number each, used for
every model: configs/papers/inceptionn/node.yaml); everything else is predicted.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from trainvp_runs import ROOT, breakdown_ms, run_config  # noqa: E402
from validation_section import replace_section  # noqa: E402

MODELS = ["alexnet", "hdc", "resnet50", "vgg16"]
TITLE = {"alexnet": "AlexNet", "hdc": "HDC", "resnet50": "ResNet-50", "vgg16": "VGG-16"}

# inceptionn.md Table II: 100-iteration times in seconds (worker-aggregator, 5 nodes).
TABLE2 = {
    "alexnet": {"forward": 3.13, "backward": 16.22, "copy": 5.68, "sum": 8.94, "comm": 148.71,
                "update": 13.67, "total": 196.35},
    "hdc": {"forward": 0.08, "backward": 0.07, "copy": None, "sum": 0.09, "comm": 1.36,
            "update": 0.09, "total": 1.7},
    "resnet50": {"forward": 2.63, "backward": 4.87, "copy": 2.24, "sum": 3.68, "comm": 60.58,
                 "update": 1.55, "total": 75.55},
    "vgg16": {"forward": 32.25, "backward": 142.34, "copy": 12.09, "sum": 19.89, "comm": 583.58,
              "update": 30.50, "total": 823.65},
}
ROWS = [("forward", "Forward pass"), ("backward", "Backward pass"), ("copy", "GPU copy"),
        ("sum", "Gradient sum"), ("comm", "Communicate"), ("update", "Update"),
        ("total", "Total")]
TOLERANCE = 0.15  # the target per row

# Why a row is what it is, when it is not a prediction or when it misses.
NOTES = {
    ("alexnet", "copy"): "fitted (node.yaml copy_rate)",
    ("alexnet", "sum"): "fitted (node.yaml stream_bandwidth)",
}
MISS_NOTES = {
    "update": "U1",
    "comm": "C1",
    "total": "T1",
}


def status(model, row, paper_ms, ours_ms):
    if row in ("forward", "backward"):
        return "input"
    if (model, row) in NOTES:
        return NOTES[(model, row)]
    if paper_ms is None:
        return "not in Table II"
    err = ours_ms / paper_ms - 1
    if abs(err) <= TOLERANCE:
        return "within 15 %"
    return f"**miss** (note {MISS_NOTES.get(row, '?')})"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=None)
    ap.add_argument("--models", default=",".join(MODELS))
    ap.add_argument("--out", default="out/validation/inceptionn")
    a = ap.parse_args()
    models = a.models.split(",")

    wa, inc = {}, {}
    for m in models:
        print(f"running wa_{m}, inc_{m} ...", file=sys.stderr)
        for algo, store in (("wa", wa), ("inc", inc)):
            stats = run_config(f"configs/papers/inceptionn/{algo}_{m}.yaml",
                               os.path.join(a.out, f"{algo}_{m}"), build=a.build)
            b = breakdown_ms(stats)
            b["total"] = b["time"]
            store[m] = b

    lines = []
    lines.append("## inceptionn.md Table II (worker-aggregator) and INC predictions")
    lines.append("")
    lines.append("Regenerate: `/usr/bin/python3 tools/validate_inceptionn.py` (runs "
                 "`configs/papers/inceptionn/{wa,inc}_<model>.yaml`, one iteration each).")
    lines.append("")
    lines.append("Times are per iteration (Table II's 100-iteration seconds / 100). The "
                 "platform's rows are its iteration breakdown (the critical path, see "
                 "docs/user-guide.md): like Table II's, they add up to the total. Forward and "
                 "backward are inputs. Three numbers are fitted on AlexNet and used unchanged "
                 "for every model: the host's sustained memory bandwidth (`stream_bandwidth` "
                 "24.6 GB/s, from the gradient-sum row), the GPU copy rate (`copy_rate` "
                 "8.59 GB/s, from the GPU-copy row) and the communication stack's per-byte "
                 "cost per progress thread (`stack: {send_rate, recv_rate}` 9.2 Gb/s, from "
                 "§VIII-A's INC-vs-WA calibration case, below); node.yaml shows the arithmetic. "
                 "Everything else follows from the hardware and the schedules. Target: within "
                 "15 % per row.")
    lines.append("")
    for m in models:
        lines.append(f"### {TITLE[m]}")
        lines.append("")
        lines.append("| row | Table II (ms) | trainvp (ms) | error | status |")
        lines.append("|---|---:|---:|---:|---|")
        for key, label in ROWS:
            paper = TABLE2[m][key]
            paper_ms = paper * 10 if paper is not None else None  # 100 iterations, s -> ms
            ours = wa[m].get(key, 0.0)
            err = f"{(ours / paper_ms - 1) * 100:+.1f} %" if paper_ms else "-"
            p = f"{paper_ms:.1f}" if paper_ms is not None else "-"
            lines.append(f"| {label} | {p} | {ours:.1f} | {err} | "
                         f"{status(m, key, paper_ms, ours)} |")
        lines.append("")

    lines.append("### Notes on the rows that miss")
    lines.append("")
    lines.append("- **U1 (update).** Table II's update time is not proportional to the model "
                 "size: 0.59 ms/MB for AlexNet and VGG-16, 0.36 for HDC, 0.16 for ResNet-50, "
                 "while the gradient sum, on the same host and memory, is 0.36-0.38 ms/MB for "
                 "all four. No bandwidth model fits both; the platform's update (SGD with "
                 "momentum: 5 passes over the weights at the fitted 24.6 GB/s, "
                 "workloads/ops/op.h) is what the hardware needs for the arithmetic the paper "
                 "names. The paper does not say how its framework updates (one fused loop or "
                 "several BLAS calls, weight decay as a separate pass); several passes would "
                 "explain AlexNet and VGG-16 but not ResNet-50. Not tuned per model.")
    lines.append("- **C1 (communicate, VGG-16).** The other three models communicate at "
                 "6.2-6.4 ms per MB of model (HDC 5.4); VGG-16 at 11.1 ms/MB, 1.75x slower, "
                 "though the messages only differ in size. Nothing in the modelled hardware "
                 "(10 GbE links, a store-and-forward switch, the X540 NIC, PCIe 2.1 x8) gets "
                 "slower per byte for 525 MB messages than for 233 MB ones; the measured "
                 "excess likely comes from the hosts (memory pressure with 5 x 525 MB buffers "
                 "on the aggregator, TCP behaviour) and is not modelled. The platform's "
                 "AlexNet, HDC and ResNet-50 rows, with the same model, are within 13 %.")
    lines.append("- **T1 (total).** Follows from C1 and U1.")
    lines.append("")

    lines.append("### INC (inceptionn.md Alg. 1): AlexNet calibrates, the rest predicted")
    lines.append("")
    lines.append("Four workers, the ring all-reduce of Alg. 1 after the backward pass, no "
                 "compression, each worker updating its weights on its GPU (§VII-B: all "
                 "computation on the GPU; inc.yaml `update: gpu`). One case is public "
                 "(issue 23's calibration set): §VIII-A, AlexNet, INC gives a 52 % shorter "
                 "total and a 55 % shorter communication than WA. It fixed one param, the "
                 "stack's per-byte cost (node.yaml): one progress thread sends and receives "
                 "each ring step's block, so a step takes B / send_rate + B / recv_rate, while "
                 "WA's hosts move their bytes mostly one way at a time. The other models' INC "
                 "numbers are held out: predictions.")
    lines.append("")
    if "alexnet" in wa and "alexnet" in inc:
        w, i = wa["alexnet"], inc["alexnet"]
        lines.append("| AlexNet, INC vs WA | paper (§VIII-A) | trainvp | error (relative) | kind |")
        lines.append("|---|---:|---:|---:|---|")
        for label, key, paper, kind in (
                ("communication reduction", "comm", 55.0, "calibration (fitted)"),
                ("total-time reduction", "total", 52.0, "calibration (follows)")):
            ours = (1 - i[key] / w[key]) * 100
            lines.append(f"| {label} | {paper:.0f} % | {ours:.1f} % | "
                         f"{(ours / paper - 1) * 100:+.1f} % | {kind} |")
        lines.append("")
    lines.append("| model | WA total (ms) | INC total (ms) | speed-up | WA comm (ms) | "
                 "INC comm (ms) | comm reduction |")
    lines.append("|---|---:|---:|---:|---:|---:|---:|")
    for m in models:
        w, i = wa[m], inc[m]
        lines.append(f"| {TITLE[m]} | {w['total']:.1f} | {i['total']:.1f} | "
                     f"{w['total'] / i['total']:.2f}x | {w['comm']:.1f} | {i['comm']:.1f} | "
                     f"{(1 - i['comm'] / w['comm']) * 100:.1f} % |")
    lines.append("")
    replace_section("inceptionn-table2", "\n".join(lines))
    print("docs/validation.md: section inceptionn-table2 written", file=sys.stderr)


if __name__ == "__main__":
    main()
