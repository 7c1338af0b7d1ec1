#!/usr/bin/env python3
"""paleo.md Table 1 on the platform: a TITAN X running the PALEO authors' AlexNet and VGG-16
(TalwalkarLab/paleo nets/alex_v2.json, nets/vgg16.json) with paleo.md §3's layer model
(compute_model layer_ops) at the authors' device and platform percent of peak.

    /usr/bin/python3 tools/validate_paleo.py [--build build]

Nothing is fitted: the device (6144 GFLOP/s, 336.5 GiB/s), the PPP (0.62, scripts/exp_layers.sh)
and the batches (128, 64) are the authors' published inputs.  AlexNet is compared with
TensorFlow's measured passes and with PALEO's own estimates; VGG-16 is a prediction (Table 1's
row is held out).  For reference only, the PPP that would make AlexNet's forward + backward
equal TensorFlow's (every kernel time scales as 1/PPP, launch is 0) is reported with its
errors; it is not used for VGG-16.  Rewrites the section `paleo-table1` of docs/validation.md.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from trainvp_runs import breakdown_ms, run_config  # noqa: E402
from validation_section import replace_section  # noqa: E402

MEASURED = {"forward": 44.00, "backward": 155.10}  # paleo.md Table 1, TensorFlow, AlexNet (ms)
PALEO = {"forward": 45.96, "backward": 118.44}  # paleo.md Table 1, PALEO's estimate (ms)
PPP = 0.62  # TalwalkarLab/paleo scripts/exp_layers.sh: PPP_COMP=0.62

# The assumptions ledger: every value in configs/papers/paleo/titanx*.yaml that is not a
# number of paleo.md itself, with its source.
LEDGER = [
    ("peak", "6.144 TFLOP/s", "TalwalkarLab/paleo paleo/device.py GPU_TITAN_X (peek_gflop 6144)"),
    ("memory_bandwidth", "336.5 GiB/s", "paleo/device.py (336.5), divided as bytes / 2^30 in "
     "paleo/profilers/flops_profiler.py"),
    ("efficiency, memory_efficiency", "62 %", "scripts/exp_layers.sh PPP_COMP=0.62; one PPP on "
     "computation and memory time alike (flops_profiler.py)"),
    ("workspace_limit", "4 GiB", "paleo.md §4.1 (\"4 GB workspace limit\"; 1 << 32 in "
     "paleo/profilers/cudnn_profiler.py)"),
    ("AlexNet layers, batch 128", "zoo alexnet_v2", "nets/alex_v2.json"),
    ("VGG-16 layers, batch 64", "zoo vgg16_slim", "nets/vgg16.json"),
    ("conv_algorithm", "cudnn_v4_like", "assumption: cuDNN v4's heuristic (paleo.md footnote 4) "
     "as a rule (workloads/models/conv_heuristic_registry.cpp); the authors query cuDNN itself"),
    ("FFT counting", "r2c half, inverse full, 4 FLOPs/point product, 8 B/point spectra",
     "paleo.md §3.1.3 (5 n log2 n) as flops_profiler.py counts it"),
    ("ReLU, bias", "not counted", "fused in the authors' net files; flops_profiler.py "
     "include_bias_and_activation = False"),
    ("first layer's data gradient", "not computed", "paleo/graph.py (backprop false when "
     "the parent is the input)"),
    ("launch", "0", "PALEO has no per-kernel overhead term"),
]


def passes(model, out, build):
    b = breakdown_ms(run_config(f"configs/papers/paleo/titanx_{model}.yaml",
                                os.path.join(out, model), build=build))
    return b["forward"], b["backward"]


def err(ours, ref):
    return (ours / ref - 1) * 100


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=None)
    ap.add_argument("--out", default="out/validation/paleo")
    a = ap.parse_args()

    fa, ba = passes("alexnet", a.out, a.build)
    fv, bv = passes("vgg16", a.out, a.build)
    fit = PPP * (fa + ba) / (MEASURED["forward"] + MEASURED["backward"])
    ff, bf = fa * PPP / fit, ba * PPP / fit

    lines = [
        "## paleo.md Table 1: full forward and backward passes on a TITAN X",
        "",
        "Regenerate: `/usr/bin/python3 tools/validate_paleo.py` (runs "
        "`configs/papers/paleo/titanx_{alexnet,vgg16}.yaml`).",
        "",
        "A TITAN X trains alone. Every layer's forward kernel and backward kernel (backward-data "
        "+ backward-filter) carries paleo.md §3's costs (`compute_model: layer_ops`, "
        "workloads/models/layer_cost_model.h): FLOPs, bytes read and written, convolutions by "
        "GEMM or FFT as the `cudnn_v4_like` rule picks under the 4 GB workspace limit; accel.gpu "
        "times a kernel as R/bandwidth + C/peak + W/bandwidth at one platform percent of peak. "
        f"**Nothing is fitted**: device, PPP ({PPP * 100:.0f} %) and batches are the PALEO "
        "authors' published inputs (ledger below). VGG-16 is a prediction.",
        "",
        "| network | pass | TensorFlow (ms) | PALEO (ms) | trainvp (ms) | vs TensorFlow | "
        "vs PALEO |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    for name, ours in (("forward", fa), ("backward", ba)):
        lines.append(f"| AlexNet (alexnet_v2, batch 128) | {name} | {MEASURED[name]:.2f} | "
                     f"{PALEO[name]:.2f} | {ours:.2f} | {err(ours, MEASURED[name]):+.1f} % | "
                     f"{err(ours, PALEO[name]):+.1f} % |")
    for name, ours in (("forward", fv), ("backward", bv)):
        lines.append(f"| VGG-16 (vgg16_slim, batch 64) | {name} | held out | held out | "
                     f"{ours:.1f} | prediction | prediction |")
    lines += [
        "",
        f"For reference, not used for VGG-16: the one PPP that makes AlexNet's forward + backward "
        f"equal TensorFlow's 199.10 ms is {fit * 100:.2f} %; it gives forward {ff:.2f} ms "
        f"({err(ff, MEASURED['forward']):+.1f} %) and backward {bf:.2f} ms "
        f"({err(bf, MEASURED['backward']):+.1f} %).",
        "",
        "**Why one PPP cannot put both AlexNet passes within 15 % of TensorFlow here.** The "
        f"model's backward/forward ratio is {ba / fa:.2f}; TensorFlow's is "
        f"{MEASURED['backward'] / MEASURED['forward']:.2f} (PALEO's own estimate: "
        f"{PALEO['backward'] / PALEO['forward']:.2f}). paleo.md footnote 5: TensorFlow spent two "
        "thirds of fc6's time transforming layouts between NHWC and NCHW around cuBLAS, work "
        "outside any FLOP model; PALEO's own estimate misses TensorFlow's backward by "
        f"{err(PALEO['backward'], MEASURED['backward']):+.0f} %. With the authors' PPP the "
        "forward pass agrees and the backward pass carries that miss.",
        "",
        "**Against PALEO's own estimate.** The authors ask cuDNN v4 which algorithm it would run "
        "per layer and operation (paleo/profilers/cudnn_profiler.py); trainvp states a rule "
        "instead. Under it AlexNet's conv2 (5x5) runs by FFT in all three operations, conv1 "
        "(stride 4), conv3-5 (3x3) and fc6-fc8 by GEMM. fc6's backward-data, a convolution of "
        "the 1x1 output gradient padded to 9x9 with the 5x5 filters, is 44.5 ms of the backward "
        "pass by GEMM (FFT would be 68 ms): which algorithm cuDNN ran there, and for the other "
        "operations, is what the published per-pass totals cannot tell.",
        "",
        "Assumptions ledger (configs/papers/paleo/titanx*.yaml):",
        "",
        "| value | as set | source |",
        "|---|---|---|",
    ]
    lines += [f"| {k} | {v} | {s} |" for k, v, s in LEDGER]
    replace_section("paleo-table1", "\n".join(lines))
    print(f"AlexNet forward {fa:.2f} ms ({err(fa, MEASURED['forward']):+.1f} % vs TensorFlow, "
          f"{err(fa, PALEO['forward']):+.1f} % vs PALEO), backward {ba:.2f} ms "
          f"({err(ba, MEASURED['backward']):+.1f} %, {err(ba, PALEO['backward']):+.1f} %); "
          f"VGG-16 forward {fv:.1f} ms, backward {bv:.1f} ms (prediction); "
          f"PPP fitted on the AlexNet total would be {fit * 100:.2f} %", file=sys.stderr)


if __name__ == "__main__":
    main()
