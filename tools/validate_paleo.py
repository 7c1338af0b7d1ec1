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

Then paleo.md §4.2's case studies (section `paleo-cases`): Table 2's one-step times on one GPU,
Table 3 (FireCaffe NiN, strong scaling with a tree all-reduce on 1-128 K20X workers) and
Fig. 3a (Inception v3 weak scaling with a butterfly all-reduce on 1-100 K40 workers), each
from the authors' device, PPPs and nets (scripts/exp_case_*.sh), with the published numbers
and the errors; Table 5 (the GAN's DCGAN networks alone on a K80: a prediction, its net, batch
and GPU are not published); and INCEPTIONN's Table II forward and backward passes predicted on its Titan Xp
next to the measured inputs its configs keep (section `paleo-inceptionn-compute`); the smart-NIC
configs' FLOP-only compute next to their layer-ops twins (section `paleo-smartnic-compute`).
--skip-cases runs Table 1 only.
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


# paleo.md Table 2: one-step time (forward + backward + update, one worker), ms.
TABLE2 = [  # (config, what, PALEO, reported)
    ("k20x_nin", "case 1: NiN, K20X, batch 256, GEMM, PPP 0.21", 1918, 2275),
    ("k40_inception_v3", "case 2: Inception v3, K40, batch 256, PPP 0.62", 4269, None),
    ("k20_alexnet", "case 3: AlexNet, K20, batch 128, GEMM, PPP 0.46", 402, 418),
]
# paleo.md Table 3: (workers, total batch, FireCaffe days-or-hours, speedup, PALEO time, speedup)
TABLE3 = [
    (1, 256, 5.8 * 24, 1.0, 4.9 * 24, 1.0),
    (32, 256, 11, 13, 7.6, 15.5),
    (32, 1024, 6, 23, 4.6, 25.3),
    (128, 1024, 3.6, 39, 2.3, 51.6),
]
# Iterations of FireCaffe's NiN run at batch 256: its 5.8 days at its 2275 ms per step (paleo.md
# Tables 2 and 3; PALEO's 4.9 days at 1918 ms gives 220,725, +0.2 %).  At batch B the same
# epochs take 256 / B as many.
ITERATIONS_256 = 5.8 * 86400 / 2.275
# paleo.md Table 4: (workers, Krizhevsky hybrid hours, speedup, PALEO hybrid hours, speedup,
# PALEO data-parallel hours, speedup).  Weak scaling at batch 128 per GPU.
TABLE4 = [
    (1, 98.95, 1.0, 96.31, 1.0, 96.31, 1.0),
    (2, 50.24, 1.95, 49.57, 1.94, 55.90, 1.72),
    (4, 26.20, 3.74, 25.42, 3.79, 32.82, 3.03),
    (8, 16.68, 6.25, 14.37, 6.70, 23.65, 5.40),
]
# Krizhevsky's one-GPU run: 98.95 h at his 418 ms per step (paleo.md Tables 2 and 4); K GPUs
# take 1 / K as many steps (weak scaling).
ITERATIONS_ALEXNET = 98.95 * 3600 / 0.418
# paleo.md Table 5: full passes (ms) of the GAN's networks, TensorFlow and PALEO's estimate.
TABLE5 = [  # (network, config, TF forward, TF backward, PALEO forward, PALEO backward)
    ("discriminator", "k80_dcgan_discriminator", 30.19, 77.39, 27.55, 79.25),
    ("generator", "k80_dcgan_generator", 110.11, 374.18, 117.02, 324.49),
]
INCEPTION_WORKERS = [1, 2, 4, 8, 16, 50, 100]  # scripts/exp_case_inception.sh --num_workers
# paleo.md §4.2.2: 20 epochs of ImageNet at batch 256 (1.2 M images: PALEO's 111 h is
# 1.2e6 x 20 / 256 steps of its 4269 ms), reported 100 h.
INCEPTION_STEPS = 1.2e6 * 20 / 256

CASE_LEDGER = [
    ("devices", "K20X 3935 GFLOP/s 250 GB/s; K20 3520, 208; K40 4290, 288",
     "TalwalkarLab/paleo paleo/device.py (GB/s read as GiB/s, as flops_profiler.py divides)"),
    ("PPPs", "NiN 0.21 / 0.56, Inception 0.62 / 0.72, AlexNet 0.46 / 0.75 (comp / comm)",
     "scripts/exp_case_firecaffe.sh, exp_case_inception.sh, exp_case_hybrid.sh; comm PPP as "
     "the NIC's efficiency"),
    ("algorithms", "NiN, AlexNet: gemm; Inception: cudnn_v4_like",
     "--use_only_gemm in exp_case_firecaffe.sh and exp_case_hybrid.sh"),
    ("networks", "70 Gb/s (NiN), 10 Gb/s (Inception), 64 Gb/s = 8 GB/s (AlexNet)",
     "paleo.md Table 2; paleo/device.py (pcie2: 8 GB/s)"),
    ("hosts", "Opteron 6274 class: 281.6 GFLOP/s, 51.2 GB/s DDR3, PCIe 2.0 x16 to the GPU",
     "assumption (Titan's nodes); the host sums the tree's partial gradients and updates"),
    ("switch", "cut-through, 100 ns (NiN, AlexNet); store-and-forward 1 us (Inception); "
     "16 MiB queues",
     "assumption"),
    ("iterations", f"NiN {ITERATIONS_256:,.0f} at batch 256 (x 256 / B); AlexNet "
     f"{ITERATIONS_ALEXNET:,.0f} on one GPU (/ K)",
     "FireCaffe's 5.8 days / 2275 ms per step; Krizhevsky's 98.95 h / 418 ms (paleo.md "
     "Tables 2-4)"),
    ("Inception weak scaling", "one GPU and one 10 Gb/s link per worker, batch 256 each",
     "scripts/exp_case_inception.sh (--scaling=weak)"),
    ("GAN networks", "zoo dcgan_generator / dcgan_discriminator (ngf = ndf = 128, 5x5 stride 2, "
     "batch norm, no biases)", "Radford et al. 2015 Fig. 1; parameter shapes of Newmu/dcgan_code "
     "faces/train_uncond_dcgan.py (the PALEO authors' GAN net file is not released)"),
    ("GAN device and PPP", "K80 5600 GFLOP/s, 480 GB/s, PPP 0.62", "paleo.md §4.3.2 (\"the same "
     "hardware assumptions as the previous case study\": §4.3.1's K80); paleo/device.py GPU_K80; "
     "scripts/exp_case_alexnet_scalability.sh PPP_COMP=0.62"),
    ("GAN batch", "128", "assumption: the DCGAN authors' training batch (Radford et al. §4; "
     "nbatch = 128 in Newmu/dcgan_code); paleo.md does not give Table 5's"),
    ("dilation_zeros (GAN)", "computed", "paleo/layers/conv.py and flops_profiler.py: a "
     "transposed convolution's forward pass (a strided convolution's backward-data) is a "
     "stride-1 GEMM over the input dilated by the stride, zeros included"),
]


def step_ms(config, out, build, sets=()):
    b = breakdown_ms(run_config(f"configs/papers/paleo/{config}.yaml",
                                os.path.join(out, config + "".join(
                                    "_" + x.split("=")[1] for x in sets)),
                                sets=list(sets), build=build))
    return b["time"], b


def cases(out, build):
    lines = [
        "## paleo.md §4.2: the case studies",
        "",
        "Regenerate: `/usr/bin/python3 tools/validate_paleo.py` (runs "
        "`configs/papers/paleo/{k20x_nin,k40_inception_v3,k20_alexnet,firecaffe_nin,"
        "alexnet_data_parallel,alexnet_hybrid,inception_weak,k80_dcgan_*}.yaml`). Every layer carries paleo.md §3's costs (compute_model "
        "layer_ops); devices, PPPs, nets and batches are the PALEO authors' (ledger below); "
        "nothing is fitted. The exchanges are the platform's collectives over modelled NICs, "
        "links and a switch, and the hosts copy gradients off the GPU, sum and update, which "
        "PALEO's formulas leave out.",
        "",
        "### Table 2: one step on one GPU (forward + backward + update)",
        "",
        "| case | PALEO (ms) | reported (ms) | trainvp (ms) | vs PALEO | vs reported |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    one = {}
    for cfg, what, paleo, reported in TABLE2:
        t, _ = step_ms(cfg, out, build)
        one[cfg] = t
        rep = f"{reported}" if reported else "—"
        vs_rep = f"{err(t, reported):+.1f} %" if reported else "—"
        lines.append(f"| {what} | {paleo} | {rep} | {t:.1f} | {err(t, paleo):+.1f} % | {vs_rep} |")
    lines += [
        "",
        "Case 3's one-step time includes fc6's backward-data as the authors' "
        "alex_v2_1gpu.json writes it (a 5x5 convolution over the padded 1x1 gradient, 105 ms "
        "at this device and PPP).",
        "",
        "### Table 3: FireCaffe NiN, strong scaling (tree all-reduce, 70 Gb/s, K20X)",
        "",
        "| workers | batch | FireCaffe time | speedup | PALEO time | speedup | trainvp step (ms) "
        "| trainvp time | speedup | speedup vs FireCaffe |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    t1 = one["k20x_nin"]
    for k, batch, fc_h, fc_s, pa_h, pa_s in TABLE3:
        if k == 1:
            t = t1
        else:
            t, _ = step_ms("firecaffe_nin", out, build,
                           (f"components.node.count={k}", f"components.switch.ports={k}",
                            f"workload.training.batch={batch // k}"))
        hours = ITERATIONS_256 * 256 / batch * t / 1000 / 3600
        speed = t1 * batch / 256 / t
        def fmt(h):
            return f"{h / 24:.1f} days" if h > 48 else f"{h:.1f} h"
        lines.append(f"| {k} | {batch} | {fmt(fc_h)} | {fc_s:g}x | {fmt(pa_h)} | {pa_s:g}x | "
                     f"{t:.1f} | {fmt(hours)} | {speed:.1f}x | {err(speed, fc_s):+.1f} % |")
    lines += [
        "",
        "### Table 4: AlexNet on 1-8 K20s, hybrid and data parallelism (6 GB/s)",
        "",
        "`configs/papers/paleo/alexnet_hybrid.yaml` (Krizhevsky's one weird trick: "
        "convolutions data-parallel with a tree all-reduce of their gradients, fc6-fc8 "
        "model-parallel, `model_parallel_from: fc6`: each GPU computes 1/K of their filters "
        "for the K x 128 samples, the activations all-gathered and their gradients "
        "reduce-scattered over the modelled links) and `alexnet_data_parallel.yaml` (every "
        "gradient all-reduced), both the PALEO authors' setup (scripts/exp_case_hybrid.sh: "
        "nets/alex_v2_1gpu.json, K20, GEMM only, PPP 0.46 / 0.75). Speedup = workers x one "
        "GPU's step / the step with K workers (batch 128 each); time = "
        f"{ITERATIONS_ALEXNET:,.0f} / K steps of the modelled step (Krizhevsky's 98.95 h at "
        "418 ms per step). Nothing is fitted.",
        "",
        "| workers | Krizhevsky (h) | speedup | PALEO hybrid (h) | speedup | trainvp hybrid "
        "step (ms) | trainvp (h) | speedup | vs Krizhevsky | vs PALEO |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    ta = one["k20_alexnet"]
    dp_rows = []
    for k, hy_h, hy_s, ph_h, ph_s, pa_h, pa_s in TABLE4:
        sets = (f"components.node.count={k}", f"components.switch.ports={k}")
        th = ta if k == 1 else step_ms("alexnet_hybrid", out, build, sets)[0]
        td = ta if k == 1 else step_ms("alexnet_data_parallel", out, build, sets)[0]
        for t, row in ((th, (hy_h, hy_s, ph_h, ph_s)), (td, (pa_h, pa_s))):
            hours = ITERATIONS_ALEXNET / k * t / 1000 / 3600
            speed = k * ta / t
            if len(row) == 4:
                lines.append(f"| {k} | {row[0]} | {row[1]:g}x | {row[2]} | {row[3]:g}x | "
                             f"{t:.1f} | {hours:.1f} | {speed:.2f}x | "
                             f"{err(speed, row[1]):+.1f} % | {err(speed, row[3]):+.1f} % |")
            else:
                dp_rows.append(f"| {k} | {row[0]} | {row[1]:g}x | {t:.1f} | {hours:.1f} | "
                               f"{speed:.2f}x | {err(speed, row[1]):+.1f} % |")
    lines += [
        "",
        "Strict data parallelism (PALEO's estimate of what Krizhevsky did not measure):",
        "",
        "| workers | PALEO data-parallel (h) | speedup | trainvp step (ms) | trainvp (h) | "
        "speedup | vs PALEO |",
        "|---:|---:|---:|---:|---:|---:|---:|",
    ] + dp_rows
    lines += [
        "",
        "trainvp's workers copy what they exchange between the GPU and the host over PCIe, "
        "sum and update the all-reduced gradients there and copy the weights back; PALEO's "
        "estimate has the exchange only, which is the gap in the data-parallel speedups. In "
        "the hybrid scheme the fc layers' 47.1 M of the 49.6 M parameters stay on their "
        "GPUs (each updates its slices); only the convolutions' 2.5 M are all-reduced. "
        "Not modelled: the 50 % bandwidth penalty between Krizhevsky's two groups of 4 GPUs "
        "(one switch here), which only the 8-GPU row crosses, the one whose speedup is above "
        "the measured one (as PALEO's own, by less); the authors split fc6 and fc7 only "
        "(their nets/alex_v2_{2,4,8}gpu.json), Krizhevsky and this config fc8 too.",
        "",
        "### Fig. 3a: Inception v3, weak scaling (butterfly all-reduce, 10 Gb/s, K40)",
        "",
        "Speedup = workers x one worker's step / the step with K workers (batch 256 each). "
        "Published: Murray et al.'s 56x at 100 workers (reported, with parameter servers; "
        "paleo.md takes the butterfly's communication as a lower bound of theirs, so a "
        "prediction at or above 56x agrees with it); PALEO's curve is a figure only.",
        "",
        "| workers | trainvp step (ms) | comm (ms) | speedup |",
        "|---:|---:|---:|---:|",
    ]
    ti = one["k40_inception_v3"]
    for k in INCEPTION_WORKERS:
        if k == 1:
            t, comm = ti, 0.0
        else:
            t, b = step_ms("inception_weak", out, build,
                           (f"components.node.count={k}", f"components.switch.ports={k}"))
            comm = b["comm"]
        lines.append(f"| {k} | {t:.1f} | {comm:.1f} | {k * ti / t:.1f}x |")
    hours = INCEPTION_STEPS * ti / 1000 / 3600
    lines += [
        "",
        f"20 epochs at batch 256 on 8 K40s (paleo.md §4.2.2; GPUs in a host scale linearly): "
        f"reported 100 h, PALEO 111 h, trainvp {hours:.1f} h ({err(hours, 100):+.1f} % vs "
        f"reported, {err(hours, 111):+.1f} % vs PALEO).",
        "",
    ]
    lines += table5(out, build)
    lines += [
        "",

        "Assumptions ledger (configs/papers/paleo/):",
        "",
        "| value | as set | source |",
        "|---|---|---|",
    ]
    lines += [f"| {k} | {v} | {s} |" for k, v, s in CASE_LEDGER]
    replace_section("paleo-cases", "\n".join(lines))


def table5(out, build):
    """paleo.md Table 5 on the platform: the DCGAN networks alone on a K80."""
    lines = [
        "### Table 5: the GAN's networks alone on a K80 (full passes)",
        "",
        "`configs/papers/paleo/k80_dcgan_{generator,discriminator}.yaml`: DCGAN's generator and "
        "discriminator (zoo `dcgan_generator`, `dcgan_discriminator`: Radford et al.'s Fig. 1 "
        "with the layer shapes its authors released) at batch 128 on a K80 at PPP 62 %, "
        "transposed convolutions costed as the convolutions they transpose (a transposed "
        "convolution's forward pass is a convolution's backward-data and vice versa), the "
        "zeros of a stride-dilated operand computed as the PALEO authors count them "
        "(`dilation_zeros: computed`). **A prediction with three unpublished inputs**: "
        "paleo.md gives neither the GAN's net file, nor its batch, nor the GPU it measured on "
        "(the ledger says what is assumed); nothing is fitted.",
        "",
        "| network | pass | TensorFlow (ms) | PALEO (ms) | trainvp (ms) | vs TensorFlow | "
        "vs PALEO |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    got = {}
    for net, cfg, tf_f, tf_b, pa_f, pa_b in TABLE5:
        _, b = step_ms(cfg, out, build)
        _, s = step_ms(cfg, out, build, ("workload.training.dilation_zeros=skipped",))
        got[net] = (b["forward"], b["backward"], s["forward"], s["backward"])
        for name, ours, tf, pa in (("forward", b["forward"], tf_f, pa_f),
                                   ("backward", b["backward"], tf_b, pa_b)):
            lines.append(f"| {net} | {name} | {tf:.2f} | {pa:.2f} | {ours:.2f} | "
                         f"{err(ours, tf):+.1f} % | {err(ours, pa):+.1f} % |")
    d, g = got["discriminator"], got["generator"]
    lines += [
        "",
        "Ratios, which no batch or device assumption changes (every time scales alike): "
        f"generator / discriminator forward: TensorFlow {110.11 / 30.19:.2f}, PALEO "
        f"{117.02 / 27.55:.2f}, trainvp {g[0] / d[0]:.2f}; backward / forward of the "
        f"discriminator: TensorFlow {77.39 / 30.19:.2f}, PALEO {79.25 / 27.55:.2f}, trainvp "
        f"{d[1] / d[0]:.2f}; of the generator: TensorFlow {374.18 / 110.11:.2f}, PALEO "
        f"{324.49 / 117.02:.2f}, trainvp {g[1] / g[0]:.2f}.",
        "",
        "The two networks are mirror images with the same multiply-adds (639 M per sample in "
        "their 5x5 layers, test ModelZoo.DcganMatchesTheReleasedParameterTensors), so the "
        "generator's ~4x longer forward pass in both published rows points to the "
        "transposed convolutions computing the zeros of the stride-2 dilated input (4x the "
        "multiply-adds), which is how the PALEO authors' released code counts them; the same "
        "code counts a strided convolution's backward-data the same way, which puts the "
        "discriminator's backward pass at "
        f"{d[1] / d[0]:.1f}x its forward pass where Table 5 has 2.6x (TensorFlow) and 2.9x "
        "(PALEO), and leaves the generator's backward pass (its transposed convolutions' data "
        "gradient is an ordinary strided convolution) at "
        f"{g[1] / g[0]:.1f}x its forward pass where Table 5 has 3.4x and 2.8x. No single "
        "counting of the zeros reproduces all four ratios of Table 5, so its net (or batch) is "
        "not the one inferred here. With the zeros skipped everywhere (`dilation_zeros: "
        f"skipped`, the platform's default) the passes are: discriminator {d[2]:.1f} / "
        f"{d[3]:.1f} ms, generator {g[2]:.1f} / {g[3]:.1f} ms (forward / backward), and the "
        "generator's forward pass is no longer longer than the discriminator's.",
    ]
    return lines


# inceptionn.md Table II's forward and backward times per iteration (ms), the measured inputs of
# configs/papers/inceptionn/wa_<model>.yaml, and Table I's batches.
INCEPTIONN_MEASURED = [  # (model, batch, forward, backward, where it runs)
    ("alexnet", 64, 31.3, 162.2, "Titan Xp"),
    ("vgg16", 64, 322.5, 1423.4, "Titan Xp"),
    ("resnet50", 16, 26.3, 48.7, "Titan Xp"),
    ("hdc", 25, 0.8, 0.7, "E5-2640 v3 host"),
]


def inceptionn_compute(out, build):
    lines = [
        "## INCEPTIONN's forward and backward passes: measured inputs and paleo.md §3's prediction",
        "",
        "Regenerate: `/usr/bin/python3 tools/validate_paleo.py` (runs "
        "`configs/papers/inceptionn/predicted_<model>.yaml`). The INCEPTIONN configs keep Table "
        "II's measured forward and backward times as inputs (`wa_<model>.yaml`); the "
        "`predicted_<model>.yaml` twins predict them with `compute_model: layer_ops` on the "
        "node's device: the Titan Xp at 62 % of peak (an assumption: the PALEO authors' "
        "TensorFlow PPP; no INCEPTIONN input gives one), HDC on the host CPU at its peak. "
        "Nothing here is fitted to Table II.",
        "",
        "| model | batch | device | forward measured (ms) | predicted | error | backward measured "
        "(ms) | predicted | error |",
        "|---|---:|---|---:|---:|---:|---:|---:|---:|",
    ]
    ratios = []
    for model, batch, fwd, bwd, dev in INCEPTIONN_MEASURED:
        b = breakdown_ms(run_config(f"configs/papers/inceptionn/predicted_{model}.yaml",
                                    os.path.join(out, "inceptionn_" + model), build=build))
        lines.append(f"| {model} | {batch} | {dev} | {fwd} | {b['forward']:.2f} | "
                     f"{err(b['forward'], fwd):+.0f} % | {bwd} | {b['backward']:.2f} | "
                     f"{err(b['backward'], bwd):+.0f} % |")
        ratios.append(f"{model} {bwd / fwd:.1f}x measured, {b['backward'] / b['forward']:.1f}x "
                      "predicted")
    lines += [
        "",
        "Backward / forward: " + "; ".join(ratios) + ". Where Table II's backward pass is "
        "several times its forward pass (AlexNet, VGG-16), the layer model, whose backward is "
        "about two forward passes of FLOPs and bytes, cannot follow it at one PPP, as paleo.md "
        "Table 1's TensorFlow AlexNet (3.5x) is above PALEO's own estimate (2.6x). The measured "
        "inputs stay the INCEPTIONN configs' default.",
    ]
    replace_section("paleo-inceptionn-compute", "\n".join(lines))


def smartnic_compute(out, build):
    """The smart-NIC configs' compute from FLOPs alone next to their paleo.md §3 twins."""
    lines = [
        "## smartnic.md's compute: FLOPs alone and paleo.md §3's layer operations",
        "",
        "Regenerate: `/usr/bin/python3 tools/validate_paleo.py` (runs "
        "`configs/papers/smartnic/{baseline,smartnic}.yaml` and their twins "
        "`predicted_{baseline,smartnic}.yaml`). The smart-NIC configs time each layer from the "
        "zoo's totals: its FLOPs at the Xeon 8280's peak, as smartnic.md's analytical model "
        "counts them (T_F = 2M²B / P_Worker, T_B = 4M²B / P_Worker), plus the weights and "
        "outputs as memory traffic (`compute_model: layer_totals`); the twins cost every "
        "forward, backward-data and backward-filter operation with the bytes it reads and "
        "writes (`compute_model: layer_ops`, paleo.md §3.1.1), host.cpu timing each as memory "
        "time at 140.8 GB/s plus FLOPs at the peak. smartnic.md publishes no forward or "
        "backward time to compare with, and the baseline's fitted software-ring cost "
        "(nodes.yaml) is kept, not refitted: the table shows how far the layer operations move "
        "each phase of the iteration breakdown (critical-path times, ms, 6 nodes). Both are "
        "predictions.",
        "",
        "| system | batch | forward | twin | backward | twin | iteration | twin | iteration "
        "change |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for system in ("baseline", "smartnic"):
        for batch in (448, 1792):
            row = []
            for cfg in (system, "predicted_" + system):
                b = breakdown_ms(run_config(f"configs/papers/smartnic/{cfg}.yaml",
                                            os.path.join(out, f"sn_{cfg}_{batch}"),
                                            sets=[f"workload.training.batch={batch}"],
                                            build=build))
                row.append(b)
            a, t = row
            lines.append(f"| {system} | {batch} | {a['forward']:.2f} | {t['forward']:.2f} | "
                         f"{a['backward']:.2f} | {t['backward']:.2f} | {a['time']:.2f} | "
                         f"{t['time']:.2f} | {err(t['time'], a['time']):+.1f} % |")
    lines += [
        "",
        "Per 2048 x 2048 layer at batch B the layer operations also read the layer's input: "
        "forward x + w + y instead of w + y, backward (dy + w -> dx) + (x + dy -> dw) instead "
        "of w + dw + 2y, i.e. B x 8 KiB more forward and B x 16 KiB more backward (3.7 MB and "
        "7.3 MB at B = 448, next to 16 MiB of weights and 3.8 GFLOP, 1.17 ms at the peak): a "
        "few per cent on each compute op, less on the iteration, whose critical path the "
        "exchange holds at B = 448.",
    ]
    replace_section("paleo-smartnic-compute", "\n".join(lines))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=None)
    ap.add_argument("--out", default="out/validation/paleo")
    ap.add_argument("--skip-cases", action="store_true")
    a = ap.parse_args()

    fa, ba = passes("alexnet", a.out, a.build)
    fv, bv = passes("vgg16", a.out, a.build)
    fit = PPP * (fa + ba) / (MEASURED["forward"] + MEASURED["backward"])
    # The PPPs p that put both passes within 15 % of TensorFlow: pass x (PPP / p) in
    # [0.85, 1.15] x measured; and the one with equal and opposite relative errors.
    lo = max(PPP * fa / (1.15 * MEASURED["forward"]), PPP * ba / (1.15 * MEASURED["backward"]))
    hi = min(PPP * fa / (0.85 * MEASURED["forward"]), PPP * ba / (0.85 * MEASURED["backward"]))
    mm = PPP * (fa / MEASURED["forward"] + ba / MEASURED["backward"]) / 2
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
        "**One PPP against TensorFlow.** Every kernel time scales as 1/PPP, so the passes keep "
        f"the model's backward/forward ratio, {ba / fa:.2f}; TensorFlow's is "
        f"{MEASURED['backward'] / MEASURED['forward']:.2f} (PALEO's own estimate: "
        f"{PALEO['backward'] / PALEO['forward']:.2f}; paleo.md footnote 5: TensorFlow spent two "
        "thirds of fc6's time transforming layouts between NHWC and NCHW around cuBLAS, work "
        "outside any FLOP model). "
        + (f"Both passes are within 15 % of TensorFlow for any one PPP in [{lo * 100:.1f} %, "
           f"{hi * 100:.1f} %]; the one that balances the two errors is {mm * 100:.1f} % "
           f"(forward {err(fa * PPP / mm, MEASURED['forward']):+.1f} %, backward "
           f"{err(ba * PPP / mm, MEASURED['backward']):+.1f} %). " if lo <= hi else
           "No one PPP puts both passes within 15 % of TensorFlow. ")
        + "The configs keep the authors' 62 % instead: it is a published input, and a PPP "
        "fitted on these two AlexNet measurements would be judged by the case it was fitted on; "
        f"at {mm * 100:.1f} % the VGG-16 prediction would be {PPP / mm:.3f}x the one above.",
        "",
        "**Against PALEO's own estimate.** The authors ask cuDNN v4 which algorithm it would run "
        "per layer and operation (paleo/profilers/cudnn_profiler.py); trainvp states a rule "
        "instead. Under it AlexNet's conv2 (5x5) runs by FFT in all three operations, conv1 "
        "(stride 4), conv3-5 (3x3) and fc6-fc8 by GEMM. fc6's backward-data, a convolution of "
        "the 1x1 output gradient padded to 9x9 with the 5x5 filters, is 44.5 ms of the backward "
        "pass by GEMM (FFT would be 68 ms): which algorithm cuDNN ran there, and for the other "
        "operations, is what the published per-pass totals cannot tell. How much it decides, "
        "with these same layer costs: taking for every operation cuDNN could run either way "
        "(unit stride, wider than 1x1) the cheaper or the dearer of GEMM and FFT spans the "
        "forward pass over 36.6 .. 64.0 ms and the backward pass over 109.9 .. 157.7 ms "
        "(tests/unit/models/test_paleo_algorithm_bound.cpp), an interval 40 % of PALEO's "
        "118.44 ms wide that contains it: the +5.9 % above is the rule's choice against "
        "cuDNN's undisclosed ones, and choosing per operation to land within 5 % would be a "
        "fit on the published total, not a model.",
        "",
        "**Sensitivity of the VGG-16 prediction.** The backward-data of a convolution is costed "
        "as the authors cost it, a convolution over the zero-padded output gradient "
        "(conv_problem.h). For the fc layers their nets write as convolutions that padding is "
        "most of the work: fc6's backward-data is 44.5 ms of AlexNet's backward pass and 171 ms "
        "of VGG-16's; a col2im GEMM (2KCRSNPQ, as for the forward pass) would make them 2.3 ms "
        "and 5.3 ms. Which one TensorFlow's cuDNN call did is not published; the prediction keeps "
        "the authors' form.",
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
    if not a.skip_cases:
        cases(a.out, a.build)
        print("docs/validation.md: section paleo-cases written", file=sys.stderr)
        inceptionn_compute(a.out, a.build)
        print("docs/validation.md: section paleo-inceptionn-compute written", file=sys.stderr)
        smartnic_compute(a.out, a.build)
        print("docs/validation.md: section paleo-smartnic-compute written", file=sys.stderr)


if __name__ == "__main__":
    main()
