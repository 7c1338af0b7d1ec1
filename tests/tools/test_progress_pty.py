#!/usr/bin/env python3
"""Progress on a terminal (issue 28): `trainvp sweep` and a long `trainvp run` draw a progress
bar in place ("\\r", erase line) when stdout is a terminal (a pseudo-terminal here), and print
no progress at all when it is not (a pipe).

Usage: test_progress_pty.py SOURCE_DIR TRAINVP_BIN
"""
import os
import pty
import re
import select
import subprocess
import sys
import tempfile


def on_pty(argv, cwd, env):
    """Runs argv with stdout and stderr on a pseudo-terminal; returns (exit code, output)."""
    master, slave = pty.openpty()
    p = subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=slave,
                         stderr=slave, close_fds=True)
    os.close(slave)
    out = b""
    while True:
        r, _, _ = select.select([master], [], [], 1.0)
        if r:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # EIO: the child closed the terminal
                break
            if not chunk:
                break
            out += chunk
        elif p.poll() is not None:
            break
    p.wait()
    os.close(master)
    return p.returncode, out.decode("utf-8", "replace")


def on_pipe(argv, cwd, env):
    p = subprocess.run(argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL, capture_output=True)
    return p.returncode, p.stdout.decode("utf-8", "replace")


def main():
    src, binary = sys.argv[1], os.path.abspath(sys.argv[2])
    env = dict(os.environ)
    env.pop("TRAINVP_PROGRESS", None)
    fails = []
    with tempfile.TemporaryDirectory(prefix="trainvp_progress.") as work:
        # A sweep of 4 short points, one job at a time: the bar moves at each point.
        sweep = os.path.join(work, "sweep.yaml")
        with open(sweep, "w") as f:
            f.write("description: progress test\n"
                    "base: %s\n" % os.path.join(src, "configs/examples/two_nodes.yaml") +
                    "grid:\n  - simulation.seed: [1, 2, 3, 4]\n")
        for how, run in (("pty", on_pty), ("pipe", on_pipe)):
            code, out = run([binary, "sweep", sweep, "--jobs", "1", "--out",
                             os.path.join(work, "sweep_" + how)], src, env)
            if code != 0:
                fails.append("sweep on a %s: exit %d\n%s" % (how, code, out))
                continue
            bars = re.findall(r"\r\x1b\[Ksweep: \[[#.]{20}\] (\d+)/4 points", out)
            if how == "pty":
                if not bars or bars[-1] != "4":
                    fails.append("sweep on a pty: no progress bar reaching 4/4:\n" + repr(out))
                if "[####################] 4/4 points" not in out:
                    fails.append("sweep on a pty: no full bar:\n" + repr(out))
            elif bars or "\r" in out:
                fails.append("sweep on a pipe printed progress:\n" + repr(out))

        # A run bounded by simulation.max_time that lasts more than the refresh period (0.5 s
        # wall; the demo takes a few seconds): a bar with the percentage and the ETA.
        run = [binary, "run", "configs/papers/inceptionn/inc_alexnet.yaml", "--set",
               "simulation.max_time=2s", "--force"]
        for how, runner in (("pty", on_pty), ("pipe", on_pipe)):
            code, out = runner(run + ["--out", os.path.join(work, "run_" + how)], src, env)
            if code != 0:
                fails.append("run on a %s: exit %d\n%s" % (how, code, out))
                continue
            bar = re.search(r"\r\x1b\[K\[[#.]{20}\] simulated [^\r]* of 2 s \(\d+\.\d%\), "
                            r"wall \d+:\d\d(, ETA \d+:\d\d)?, [^\r]* simulated s per wall s", out)
            if how == "pty" and not bar:
                fails.append("run on a pty: no progress bar:\n" + repr(out[:2000]))
            # (The summary's wall time line also gives the rate: the bar is what must not be.)
            if how == "pipe" and ("\r" in out or re.search(r"\[[#.]{20}\] simulated", out)):
                fails.append("run on a pipe printed progress:\n" + repr(out[:2000]))
    for f in fails:
        print(f)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
