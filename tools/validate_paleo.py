#!/usr/bin/env python3
"""paleo.md Table 1 on the platform: a TITAN X whose platform percent of peak is fitted on
AlexNet (paleo.md §3.3), then VGG-16 predicted with it.

    /usr/bin/python3 tools/validate_paleo.py [--build build]

The GPU's kernel time is launch + F / (peak x PPP) + bytes / memory_bandwidth (accel.gpu), so a
pass's time is M + C / PPP.  Two runs of AlexNet (PPP 100 % and 50 %) give C and M exactly; the
PPP that makes forward + backward equal Table 1's measured 44.00 + 155.10 ms is
C / (199.10 ms - M).  One number, fitted on the two AlexNet measurements together; forward and
backward separately, and all of VGG-16, are then predictions.  Rewrites the section
`paleo-table1` of docs/validation.md; exits 1 if configs/papers/paleo/titanx.yaml does not hold
the fitted value (to 0.1 %).
"""
import argparse
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from trainvp_runs import ROOT, breakdown_ms, run_config  # noqa: E402
from validation_section import replace_section  # noqa: E402

MEASURED = {"forward": 44.00, "backward": 155.10}  # paleo.md Table 1, TensorFlow, AlexNet (ms)
PALEO = {"forward": 45.96, "backward": 118.44}  # paleo.md Table 1, PALEO's estimate (ms)


def passes(model, ppp, out, build):
    stats = run_config(f"configs/papers/paleo/titanx_{model}.yaml",
                       os.path.join(out, f"{model}_{ppp:.4f}"),
                       sets=[f"gpu.efficiency={ppp * 100:.4f}%"], build=build)
    b = breakdown_ms(stats)
    return b["forward"], b["backward"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=None)
    ap.add_argument("--out", default="out/validation/paleo")
    a = ap.parse_args()

    f1, b1 = passes("alexnet", 1.0, a.out, a.build)
    f2, b2 = passes("alexnet", 0.5, a.out, a.build)
    c, m = (f2 + b2) - (f1 + b1), 2 * (f1 + b1) - (f2 + b2)
    ppp = c / (MEASURED["forward"] + MEASURED["backward"] - m)
    fa, ba = passes("alexnet", ppp, a.out, a.build)
    fv, bv = passes("vgg16", ppp, a.out, a.build)

    with open(os.path.join(ROOT, "configs/papers/paleo/titanx.yaml")) as f:
        cfg = re.search(r"efficiency:\s*([0-9.]+)%", f.read())
    in_config = float(cfg.group(1)) / 100 if cfg else None

    lines = [
        "## paleo.md Table 1: full forward and backward passes on a TITAN X",
        "",
        "Regenerate: `/usr/bin/python3 tools/validate_paleo.py` (runs "
        "`configs/papers/paleo/titanx_{alexnet,vgg16}.yaml`).",
        "",
        "A TITAN X (Maxwell: 6.144 TFLOP/s at the 1000 MHz base clock, 336.5 GB/s) trains alone; "
        "each layer is a kernel of the zoo model's FLOPs and bytes (paleo.md §3.1.3, §4 formulas, "
        "workloads/models). Its platform percent of peak (paleo.md §3.3) is fitted once so that "
        "AlexNet's forward + backward equals TensorFlow's measured 199.10 ms: "
        f"**PPP = {ppp * 100:.2f} %** (the model's FLOP time at 100 % is {c:.2f} ms and its "
        f"memory time {m:.2f} ms). The split between forward and backward, and VGG-16, are "
        "predictions. Batch sizes are not in paleo.md: AlexNet 128 (the one-tower paper's), "
        "VGG-16 64 (an assumption; times scale with it).",
        "",
        "| network | pass | TensorFlow (ms) | PALEO (ms) | trainvp (ms) | trainvp vs TensorFlow |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for name, ours in (("forward", fa), ("backward", ba)):
        lines.append(f"| AlexNet (one tower, batch 128) | {name} | {MEASURED[name]:.2f} | "
                     f"{PALEO[name]:.2f} | {ours:.2f} | {(ours / MEASURED[name] - 1) * 100:+.1f} % |")
    lines.append(f"| AlexNet | forward + backward | {MEASURED['forward'] + MEASURED['backward']:.2f}"
                 f" | {PALEO['forward'] + PALEO['backward']:.2f} | {fa + ba:.2f} | fitted |")
    for name, ours in (("forward", fv), ("backward", bv)):
        lines.append(f"| VGG-16 (batch 64) | {name} | held out | held out | {ours:.1f} | "
                     "prediction |")
    lines += [
        "",
        f"The AlexNet split misses (forward {(fa / MEASURED['forward'] - 1) * 100:+.0f} %, "
        f"backward {(ba / MEASURED['backward'] - 1) * 100:+.0f} %): the zoo counts backward as "
        "twice the forward FLOPs (the input and the weight gradients, paleo.md §3.1.3), while "
        "TensorFlow's measured backward took 3.5x its forward. PALEO's own estimate also misses "
        "the backward pass (-24 %), not the forward one (+4 %). One PPP for the whole network cannot move time between the "
        "passes; a per-pass PPP would be a second fitted number, which §3.3 does not do.",
    ]
    replace_section("paleo-table1", "\n".join(lines))
    print(f"docs/validation.md: section paleo-table1 written (PPP {ppp * 100:.2f} %)",
          file=sys.stderr)
    if in_config is None or abs(in_config - ppp) > 0.001:
        print(f"configs/papers/paleo/titanx.yaml has efficiency {in_config}, the fit is "
              f"{ppp * 100:.2f}%: update it", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
