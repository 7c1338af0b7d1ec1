#!/usr/bin/env python3
"""Writes Chakra execution traces (one PREFIX.<rank>.et per rank) for trainvp's tests.

The message classes come from workloads/chakra/et_def.proto (trainvp's subset of MLCommons
Chakra's schema, same field numbers), compiled by Debian's protoc into a scratch folder at run
time; the framing (each message prefixed by its length as a varint32, a GlobalMetadata first)
is written here by hand, as Chakra's src/third_party/utils/protolib.py encodeMessage does.

    tools/chakra_writer.py WORKLOAD PREFIX [--ranks N] [--yaml OPS.yaml]

WORKLOAD: dp (data parallel, bucketed all-reduce), tp (tensor parallel: all-gather and
reduce-scatter), pp (pipeline stages: sends and receives), moe (an MoE layer: all-to-all),
tp_dp (tensor x data parallel over process groups), or bad:NAME (a malformed trace for
tests/configs/bad; see bad() below).  --yaml also writes the same workload as trainvp op lists
(ops_yaml: every node written out, collectives expanded here from their algorithms over their
process groups; every workload).
Needs python3-protobuf and protoc (scripts/setup.sh installs both).
"""
import argparse
import atexit
import importlib
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
PROTO_DIR = os.path.join(HERE, "..", "workloads", "chakra")


def load_schema():
    out = tempfile.mkdtemp(prefix="trainvp_chakra_")
    atexit.register(shutil.rmtree, out, True)  # the generated module is imported by then
    subprocess.run(["protoc", f"--python_out={out}", f"-I{PROTO_DIR}", "et_def.proto"], check=True)
    sys.path.insert(0, out)
    return importlib.import_module("et_def_pb2")


pb = load_schema()

# Node types and collective types, as the schema numbers them.
COMP, MEM_LOAD, MEM_STORE = pb.COMP_NODE, pb.MEM_LOAD_NODE, pb.MEM_STORE_NODE
SEND, RECV, COLL = pb.COMM_SEND_NODE, pb.COMM_RECV_NODE, pb.COMM_COLL_NODE
ALL_REDUCE, ALL_GATHER, REDUCE_SCATTER = pb.ALL_REDUCE, pb.ALL_GATHER, pb.REDUCE_SCATTER
ALL_TO_ALL, BROADCAST = pb.ALL_TO_ALL, pb.BROADCAST


def varint32(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(0x80 | b)
        else:
            out.append(b)
            return bytes(out)


def frame(msg):
    body = msg.SerializeToString()
    return varint32(len(body)) + body


class trace:
    """One rank's nodes; ids count from 0 in the order they are added."""

    def __init__(self, groups=None):
        self.meta = pb.GlobalMetadata(version="0.0.4")
        for name, ranks in (groups or {}).items():
            a = self.meta.attr.add(name="pg_ranks." + name)
            a.int64_list.values.extend(ranks)
        self.nodes = []

    def node(self, name, type, deps=(), ctrl=(), duration=0, **attrs):
        n = pb.Node(id=len(self.nodes), name=name, type=type, duration_micros=duration)
        n.data_deps.extend(deps)
        n.ctrl_deps.extend(ctrl)
        for k, v in attrs.items():
            a = n.attr.add(name=k)
            if k in ("comm_src", "comm_dst", "comm_tag", "root"):
                a.int32_val = v
            elif k == "tensor_size":
                a.uint64_val = v
            elif k == "is_cpu_op":
                a.bool_val = v
            elif k == "pg_name":
                a.string_val = v
            else:
                a.int64_val = int(v)
        self.nodes.append(n)
        return n.id

    def comp(self, name, deps=(), flops=0, bytes=0, duration=0):
        attrs = {"is_cpu_op": True}
        if not duration:
            attrs.update(num_ops=flops, tensor_size=bytes)
        return self.node(name, COMP, deps, duration=duration, **attrs)

    def coll(self, name, kind, size, deps=(), pg=None, **extra):
        attrs = dict(comm_type=kind, comm_size=size, **extra)
        if pg:
            attrs["pg_name"] = pg
        return self.node(name, COLL, deps, **attrs)

    def data(self):
        return frame(self.meta) + b"".join(frame(n) for n in self.nodes)


# Sizes of the test workloads: small enough for a unit test, large enough that the network
# matters (a 4 MB all-reduce over 10 GbE is ~5 ms).
MB = 1 << 20


def dp(ranks):
    """Data parallel: 4 layers forward, backward in reverse, gradients in 2 buckets of 2 layers,
    each bucket's all-reduce as soon as its layers' backward is done (overlapping the rest)."""
    out = []
    for r in range(ranks):
        t = trace()
        prev = ()
        for l in range(4):
            prev = (t.comp(f"fwd{l}", prev, flops=2e9, bytes=8 * MB),)
        bucket, reduces = [], []
        for l in reversed(range(4)):
            prev = (t.comp(f"bwd{l}", prev, flops=4e9, bytes=16 * MB),)
            bucket.append(prev[0])
            if len(bucket) == 2:
                reduces.append(t.coll(f"allreduce_b{len(reduces)}", ALL_REDUCE, 4 * MB, bucket))
                bucket = []
        t.comp("update", reduces, duration=500)
        out.append(t)
    return out


def tp(ranks):
    """Tensor parallel (Megatron-style MLP, 2 layers): each layer's activations all-gathered
    before its compute and reduce-scattered after it."""
    out = []
    for r in range(ranks):
        t = trace()
        prev = ()
        for l in range(2):
            g = t.coll(f"ag{l}", ALL_GATHER, 2 * MB, prev)
            c = t.comp(f"mlp{l}", (g,), flops=3e9, bytes=12 * MB)
            prev = (t.coll(f"rs{l}", REDUCE_SCATTER, 2 * MB, (c,)),)
        out.append(t)
    return out


def pp(ranks, micro=3):
    """Pipeline stages (GPipe order): each micro-batch's activations forward stage to stage,
    then the gradients back.  Tags: 2 x micro-batch (forward), + 1 (backward)."""
    out = []
    act = 1 * MB
    for s in range(ranks):
        t = trace()
        prev = ()
        for m in range(micro):
            deps = list(prev)
            if s > 0:
                deps.append(t.node(f"recv_f{m}", RECV, comm_src=s - 1, comm_size=act, comm_tag=2 * m))
            f = t.comp(f"fwd{m}", deps, flops=1e9, bytes=4 * MB)
            prev = (f,)
            if s < ranks - 1:
                t.node(f"send_f{m}", SEND, (f,), comm_dst=s + 1, comm_size=act, comm_tag=2 * m)
        for m in range(micro):
            deps = list(prev)
            if s < ranks - 1:
                deps.append(t.node(f"recv_b{m}", RECV, comm_src=s + 1, comm_size=act,
                                   comm_tag=2 * m + 1))
            b = t.comp(f"bwd{m}", deps, flops=2e9, bytes=8 * MB)
            prev = (b,)
            if s > 0:
                t.node(f"send_b{m}", SEND, (b,), comm_dst=s - 1, comm_size=act, comm_tag=2 * m + 1)
        out.append(t)
    return out


def moe(ranks):
    """An MoE layer: gate, tokens dispatched to the experts (all-to-all), the expert's weights
    loaded and its FFN, the outputs combined back (all-to-all)."""
    out = []
    tokens = 256 * 1024 * ranks  # bytes per rank's send buffer: a multiple of 4 x ranks
    for r in range(ranks):
        t = trace()
        g = t.comp("gate", (), flops=5e8, bytes=2 * MB)
        d = t.coll("dispatch", ALL_TO_ALL, tokens, (g,))
        w = t.node("load_expert", MEM_LOAD, (), tensor_size=8 * MB, is_cpu_op=True)
        e = t.comp("expert_ffn", (d, w), flops=4e9, bytes=16 * MB)
        t.coll("combine", ALL_TO_ALL, tokens, (e,))
        out.append(t)
    return out


def tp_dp(ranks, tp_size=2):
    """Tensor x data parallel (Megatron placement, rank = dp_index x tp + tp_index): per layer
    an all-gather and a reduce-scatter in the rank's tensor-parallel group, then the gradients
    all-reduced in its data-parallel group."""
    dp_size = ranks // tp_size
    groups = {}
    for d in range(dp_size):
        groups[f"tp{d}"] = [d * tp_size + i for i in range(tp_size)]
    for i in range(tp_size):
        groups[f"dp{i}"] = [d * tp_size + i for d in range(dp_size)]
    out = []
    for r in range(ranks):
        t = trace(groups)
        tpg, dpg = f"tp{r // tp_size}", f"dp{r % tp_size}"
        prev = ()
        for l in range(3):
            g = t.coll(f"fwd_ag{l}", ALL_GATHER, 2 * MB, prev, pg=tpg)
            prev = (t.comp(f"fwd{l}", (g,), flops=2e9, bytes=8 * MB),)
        for l in reversed(range(3)):
            b = t.comp(f"bwd{l}", prev, flops=4e9, bytes=16 * MB)
            prev = (t.coll(f"bwd_rs{l}", REDUCE_SCATTER, 2 * MB, (b,), pg=tpg),)
        a = t.coll("grad_allreduce", ALL_REDUCE, 8 * MB, prev, pg=dpg)
        t.comp("update", (a,), duration=300)
        out.append(t)
    return out


def partition(n, parts):
    """Elements [0, n) in `parts` chunks, the first n % parts one larger (schedule.h)."""
    out, off = [], 0
    for i in range(parts):
        c = n // parts + (1 if i < n % parts else 0)
        out.append((off, c))
        off += c
    return out


def ring_rounds(kind, N, r, n):
    """Rank r's rounds of a ring collective, written out from the algorithm (Patarasuk & Yuan's
    ring; ring.cpp, ring_gather.cpp): per round (sends, receives), a send (peer, offset, count),
    a receive (peer, offset, count, reduce?).  The tag of a pair's k-th message is k."""
    blocks = partition(n, N)
    nxt, prv = (r + 1) % N, (r - 1) % N
    phases = {"all_reduce": [(True, 0), (False, N - 1)], "reduce_scatter": [(True, 0)],
              "all_gather": [(False, N - 1)]}[kind]
    rounds = []
    for reduce, shift in phases:
        if kind == "reduce_scatter":
            shift = 1
        for s in range(1, N):
            sent = blocks[(r - s + 1 - shift) % N]
            got = blocks[(prv - s + 1 - shift) % N]
            rounds.append(([(nxt,) + sent], [(prv,) + got + (reduce,)]))
    return rounds


def direct_all_to_all_rounds(N, r, n):
    """One round: block q of the send half [0, n) to rank q, rank q's block into slot q of the
    receive half [n, 2n) (all_to_all.cpp's direct exchange)."""
    c = n // N
    sends = [(q, q * c, c) for q in range(N) if q != r]
    recvs = [(q, n + q * c, c, False) for q in range(N) if q != r]
    return [(sends, recvs)]


class op_writer:
    """One rank's op list, written as trainvp's YAML ops (workloads/ops/README.md)."""

    def __init__(self):
        self.lines = []
        self.count = 0

    def add(self, text, after=()):
        name = f"o{self.count}"
        self.count += 1
        dep = f", after: [{', '.join(sorted(set(after), key=lambda x: int(x[1:])))}]" if after else ""
        self.lines.append(f"      - {{{text}, name: {name}{dep}}}")
        return name

    def collective(self, rounds, peer_node, tag_base, start_after):
        """The rounds as ops, as workload.chakra runs a schedule on hosts (workloads/iteration
        README, "Expansion rules"): sends first, then receives (a reduce's sum right after its
        receive); every send and receive waits for what finished the previous round, a send
        also for the op that last wrote its range, a sum for its receive and that writer.
        Returns the ops that nothing in the collective waits for."""
        barrier = list(start_after)
        writer = {}  # (offset, count) -> the op that last wrote it (ranges never overlap here)
        tags = {}
        for sends, recvs in rounds:
            frontier = []
            for peer, off, cnt in sends:
                if cnt == 0:
                    continue
                t = tags.get(("s", peer), 0)
                tags[("s", peer)] = t + 1
                deps = barrier + ([writer[(off, cnt)]] if (off, cnt) in writer else [])
                frontier.append(self.add(
                    f"op: send, to: {peer_node[peer]}, bytes: {4 * cnt}B, tag: {tag_base + t}, "
                    f"address: {hex(4 * off)}, unit: comm", deps))
            for peer, off, cnt, reduce in recvs:
                if cnt == 0:
                    continue
                t = tags.get(("r", peer), 0)
                tags[("r", peer)] = t + 1
                rv = self.add(f"op: recv, from: {peer_node[peer]}, bytes: {4 * cnt}B, "
                              f"tag: {tag_base + t}, address: {hex(4 * off)}, unit: comm", barrier)
                if not reduce:
                    writer[(off, cnt)] = rv
                    frontier.append(rv)
                    continue
                deps = [rv] + ([writer[(off, cnt)]] if (off, cnt) in writer else [])
                sm = self.add(f"op: sum, bytes: {4 * cnt}B, inputs: 2, address: {hex(4 * off)}",
                              deps)
                writer[(off, cnt)] = sm
                frontier.append(sm)
            barrier = frontier
        return barrier


def max_tag(rounds):
    """The largest tag of the collective on any rank = messages per pair - 1 (every rank of
    these schedules sends its peers the same number of messages)."""
    per = {}
    for sends, _ in rounds:
        for peer, _, cnt in sends:
            per[peer] = per.get(peer, 0) + 1
    return max(per.values()) - 1


def ops_yaml(traces_, hosts, include=None, description=None):
    """The traces written as trainvp op lists, node for node, in each trace's order (they are
    written in dependency order): compute by FLOPs and bytes on the cpu, delays for durations, a
    memory load as a 0-FLOP pass over its bytes, sends and receives on the comm unit, and each
    collective expanded from its ring or direct algorithm (ring_rounds,
    direct_all_to_all_rounds) with the tags workload.chakra gives it (2^31 + group x 2^24 +
    the group's earlier collectives' tags), over the world or the node's process group."""
    lines = ["# Written by tools/chakra_writer.py WORKLOAD PREFIX --yaml: the trace's nodes as",
             "# trainvp ops, collectives expanded by the writer from their algorithms (ring",
             "# all-reduce, ring all-gather / reduce-scatter, direct all-to-all)."]
    if include:
        lines.append(f"include: {include}")
    if description:
        lines.append(f"description: {description}")
    lines += ["workload:", "  ops:"]
    N = len(traces_)
    # Process groups as workload.chakra numbers them (trace_ops.cpp): 0 the world, then each
    # named group in name order (a member list seen before keeps its index); a collective's
    # tags are 2^31 + group x 2^24 + the tags of the group's earlier collectives.
    named = {a.name[len("pg_ranks."):]: list(a.int64_list.values)
             for a in traces_[0].meta.attr if a.name.startswith("pg_ranks.")}
    groups = [list(range(N))]
    for name in sorted(named):
        if named[name] not in groups:
            groups.append(named[name])
    kinds = {ALL_REDUCE: "all_reduce", ALL_GATHER: "all_gather", REDUCE_SCATTER: "reduce_scatter",
             ALL_TO_ALL: "all_to_all"}
    for r, t in enumerate(traces_):
        w = op_writer()
        done = {}
        tag_next = [0] * len(groups)
        for n in t.nodes:
            a = {x.name: x for x in n.attr}
            after = [x for d in list(n.ctrl_deps) + list(n.data_deps) for x in done[d]]
            if n.type in (COMP, MEM_LOAD) and n.duration_micros:
                done[n.id] = [w.add(f"op: delay, time: {n.duration_micros}us, unit: cpu, "
                                    f"phase: compute", after)]
            elif n.type == COMP:
                done[n.id] = [w.add(f"op: compute, flops: {a['num_ops'].int64_val}, "
                                    f"bytes: {a['tensor_size'].uint64_val}B", after)]
            elif n.type == MEM_LOAD:
                done[n.id] = [w.add(f"op: compute, flops: 0, bytes: {a['tensor_size'].uint64_val}B",
                                    after)]
            elif n.type == SEND:
                done[n.id] = [w.add(f"op: send, to: {a['comm_dst'].int32_val}, "
                                    f"bytes: {a['comm_size'].int64_val}B, "
                                    f"tag: {a['comm_tag'].int32_val}, unit: comm", after)]
            elif n.type == RECV:
                done[n.id] = [w.add(f"op: recv, from: {a['comm_src'].int32_val}, "
                                    f"bytes: {a['comm_size'].int64_val}B, "
                                    f"tag: {a['comm_tag'].int32_val}, unit: comm", after)]
            elif n.type == COLL:
                g = groups.index(named[a["pg_name"].string_val]) if "pg_name" in a else 0
                members = groups[g]
                me, size = members.index(r), len(members)
                kind = kinds[a["comm_type"].int64_val]
                elems = a["comm_size"].int64_val // 4
                rounds = (direct_all_to_all_rounds(size, me, elems) if kind == "all_to_all"
                          else ring_rounds(kind, size, me, elems))
                done[n.id] = w.collective(rounds, members, (1 << 31) + (g << 24) + tag_next[g],
                                          after)
                tag_next[g] += max_tag(rounds) + 1
            else:
                raise SystemExit(f"ops_yaml: node {n.id} has no op-list form here")
        lines.append(f"    {hosts.format(r)}:")
        lines += w.lines
    return "\n".join(lines) + "\n"


def bad(name, ranks):
    """Malformed traces for tests/configs/bad: rank 0's file is broken, the others are fine."""
    ts = [trace() for _ in range(ranks)]
    for t in ts:
        t.comp("ok", (), flops=1e6, bytes=1024)
    t = ts[0]
    raw = None
    if name == "unknown_type":
        t.nodes[0].type = 12
    elif name == "dangling_dep":
        t.comp("late", (7,), flops=1)
    elif name == "cycle":
        t.comp("a", (2,), flops=1)
        t.comp("b", (1,), flops=1)
    elif name == "missing_num_ops":
        t.node("c", COMP, (0,), is_cpu_op=True)
    elif name == "coll_size_not_fp32":
        for u in ts:
            u.coll("ar", ALL_REDUCE, 1001, (0,))
    elif name == "coll_gather":
        for u in ts:
            u.coll("g", pb.GATHER, 1024, (0,))
    elif name == "send_to_self":
        t.node("s", SEND, (0,), comm_dst=0, comm_size=64)
    elif name == "send_no_recv":
        t.node("s", SEND, (0,), comm_dst=1, comm_size=64, comm_tag=3)
    elif name == "recv_size_mismatch":
        t.node("s", SEND, (0,), comm_dst=1, comm_size=64, comm_tag=3)
        ts[1].node("r", RECV, (0,), comm_src=0, comm_size=128, comm_tag=3)
    elif name == "duplicate_id":
        t.comp("again", (), flops=1)
        t.nodes[1].id = 0
    elif name == "comm_size_string":
        t.node("s", SEND, (0,), comm_dst=1)
        t.nodes[1].attr.add(name="comm_size", string_val="64")
    elif name == "unknown_pg":
        t.coll("ar", ALL_REDUCE, 64, (0,), pg="tp9")
    elif name == "coll_mismatch":
        for i, u in enumerate(ts):
            u.coll("ar", ALL_REDUCE, 1024 if i == 0 else 2048, (0,))
    elif name == "bad_varint":
        raw = t.data() + b"\xff\xff\xff\xff\xff\x01"
    elif name == "truncated":
        raw = t.data() + varint32(40) + b"\x08\x01"
    elif name == "not_a_message":
        raw = frame(t.meta) + varint32(3) + b"\x0f\xff\xff"
    elif name == "empty":
        raw = b""
    else:
        raise SystemExit(f"unknown bad trace '{name}'")
    datas = [u.data() for u in ts]
    if raw is not None:
        datas[0] = raw
    return datas


WORKLOADS = {"dp": dp, "tp": tp, "pp": pp, "moe": moe, "tp_dp": tp_dp}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("workload")
    ap.add_argument("prefix")
    ap.add_argument("--ranks", type=int, default=4)
    ap.add_argument("--yaml", help="also write the workload as trainvp op lists")
    ap.add_argument("--hosts", default="node[{}].host", help="host path of rank {} in --yaml")
    ap.add_argument("--include", help="the platform file the --yaml config includes")
    ap.add_argument("--description", help="the --yaml config's description")
    a = ap.parse_args()
    os.makedirs(os.path.dirname(os.path.abspath(a.prefix)), exist_ok=True)
    if a.workload.startswith("bad:"):
        datas = bad(a.workload[4:], a.ranks)
    else:
        ts = WORKLOADS[a.workload](a.ranks)
        datas = [t.data() for t in ts]
        if a.yaml:
            with open(a.yaml, "w") as f:
                f.write(ops_yaml(ts, a.hosts, a.include, a.description))
    for r, d in enumerate(datas):
        with open(f"{a.prefix}.{r}.et", "wb") as f:
            f.write(d)


if __name__ == "__main__":
    main()
