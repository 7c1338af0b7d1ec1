#!/usr/bin/env python3
"""tools/plot_sweep.py draws a tiny sweep.csv (tests/tools/data/tiny_sweep) as PNG and SVG, and
rejects a misspelt statistic with a did-you-mean.  Exits 77 (ctest: skipped) when Debian's
python3-matplotlib is missing."""
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TOOL = os.path.join(HERE, "..", "..", "tools", "plot_sweep.py")
CSV = os.path.join(HERE, "data", "tiny_sweep", "sweep.csv")

try:
    import matplotlib  # noqa: F401
except ImportError:
    print("python3-matplotlib is not installed: skipped")
    sys.exit(77)


def run(*args):
    return subprocess.run([sys.executable, TOOL, CSV] + list(args), capture_output=True,
                          text=True)


def check(cond, what):
    if not cond:
        print("FAILED: " + what)
        sys.exit(1)


with tempfile.TemporaryDirectory() as d:
    base = os.path.join(d, "plot")
    r = run("--stat", "host.cpu.completion_time.max", "--x", "components.node.count",
            "--series", "node[*].link.rate", "--out", base)
    check(r.returncode == 0, "plot with a series: " + r.stderr)
    for ext in (".png", ".svg"):
        check(os.path.getsize(base + ext) > 1000, "non-empty " + ext)
    with open(base + ".png", "rb") as f:
        check(f.read(8) == b"\x89PNG\r\n\x1a\n", "a PNG file")
    with open(base + ".svg") as f:
        svg = f.read()
    check(svg.lstrip().startswith("<?xml") and "<svg" in svg, "an SVG file")
    # The y label's unit comes from a point's stats.json.
    sys.path.insert(0, os.path.dirname(TOOL))
    import plot_sweep
    rows = [{"point": "p000_2_2_10Gb-s"}]
    check(plot_sweep.stat_unit(CSV, rows, "host.cpu.completion_time.max") == "ns", "unit")
    check(plot_sweep.numeric(["10Gb/s", "40Gb/s"]) == ([10.0, 40.0], "Gb/s"), "numeric")
    check(plot_sweep.numeric(["ring", "tree"]) is None, "categorical")
    r = run("--stat", "sim_time_ps", "--x", "node[*].link.rate",
            "--where", "components.node.count=2", "--out", base + "2")
    check(r.returncode == 0, "plot with --where: " + r.stderr)
    r = run("--stat", "host.cpu.completion_tme.max", "--x", "components.node.count")
    check(r.returncode == 2, "misspelt stat exits 2")
    check("did you mean 'host.cpu.completion_time.max'?" in r.stderr, r.stderr)
    r = run("--stat", "sim_time_ps", "--x", "components.node.count")
    check(r.returncode == 2 and "'node[*].link.rate' varies" in r.stderr, r.stderr)
    # Columns with units in the header (sweep.csv since issue 28): a stat named with or
    # without its unit, shown in a readable scale; the title from sweep.json.
    check(plot_sweep.split_unit("iteration.time [ns]") == ("iteration.time", "ns"), "split")
    check(plot_sweep.split_unit("iteration.iterations") == ("iteration.iterations", ""), "none")
    v, u = plot_sweep.readable([630872000.0, 701000000.0], "ns")
    check(u == "ms" and abs(v[0] - 630.872) < 1e-9 and abs(v[1] - 701.0) < 1e-9, "ns as ms")
    v, u = plot_sweep.readable([1.2e9], "ns")
    check(u == "s" and abs(v[0] - 1.2) < 1e-12, "ns as s")
    v, u = plot_sweep.readable([2.5e9], "B/s")
    check(u == "GB/s" and abs(v[0] - 2.5) < 1e-12, "B/s as GB/s")
    check(plot_sweep.readable([3.0], "1") == ([3.0], "1"), "no scale")
    sweep = os.path.join(d, "s")
    os.makedirs(sweep)
    with open(os.path.join(sweep, "sweep.csv"), "w") as f:
        f.write("point,components.node.count,status,sim_time_ps,iteration.time [ns],error\n"
                "p0_2,2,finished,630872000000,630872000,\n"
                "p1_4,4,finished,701000000000,701000000,\n")
    with open(os.path.join(sweep, "sweep.json"), "w") as f:
        f.write('{"description": "ring scaling at 10 GbE"}')
    check(plot_sweep.sweep_title(os.path.join(sweep, "sweep.csv")) == "ring scaling at 10 GbE",
          "title from sweep.json")
    r = subprocess.run([sys.executable, TOOL, os.path.join(sweep, "sweep.csv"), "--stat",
                        "iteration.time", "--x", "components.node.count"],
                       capture_output=True, text=True)
    check(r.returncode == 0, "plot a column with a unit: " + r.stderr)
    check(os.path.exists(os.path.join(sweep, "plot_iteration.time_vs_components.node.count.png")),
          "clean file name: " + r.stdout)
print("ok")
