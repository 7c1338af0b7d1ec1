#!/usr/bin/env python3
"""Running trainvp from the report generators (tools/validate_*.py): one place that knows the
command line, the output folder and the layout of stats.json.

    from trainvp_runs import run_config, stat, breakdown_ms
    stats = run_config("configs/papers/inceptionn/wa_hdc.yaml", "out/validation/wa_hdc",
                       sets=["workload.training.iterations=2"])
    breakdown_ms(stats)["comm"]
"""
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def trainvp_binary(build=None):
    build = build or os.environ.get("TRAINVP_BUILD_DIR", os.path.join(ROOT, "build"))
    path = os.path.join(build, "sc_main", "trainvp")
    if not os.path.exists(path):
        sys.exit(f"no {path}: build first (scripts/build.sh)")
    return path


def run_config(config, out, sets=(), build=None, extra=()):
    """Runs CONFIG (a path from the repo root) into OUT with --set SETS; returns stats.json as
    a dict.  A failed run (exit != 0) stops the generator with trainvp's message."""
    cmd = [trainvp_binary(build), "run", config, "--out", out, "--force", "--quiet"]
    for s in sets:
        cmd += ["--set", s]
    cmd += list(extra)
    env = dict(os.environ, SYSTEMC_DISABLE_COPYRIGHT_MESSAGE="1")
    p = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"{' '.join(cmd)}\nexit {p.returncode}\n{p.stdout}{p.stderr}")
    with open(os.path.join(ROOT, out, "stats.json")) as f:
        return json.load(f)


def stat(stats, block, name):
    """The value of statistic NAME of BLOCK (its mean for a distribution)."""
    s = stats["blocks"][block]["stats"][name]
    return s["value"] if "value" in s else s["mean"]


def breakdown_ms(stats):
    """The iteration breakdown (stats block `iteration`) in ms per iteration."""
    it = stats["blocks"].get("iteration")
    if it is None:
        sys.exit("the run has no iteration breakdown (did it finish?)")
    return {k: v["value"] * 1e-6 for k, v in it["stats"].items() if v["unit"] == "ns"}
