#!/usr/bin/env python3
"""Plots one statistic of a sweep against one swept param (and a second one as series).

Reads the sweep.csv that `trainvp sweep` (or `trainvp sweep --merge`) wrote and draws the
chosen column for the points whose status is `finished`, as PNG and SVG.  Run it with Debian's
python3 (it has python3-matplotlib):

    /usr/bin/python3 tools/plot_sweep.py out/ring_scaling/sweep.csv \\
        --stat host.cpu.completion_time.max --x components.node.count \\
        --series node[*].link.rate --where workload.training.policy=overlap_layers

Swept params that are neither --x nor --series (nor zipped with them) must be fixed with
--where, else the points of different settings would fall on one line.  Values such as `10Gb/s` or `80ns` are plotted
as numbers when every value of the param has the same unit, otherwise as categories in sweep
order.  The statistic's unit is its column's (`name [unit]`; for tables written before the
columns carried units, a point's stats.json beside sweep.csv), shown in a readable scale (ns as
ms or s, B as MB or GB).  The y axis starts at zero unless --no-zero; the title is the sweep's
description (sweep.json).  Writes BASE.png and BASE.svg (default BASE: plot_<stat>_vs_<x>
beside sweep.csv, with every character a file name should not hold replaced by `_`).
"""
import argparse
import csv
import difflib
import json
import os
import re
import sys

FIXED = ("point", "status", "sim_time_ps", "error")
UNIT = re.compile(r"^(.*) \[([^\]]+)\]$")
# Units shown in a larger scale when the values are large: (unit, factor to the base unit).
SCALES = {
    "ps": [("ps", 1e-12), ("ns", 1e-9), ("us", 1e-6), ("ms", 1e-3), ("s", 1.0)],
    "ns": [("ns", 1e-9), ("us", 1e-6), ("ms", 1e-3), ("s", 1.0)],
    "B": [("B", 1.0), ("KB", 1e3), ("MB", 1e6), ("GB", 1e9), ("TB", 1e12)],
    "B/s": [("B/s", 1.0), ("KB/s", 1e3), ("MB/s", 1e6), ("GB/s", 1e9), ("TB/s", 1e12)],
}


def split_unit(column):
    """("name", "unit") of a column written "name [unit]"; ("name", "") otherwise."""
    m = UNIT.match(column)
    return (m.group(1), m.group(2)) if m else (column, "")


def readable(values, unit):
    """(scaled values, unit) with the largest value between 1 and 1000 where the unit has
    larger scales (ns -> ms, B -> GB)."""
    scales = SCALES.get(unit)
    if not scales or not values:
        return values, unit
    base = dict(scales)[unit]
    top = max(abs(v) for v in values) * base
    name, factor = scales[0]
    for n, f in scales:
        if top >= f:
            name, factor = n, f
    return [v * base / factor for v in values], name
NUMBER = re.compile(r"^\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*([A-Za-z/%]*)\s*$")


def fail(msg):
    sys.stderr.write("plot_sweep: error: " + msg + "\n")
    sys.exit(2)


def did_you_mean(word, names):
    close = difflib.get_close_matches(word, names, n=1)
    return " (did you mean '%s'?)" % close[0] if close else ""


def numeric(values):
    """(numbers, unit) when every value is a number with one common unit, else None."""
    nums, units = [], set()
    for v in values:
        m = NUMBER.match(v)
        if not m:
            return None
        nums.append(float(m.group(1)))
        units.add(m.group(2))
    if len(units) != 1:
        return None
    return nums, units.pop()


def stat_unit(csv_path, rows, column):
    """The unit of `column` (TYPE.STAT.mean or .max) from a finished point's stats.json."""
    if column == "sim_time_ps":
        return "ps"
    m = re.match(r"^(.*)\.([^.]+)\.(mean|max)$", column)
    if not m:
        return ""
    typ, stat = m.group(1), m.group(2)
    for r in rows:
        path = os.path.join(os.path.dirname(os.path.abspath(csv_path)), r["point"], "stats.json")
        try:
            with open(path) as f:
                blocks = json.load(f)["blocks"]
        except (OSError, ValueError, KeyError):
            continue
        for b in blocks.values():
            if b.get("type") != typ:
                continue
            for name, s in b.get("stats", {}).items():
                if name.split("[")[0] == stat:
                    return s.get("unit", "")
    return ""


def sweep_title(csv_path):
    """The sweep's description from its sweep.json, else the folder's name."""
    folder = os.path.dirname(os.path.abspath(csv_path))
    try:
        with open(os.path.join(folder, "sweep.json")) as f:
            description = json.load(f).get("description", "")
        if description:
            return description
    except (OSError, ValueError, AttributeError):
        pass
    return os.path.basename(folder)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("csv", help="a sweep.csv")
    ap.add_argument("--stat", required=True, help="the column to plot (a headline stat)")
    ap.add_argument("--x", required=True, help="the swept param on the x axis")
    ap.add_argument("--series", help="a second swept param: one line per value")
    ap.add_argument("--where", action="append", default=[], metavar="PARAM=VALUE",
                    help="keep only the points with this value (repeatable)")
    ap.add_argument("--out", help="output base name (BASE.png and BASE.svg)")
    ap.add_argument("--logx", action="store_true", help="logarithmic x axis")
    ap.add_argument("--no-zero", action="store_true",
                    help="let the y axis start near the smallest value instead of at zero")
    args = ap.parse_args(argv)

    try:
        with open(args.csv, newline="") as f:
            reader = csv.DictReader(f)
            header = reader.fieldnames or []
            rows = list(reader)
    except OSError as e:
        fail("cannot read %s: %s" % (args.csv, e.strerror))
    if "status" not in header:
        fail("%s is not a sweep.csv (no status column)" % args.csv)
    swept = header[1:header.index("status")]
    columns = [c for c in header[header.index("status") + 1:] if c != "error"]
    # A statistic by its name, with or without the column's unit.
    by_name = {split_unit(c)[0]: c for c in columns}
    stats = list(by_name)
    wanted = split_unit(args.stat)[0]
    if wanted not in by_name:
        fail("no statistic '%s' in %s%s; columns: %s" %
             (args.stat, args.csv, did_you_mean(wanted, stats), ", ".join(stats)))
    column = by_name[wanted]
    for name, p in (("--x", args.x), ("--series", args.series)):
        if p is not None and p not in swept:
            fail("%s: '%s' is not a swept param%s; swept: %s" %
                 (name, p, did_you_mean(p, swept), ", ".join(swept)))
    if args.series == args.x:
        fail("--series must differ from --x")

    keep = {}
    for w in args.where:
        if "=" not in w:
            fail("--where takes PARAM=VALUE, got '%s'" % w)
        k, v = w.split("=", 1)
        if k not in swept:
            fail("--where: '%s' is not a swept param%s" % (k, did_you_mean(k, swept)))
        keep[k] = v
    rows = [r for r in rows if all(r[k] == v for k, v in keep.items())]
    done = [r for r in rows if r["status"] == "finished" and r[column] != ""]
    if not done:
        fail("no finished point to plot (after --where)")
    for p in swept:
        if p in (args.x, args.series) or p in keep:
            continue
        # A param zipped with --x or --series varies with them: that is fine.  One that
        # varies at a fixed (x, series) would put several settings on one line.
        seen = {}
        for r in done:
            seen.setdefault((r[args.x], r[args.series] if args.series else None), set()).add(r[p])
        if any(len(v) > 1 for v in seen.values()):
            vals = list(dict.fromkeys(r[p] for r in done))
            fail("'%s' varies (%s): fix it with --where %s=VALUE or plot it as --series" %
                 (p, ", ".join(vals), p))

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    xs_text = list(dict.fromkeys(r[args.x] for r in done))
    xnum = numeric(xs_text)
    if xnum:
        xpos = dict(zip(xs_text, xnum[0]))
        xlabel = args.x + (" [%s]" % xnum[1] if xnum[1] else "")
    else:
        xpos = {v: i for i, v in enumerate(xs_text)}
        xlabel = args.x
    unit = split_unit(column)[1] or stat_unit(args.csv, done, wanted)
    _, shown = readable([float(r[column]) for r in done], unit)

    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    series = list(dict.fromkeys(r[args.series] for r in done)) if args.series else [None]
    for s in series:
        pts = sorted((xpos[r[args.x]], float(r[column])) for r in done
                     if s is None or r[args.series] == s)
        label = None if s is None else "%s = %s" % (args.series, s)
        ys = readable([p[1] for p in pts] + [max(float(r[column]) for r in done)], unit)[0][:-1]
        ax.plot([p[0] for p in pts], ys, marker="o", label=label)
    if not xnum:
        ax.set_xticks(range(len(xs_text)))
        ax.set_xticklabels(xs_text)
    if args.logx:
        ax.set_xscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(wanted + (" [%s]" % shown if shown and shown != "1" else ""))
    ax.ticklabel_format(axis="y", useOffset=False, style="plain")
    if not args.no_zero and min(float(r[column]) for r in done) >= 0:
        ax.set_ylim(bottom=0)
    title = sweep_title(args.csv)
    if keep:
        title += " (" + ", ".join("%s=%s" % kv for kv in keep.items()) + ")"
    ax.set_title(title, fontsize=10)
    ax.grid(True, alpha=0.3)
    if args.series:
        ax.legend(fontsize=8)
    fig.tight_layout()

    base = args.out
    if not base:
        safe = re.sub(r"[^A-Za-z0-9._-]+", "_", "plot_%s_vs_%s" % (wanted, args.x)).strip("_")
        safe = re.sub(r"_+", "_", safe)
        base = os.path.join(os.path.dirname(os.path.abspath(args.csv)), safe)
    # Fixed metadata: the same sweep.csv gives the same files.
    fig.savefig(base + ".png", dpi=120, metadata={"Software": None})
    fig.savefig(base + ".svg", metadata={"Date": None, "Creator": None})
    plt.close(fig)
    print("plot_sweep: wrote %s.png and %s.svg" % (base, base))
    return 0


if __name__ == "__main__":
    sys.exit(main())
