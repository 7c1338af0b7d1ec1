#!/usr/bin/env python3
"""The assumptions ledger of each paper's configs (docs/validation.md, sections ledger-<paper>).

    /usr/bin/python3 tools/gen_ledger.py [--build build] [--check]

Expands every experiment config of configs/papers/<paper>/ (a zero-length run writes its
config.resolved.yaml: every param of every block with its value) and lists each distinct
(block type, param, value) once.  Each one is classified by LEDGER below: a published input of
the paper (with its section), a public figure (datasheet, manual, measurement: cited), a value
fitted on a calibration case (which, with its arithmetic in the config), an assumption (with
its reasoning) or a modelling knob (accuracy against speed; no physical meaning).  A value a
config does not set is the block's default, whose source is its description (docs/ip-
reference.md); the ledger says so and quotes it.  A value a config sets that LEDGER does not
classify is an error: the ledger stays complete.  --check only checks that (a test runs it).
"""
import argparse
import glob
import os
import re
import subprocess
import sys
import tempfile

import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from trainvp_runs import ROOT, trainvp_binary  # noqa: E402
from validation_section import replace_section  # noqa: E402

PAPERS = {
    "inceptionn": ["wa_*.yaml", "inc_*.yaml", "wa8_*.yaml", "inc8_*.yaml", "wa_c_*.yaml",
                   "inc_c_*.yaml"],
    "smartnic": ["baseline.yaml", "baseline_naive.yaml", "smartnic.yaml", "smartnic_bfp.yaml"],
}

INPUT, PUBLIC, FITTED, ASSUMED, KNOB = ("paper input", "public figure", "fitted",
                                        "assumption", "modelling knob")


def reference():
    """(section, param) -> (default, description) from docs/ip-reference.md."""
    ref, section = {}, None
    with open(os.path.join(ROOT, "docs", "ip-reference.md")) as f:
        for line in f:
            m = re.match(r"## (\S+)", line)
            if m:
                section = m.group(1)
                continue
            m = re.match(r"\| `([^`]+)` \| (?:[^|\\]|\\.)* \| `([^`]*)` \| [^|]* \| (.*) \|$",
                         line)
            if m and section:
                ref[(section, m.group(1))] = (m.group(2), m.group(3))
    return ref


def flatten(params, prefix=""):
    """A block's params with sub-maps as dotted keys."""
    out = {}
    for k, v in params.items():
        if isinstance(v, dict):
            out.update(flatten(v, prefix + k + "."))
        else:
            out[prefix + k] = v
    return out


def blocks(components, path=""):
    """(instance path, type, params) of every block of a resolved `components:` map."""
    for name, c in components.items():
        p = path + name
        if "components" in c:
            yield from blocks(c["components"], p + ".")
        elif "type" in c:
            params = {k: v for k, v in c.items() if k != "type"}
            yield p, c["type"], flatten(params)


def resolved(build, config, tmp):
    out = os.path.join(tmp, os.path.basename(config)[:-5])
    cmd = [trainvp_binary(build), "run", config, "--out", out, "--force", "--quiet",
           "--set", "simulation.max_time=1ps"]
    p = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"{' '.join(cmd)}\nexit {p.returncode}\n{p.stdout}{p.stderr}")
    with open(os.path.join(out, "config.resolved.yaml")) as f:
        return yaml.safe_load(f)


def entries(build, paper, tmp):
    """{(section, param): {value: [configs]}} over the paper's experiment configs."""
    seen = {}
    configs = sorted({c for pat in PAPERS[paper]
                      for c in glob.glob(os.path.join(ROOT, "configs", "papers", paper, pat))})
    for c in configs:
        rel = os.path.relpath(c, ROOT)
        doc = resolved(build, rel, tmp)
        items = [("simulation", k, v) for k, v in doc.get("simulation", {}).items()]
        for sec, body in doc.get("workload", {}).items():
            if isinstance(body, dict):
                items += [("workload." + sec, k, v) for k, v in flatten(body).items()
                          if not isinstance(v, list)]
        for _, t, params in blocks(doc.get("components", {})):
            items += [(t, k, v) for k, v in params.items()]
        for sec, k, v in items:
            seen.setdefault((sec, k), {}).setdefault(str(v), []).append(os.path.basename(c))
    return seen


# Values the paper configs set, classified: (section, param) -> (kind, source).  A param not
# listed keeps its block's default (classified by its description).
COMMON = {
    ("simulation", "stall_timeout"): (KNOB, "the stall watchdog's patience; no effect on a run "
                                            "that finishes"),
    ("simulation", "timeline"): (KNOB, "output only"),
    ("simulation", "breakdown"): (KNOB, "output only (the iteration breakdown)"),
    ("workload.training", "workers"): (INPUT, "the cluster: every node trains"),
    ("host.cpu", "node_id"): (KNOB, "the node's index in its array (`${index}`)"),
    ("nic.basic", "node_id"): (KNOB, "the node's index in its array (`${index}`)"),
    ("nic.inceptionn", "node_id"): (KNOB, "the node's index in its array (`${index}`)"),
    ("fpga.allreduce", "node_id"): (KNOB, "the node's index in its array (`${index}`)"),
    ("ethernet.switch", "ports"): (INPUT, "one port per node of the cluster"),
}

# The hosts' copies through the TCP stack, the same reasoning for both clusters.
STACK_COPIES = {
    ("host.cpu", "stack.send_copy_traffic"): (ASSUMED, "1 B of DRAM traffic per sent byte: "
                                                      "Linux TCP copies it once out of the "
                                                      "user buffer (tcp_sendmsg); the "
                                                      "socket-buffer side stays in the cache "
                                                      "(Intel DDIO)"),
    ("host.cpu", "stack.recv_copy_traffic"): (ASSUMED, "1 B per received byte: copied once "
                                                      "into the user buffer (tcp_recvmsg), the "
                                                      "socket-buffer side in the cache (Intel "
                                                      "DDIO)"),
}

LEDGER = {
    "inceptionn": {
        ("host.cpu", "peak"): (PUBLIC, "Xeon E5-2640 v3 (inceptionn.md §VII-C): Intel ARK 8 "
                                       "cores x 2.6 GHz x 32 FP32 FLOP/cycle (Haswell AVX2 "
                                       "FMA), node.yaml"),
        ("host.cpu", "cores"): (PUBLIC, "E5-2640 v3: 8 cores (Intel ARK)"),
        ("host.cpu", "stream_bandwidth"): (FITTED, "Table II AlexNet gradient-sum row: "
                                                   "24.6 GB/s (node.yaml shows the arithmetic)"),
        ("host.cpu", "stack.send_rate"): (FITTED, "issue 23's calibration case, §VIII-A AlexNet "
                                                  "INC vs WA communication -55 %: 9.2 Gb/s "
                                                  "(node.yaml shows the arithmetic); equal to "
                                                  "recv_rate, an assumption (no published "
                                                  "split)"),
        ("host.cpu", "stack.recv_rate"): (ASSUMED, "equal to send_rate (the one fitted "
                                                   "number; no published send/receive split)"),
        **STACK_COPIES,
        ("host.cpu", "stack.cache"): (PUBLIC, "Xeon E5-2640 v3: 20 MB last-level cache "
                                              "(Intel ARK)"),
        ("memory", "bandwidth"): (PUBLIC, "4 channels DDR4-1866, the E5-2640 v3's fastest "
                                          "(Intel ARK): 59.7 GB/s"),
        ("memory", "size"): (INPUT, "§VII-C: 32 GB DDR4"),
        ("memory", "ports"): (KNOB, "one per initiator: CPU, NIC root port, GPU root port"),
        ("accel.gpu", "copy_rate"): (FITTED, "Table II AlexNet GPU-copy row: 8.59 GB/s "
                                             "(node.yaml)"),
        ("accel.gpu", "copy_burst"): (KNOB, "granularity of the copies' transactions"),
        ("pcie.link", "gen"): (PUBLIC, "X540-T1: PCI Express 2.1 x8 (Intel X540 datasheet); "
                                       "Titan Xp slot PCIe 3.0 x16"),
        ("pcie.link", "lanes"): (PUBLIC, "X540-T1 x8 (datasheet); Titan Xp x16 (NVIDIA)"),
        ("nic.inceptionn", "table3_model"): (INPUT, "Table III: the model's row at error_bound "
                                                    "(the NIC holds the table)"),
        ("nic.inceptionn", "error_bound"): (INPUT, "§VIII: 2^-10 (Table III's rows at 2^-10)"),
        ("ethernet.switch", "forwarding"): (ASSUMED, "store and forward, as a NETGEAR ProSafe "
                                                     "10 GbE switch (§VII-C) does"),
        ("ethernet.switch", "overflow"): (ASSUMED, "pause (lossless): the cluster's losses "
                                                   "are not reported; with drop a lost frame "
                                                   "would cost the NIC's rto (TCP's timer, "
                                                   "ip/nic/README.md)"),
        ("workload.training", "model"): (INPUT, "§VII-A, Table I: the four models"),
        ("workload.training", "model_parameters.fc_layers"): (ASSUMED, "HDC with 3 weight "
                                                                       "layers: the paper's "
                                                                       "2.5 MB (docs/status.md, "
                                                                       "Decisions)"),
        ("workload.training", "batch"): (INPUT, "Table I per-node batch"),
        ("workload.training", "forward_time"): (INPUT, "Table II forward row / 100"),
        ("workload.training", "backward_time"): (INPUT, "Table II backward row / 100"),
        ("workload.training", "algorithm"): (INPUT, "§IV Alg. 1 (ring) and the WA reference"),
        ("workload.training", "aggregator"): (INPUT, "§VII-C: one more node as the aggregator"),
        ("workload.training", "broadcast"): (ASSUMED, "binomial weight return, MPI_Bcast; "
                                                      "§VIII-D's log p term"),
        ("workload.training", "policy"): (INPUT, "Alg. 1: exchange after the backward pass"),
        ("workload.training", "compute"): (INPUT, "§VII-B: computation on the GPU (HDC on the "
                                                  "host: Table II has no GPU copy for it)"),
        ("workload.training", "update"): (INPUT, "§VII-B: \"all the computation steps ... "
                                                 "are performed on the GPU\" (INC workers)"),
        ("workload.training", "compression"): (INPUT, "§VI-B: gradients marked for the NIC "
                                                      "(+C configs)"),
        ("nic.inceptionn", "payload"): (KNOB, "timing mode: sizes from the Table III "
                                              "histogram, no values carried"),
    },
    "smartnic": {
        ("host.cpu", "comm_cores"): (INPUT, "§III: 2 of 28 cores for communication"),
        ("host.cpu", "stack.send_rate"): (FITTED, "Fig. 2a naive: exposed all-reduce 51 % of "
                                                  "the iteration: 34.6 Gb/s (nodes.yaml shows "
                                                  "the arithmetic); equal to recv_rate, an "
                                                  "assumption"),
        ("host.cpu", "stack.recv_rate"): (ASSUMED, "equal to send_rate (no published split)"),
        ("host.cpu", "stack.sum_bandwidth"): (ASSUMED, "one core's DRAM bandwidth by Little's "
                                                       "law: 16 L2 misses in flight (Skylake's "
                                                       "superqueue) x 64 B / 80 ns (`mem`'s "
                                                       "latency, a typical server DDR4 figure) "
                                                       "= 12.8 GB/s (nodes.yaml cites both)"),
        ("host.cpu", "stack.irq_share"): (FITTED, "Fig. 2a's unmasked backward +11 % "
                                                  "(overlapped vs naive, batch 1792): 0.062 "
                                                  "of the receive work on the compute cores "
                                                  "beside the 26/28 core split (nodes.yaml "
                                                  "shows the arithmetic)"),
        ("host.cpu", "stack.sum_cached_bandwidth"): (FITTED, "issue 23's calibration case, "
                                                             "Fig. 4a batch 448 exposed "
                                                             "all-reduce -37 %: 37 GB/s "
                                                             "(nodes.yaml shows the "
                                                             "arithmetic)"),
        ("host.cpu", "stack.cache"): (PUBLIC, "Xeon Platinum 8280: 38.5 MB last-level cache "
                                              "(Intel ARK)"),
        **STACK_COPIES,
        ("memory", "bandwidth"): (PUBLIC, "Xeon Platinum 8280: 6 channels DDR4-2933 (Intel "
                                          "ARK): 140.8 GB/s"),
        ("memory", "size"): (ASSUMED, "192 GiB, a common fit for 6 channels; does not affect "
                                      "timing"),
        ("pcie.link", "lanes"): (PUBLIC, "FPGA: §V-A Gen3 x8; the 100 GbE NIC: x16 (100 Gb/s "
                                         "needs more than Gen3 x8)"),
        ("nic.basic", "rate"): (INPUT, "§III: 100 Gbps Ethernet"),
        ("nic.basic", "mtu"): (ASSUMED, "9000 B jumbo frames, the usual MPI setting on "
                                        "100 GbE (not stated)"),
        ("ethernet.link", "rate"): (INPUT, "§III 100 Gb/s (baseline), §V-A 40 Gb/s (FPGA)"),
        ("ethernet.switch", "forwarding"): (ASSUMED, "store and forward"),
        ("ethernet.switch", "overflow"): (ASSUMED, "pause (lossless)"),
        ("fpga.allreduce", "ring_size"): (INPUT, "the ring of §IV-A over the 6 nodes"),
        ("fpga.allreduce", "compression"): (INPUT, "§IV-B: BFP16 or none"),
        ("fpga.allreduce", "functional"): (KNOB, "timing only (no values carried)"),
        ("fpga.allreduce", "order"): (ASSUMED, "interleaved input/receive order "
                                               "(ip/fpga_allreduce/README.md)"),
        ("workload.training", "model"): (INPUT, "§III, §V-B: 20-layer MLP of 2048 x 2048"),
        ("workload.training", "batch"): (INPUT, "§V-B 448; §III, Fig. 2a 1792"),
        ("workload.training", "algorithm"): (INPUT, "§III MPI ring; §IV the smart NIC's ring"),
        ("workload.training", "policy"): (INPUT, "§III naive (after backward) and overlapped; "
                                                 "Fig. 3b layer-wise"),
    },
}


def norm(v):
    v = str(v).strip().strip('"').lower()
    return {"true": "true", "false": "false"}.get(v, v)


def classify(paper, ref, sec, k, v):
    """(kind, source) of value v of param k of section sec, or None when unclassified."""
    if (sec, k) in LEDGER[paper]:
        return LEDGER[paper][(sec, k)]
    if (sec, k) in COMMON:
        return COMMON[(sec, k)]
    d = ref.get((sec, k))
    if d is not None and norm(d[0]) == norm(v):
        return ("default", d[1])
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=None)
    ap.add_argument("--check", action="store_true")
    a = ap.parse_args()
    ref = reference()
    missing = []
    with tempfile.TemporaryDirectory() as tmp:
        for paper in PAPERS:
            seen = entries(a.build, paper, tmp)
            rows = []
            for (sec, k), vals in sorted(seen.items()):
                if sec == "simulation" and k == "max_time":
                    continue  # the zero-length run's own setting
                for v, cfgs in sorted(vals.items()):
                    if v in ("None", ""):
                        continue
                    c = classify(paper, ref, sec, k, v)
                    if c is None:
                        missing.append(f"{paper}: {sec} {k} = {v} ({', '.join(sorted(set(cfgs))[:3])})")
                        continue
                    rows.append((sec, k, v, c[0], c[1]))
            if a.check:
                continue
            kinds = {}
            for r in rows:
                kinds[r[3]] = kinds.get(r[3], 0) + 1
            L = [f"## Assumptions ledger: configs/papers/{paper}", "",
                 "Regenerate: `/usr/bin/python3 tools/gen_ledger.py` (expands every experiment "
                 "config of the folder; a value it cannot classify fails it, and the "
                 "`tools.ledger` test). Every param of every block the configs build, once per "
                 "distinct value: " + ", ".join(f"{n} {k}" for k, n in sorted(kinds.items())) +
                 ". A default's source is its description (docs/ip-reference.md).", "",
                 "| block type / section | param | value | kind | source |", "|---|---|---|---|---|"]
            for sec, k, v, kind, src in rows:
                if kind == "default" and "node_id" in k:
                    continue
                L.append(f"| {sec} | `{k}` | `{v}` | {kind} | {src.replace('|', '/')} |")
            L.append("")
            replace_section(f"ledger-{paper}", "\n".join(L))
            print(f"docs/validation.md: section ledger-{paper} written", file=sys.stderr)
    if missing:
        sys.exit("values the ledger does not classify (add them to tools/gen_ledger.py):\n  " +
                 "\n  ".join(missing))


if __name__ == "__main__":
    main()
