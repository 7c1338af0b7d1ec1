#!/usr/bin/python3
"""Every aries.md experiment, one command -> docs/validation.md sections `noc-uniform`,
`noc-allreduce` and `aries-training` with their PNGs in docs/validation/.

    /usr/bin/python3 tools/validate_aries.py [--build build]

Runs, in order: tools/validate_noc.py (the standard 4x4/8x8 uniform-traffic experiment),
tools/validate_noc_allreduce.py (Fig. 9 style: all-reduce throughput vs data size) and
tools/validate_aries_training.py (Fig. 10-11: execution time, communication time and NoC energy
of training ResNet-50, VGG-16, DLRM and Transformer with the evaluation set up as aries.md §V ran
it, configs/papers/aries; the Fig. 10(a) calibration case, the qualitative statements, equal
bisection, a flit-level subset and the assumptions ledger).  Each part can also be run alone.
"""
import argparse
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PARTS = ["validate_noc.py", "validate_noc_allreduce.py", "validate_aries_training.py"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    args = ap.parse_args()
    for part in PARTS:
        start = time.time()
        cmd = [sys.executable, os.path.join(ROOT, "tools", part), "--build", args.build]
        print("==", " ".join(cmd), flush=True)
        subprocess.run(cmd, cwd=ROOT, check=True)
        print(f"== {part}: {time.time() - start:.0f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
