#!/usr/bin/env python3
"""Draws trainvp's house from the tree itself: docs/architecture.md.

Two graphs, both read from the sources (nothing is written by hand):
  - the folder graph: an arrow A -> B when a file in folder A includes "B/..." (the full-path
    includes of DESIGN.md's conventions make every dependency visible in the text);
  - the library graph: the CMake libraries (add_library), which folders' sources each one
    builds, and the libraries it links (target_link_libraries).

Every folder belongs to one layer (LAYERS below, lowest first).  An arrow may point to the
same layer or a lower one, never up, and the folder graph has no cycle.

  python3 tools/gen_architecture.py            # rewrites docs/architecture.md
  python3 tools/gen_architecture.py --check    # exit 1 if the file would change, an arrow
                                               # points up, or a folder has no layer
"""
import os
import re
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
OUT = os.path.join(ROOT, "docs", "architecture.md")

# Lowest first.  (name, what lives there, folders: a folder also covers its sub-folders unless a
# deeper folder is listed itself).
LAYERS = [
    ("core", "the config ground, pure C++: units, the config tree, declared params, errors",
     ["core"]),
    ("traces", "statistics, timeline, VCD levels, atomic output files", ["traces"]),
    ("models", "pure C++ models: schedules, codecs, the zoo, op lists, the NoC's network, the "
     "flow level's engine and topologies",
     ["workloads/collectives", "workloads/models", "workloads/ops", "workloads/iteration",
      "workloads/chakra",
      "ip/codecs", "noc", "fabric"]),
    ("kit", "the block kit (SystemC): ip_module, ip_type, registry, wake queue, resources",
     ["kit"]),
    ("drivers", "workload sections (registered by name) and the sinks blocks implement to be "
     "handed their work (workload_sink, chiplet_training_sink), after binding",
     ["workloads/drivers"]),
    ("blocks", "IP blocks and the NoC block, registered by type name",
     ["ip", "noc/interposer"]),
    ("platform", "assembly: loader, binder, plugins, the simulation driver", ["platform"]),
    ("command", "the trainvp command line", ["sc_main"]),
]

SOURCE_DIRS = ["core", "traces", "workloads", "kit", "ip", "noc", "fabric", "platform",
               "sc_main"]
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def folder_of(path):
    """The most specific listed folder that holds path (a repo-relative file or folder)."""
    best = None
    for _, _, folders in LAYERS:
        for f in folders:
            if path == f or path.startswith(f + "/"):
                if best is None or len(f) > len(best):
                    best = f
    return best


def layer_of(folder):
    for i, (_, _, folders) in enumerate(LAYERS):
        if folder in folders:
            return i
    return None


def area(path):
    """The graph's node for a file: its own folder (ip/nic, workloads/ops, core)."""
    d = os.path.dirname(path)
    return d if d else path


def sources():
    for top in SOURCE_DIRS:
        for dirpath, dirnames, filenames in os.walk(os.path.join(ROOT, top)):
            dirnames[:] = sorted(d for d in dirnames if d != "zoo")
            for fn in sorted(filenames):
                if fn.endswith((".h", ".cpp", ".h.in")):
                    full = os.path.join(dirpath, fn)
                    yield os.path.relpath(full, ROOT).replace(os.sep, "/"), full


def folder_graph():
    edges = {}
    nodes = set()
    for rel, full in sources():
        a = area(rel)
        nodes.add(a)
        with open(full, encoding="utf-8") as fh:
            text = fh.read()
        for inc in INCLUDE.findall(text):
            if "/" not in inc:
                continue
            b = area(inc)
            if b == a or not os.path.isdir(os.path.join(ROOT, b)):
                continue  # its own folder, or a generated header's folder (kit/version.h)
            edges.setdefault(a, {}).setdefault(b, []).append(rel)
    return nodes, edges


def cmake_libraries():
    """{library: (folders of its sources, [linked trainvp libraries])} from the CMakeLists."""
    libs = {}
    links = {}
    for dirpath, dirnames, filenames in os.walk(ROOT):
        rel_dir = os.path.relpath(dirpath, ROOT).replace(os.sep, "/")
        top = rel_dir.split("/")[0]
        if top in ("build", ".git", "tests", "bench", "examples") or top.startswith("build"):
            dirnames[:] = []
            continue
        dirnames.sort()
        if "CMakeLists.txt" not in filenames:
            continue
        with open(os.path.join(dirpath, "CMakeLists.txt"), encoding="utf-8") as fh:
            text = re.sub(r"#[^\n]*", "", fh.read())
        for cmd, body in re.findall(r"\b(add_library|target_sources|target_link_libraries)\s*\(([^)]*)\)",
                                    text):
            words = body.split()
            if not words:
                continue
            name = words[0]
            if not name.startswith("trainvp_"):
                continue
            if cmd in ("add_library", "target_sources"):
                folders = libs.setdefault(name, set())
                for w in words[1:]:
                    if w.endswith(".cpp"):
                        p = os.path.normpath(os.path.join(rel_dir, w)).replace(os.sep, "/")
                        folders.add(area(p))
            else:
                for w in words[1:]:
                    if w.startswith("trainvp_") and w != name:
                        links.setdefault(name, set()).add(w)
    return {n: (sorted(f), sorted(links.get(n, ()))) for n, f in libs.items() if f}


def library_layer(folders):
    layers = [layer_of(folder_of(f)) for f in folders]
    return max(l for l in layers if l is not None) if any(l is not None for l in layers) else None


def find_cycle(nodes, edges):
    state = {}
    stack = []

    def visit(n):
        state[n] = 1
        stack.append(n)
        for m in sorted(edges.get(n, {})):
            if state.get(m) == 1:
                return stack[stack.index(m):] + [m]
            if state.get(m) is None:
                c = visit(m)
                if c:
                    return c
        stack.pop()
        state[n] = 2
        return None

    for n in sorted(nodes):
        if state.get(n) is None:
            c = visit(n)
            if c:
                return c
    return None


def render():
    """The document and the list of problems (upward arrows, cycles, folders with no layer)."""
    nodes, edges = folder_graph()
    problems = []
    layer_folders = {i: [] for i in range(len(LAYERS))}
    for n in sorted(nodes):
        f = folder_of(n)
        li = layer_of(f) if f else None
        if li is None:
            problems.append(f"{n}: no layer (add it to LAYERS in tools/gen_architecture.py)")
            continue
        layer_folders[li].append(n)
    up = []
    for a in sorted(edges):
        for b in sorted(edges[a]):
            la, lb = layer_of(folder_of(a) or ""), layer_of(folder_of(b) or "")
            if la is not None and lb is not None and lb > la:
                up.append((a, b, edges[a][b][0]))
                problems.append(f"{a} -> {b} points up ({LAYERS[la][0]} -> {LAYERS[lb][0]}), "
                                f"e.g. {edges[a][b][0]}")
    cycle = find_cycle(nodes, edges)
    if cycle:
        problems.append("folder cycle: " + " -> ".join(cycle))

    libs = cmake_libraries()
    lib_up = []
    for name in sorted(libs):
        la = library_layer(libs[name][0])
        for dep in libs[name][1]:
            if dep in libs:
                lb = library_layer(libs[dep][0])
                if la is not None and lb is not None and lb > la:
                    lib_up.append((name, dep))
                    problems.append(f"library {name} links {dep}, a higher layer")

    out = []
    w = out.append
    w("# Architecture: the house")
    w("")
    w("Generated by `python3 tools/gen_architecture.py` from the sources' `#include` lines and the")
    w("CMakeLists; the test `tools.architecture` fails when this file is stale, when an arrow points")
    w("from a lower layer up, or when the folders form a cycle. Do not edit by hand.")
    w("")
    w("Data flows one way: workload → node driver → IP/NoC → stats and traces. The layers, lowest")
    w("first; a folder may use its own layer and the ones below it:")
    w("")
    w("| layer | what lives there | folders |")
    w("|---|---|---|")
    for i, (name, what, _) in enumerate(LAYERS):
        fs = ", ".join(f"`{f}`" for f in layer_folders[i]) or "(none yet)"
        w(f"| {i} {name} | {what} | {fs} |")
    w("")
    w("## Folder graph")
    w("")
    w("An arrow A → B: a file in A includes a header of B (the count of files that do).")
    w("Arrows that point up: " + (str(len(up)) if up else "none") + ".")
    w("")
    w("```mermaid")
    w("flowchart BT")
    ids = {n: "n" + re.sub(r"[^a-z0-9]", "_", n) for n in sorted(nodes)}
    for i, (name, _, _) in enumerate(LAYERS):
        if not layer_folders[i]:
            continue
        w(f"  subgraph L{i}[\"{i} {name}\"]")
        for n in layer_folders[i]:
            w(f"    {ids[n]}[\"{n}\"]")
        w("  end")
    for a in sorted(edges):
        for b in sorted(edges[a]):
            if a in ids and b in ids:
                w(f"  {ids[a]} --> {ids[b]}")
    w("```")
    w("")
    w("| folder | layer | uses |")
    w("|---|---|---|")
    for n in sorted(nodes):
        f = folder_of(n)
        li = layer_of(f) if f else None
        lname = LAYERS[li][0] if li is not None else "?"
        uses = ", ".join(f"{b} ({len(edges[n][b])})" for b in sorted(edges.get(n, {})))
        w(f"| `{n}` | {lname} | {uses or '-'} |")
    w("")
    w("## Library graph")
    w("")
    w("Each CMake library, the folders its sources are in, and the trainvp libraries it links.")
    w("Links that point up: " + (str(len(lib_up)) if lib_up else "none") + ".")
    w("")
    w("| library | layer | sources in | links |")
    w("|---|---|---|---|")
    for name in sorted(libs, key=lambda n: (library_layer(libs[n][0]) or 0, n)):
        li = library_layer(libs[name][0])
        lname = LAYERS[li][0] if li is not None else "?"
        w(f"| `{name}` | {lname} | {', '.join(libs[name][0])} | "
          f"{', '.join(libs[name][1]) or '-'} |")
    w("")
    return "\n".join(out), problems


def main():
    check = "--check" in sys.argv[1:]
    text, problems = render()
    for p in problems:
        print("architecture: " + p, file=sys.stderr)
    if check:
        try:
            with open(OUT, encoding="utf-8") as fh:
                current = fh.read()
        except OSError:
            current = None
        if current != text:
            print("architecture: docs/architecture.md is stale: run python3 "
                  "tools/gen_architecture.py", file=sys.stderr)
            return 1
        return 1 if problems else 0
    tmp = OUT + ".tmp"
    with open(tmp, "w", encoding="utf-8") as fh:
        fh.write(text)
    os.replace(tmp, OUT)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
