#!/usr/bin/env python3
"""Every trainvp command line shown in README.md and docs/*.md runs as shown (issue 28).

    test_doc_commands.py SOURCE_DIR TRAINVP_BIN [--list]

Takes the lines of the documents' fenced code blocks that start with `trainvp`,
`build/sc_main/trainvp` or `$TRAINVP_PREFIX/bin/trainvp` (a trailing backslash continues a line,
a `# ...` comment is dropped), runs each with TRAINVP_BIN from a scratch folder that links the
source tree's folders (so `out/` lands there, not in the tree), one scratch folder per document
in document order (a `diff` may use the runs before it), and expects exit 0 unless EXPECTED
below says otherwise, with its reason.  Synopsis lines (`trainvp run CONFIG.yaml [--set ...]`)
are recognised by their placeholders and not run.  Exit 1 with every command that did not do
what was expected.
"""
import os
import re
import shlex
import subprocess
import sys
import tempfile

# Commands that are not run as they stand, or that are meant to fail: substring -> (expected
# exit code, or None to skip, and why).
EXPECTED = {
    "$TRAINVP_PREFIX/bin/trainvp": (None, "an out-of-tree plugin walk-through: needs the "
                                          "reader's plugin build (scripts/test_install.sh runs "
                                          "the equivalent with examples/custom_ip/)"),
    "sweep --merge /shared/rs": (1, "the emitted points were not run (`parallel` is the "
                                    "reader's): --merge reports them missing and exits 1"),
}
# Commands not run by a sanitizer build (scripts/test_sanitizers.sh): substring -> why.  The
# regular build runs them.
NOT_UNDER_SANITIZERS = {
    "iterations=1000 ": "a 1000-iteration soak repeats the one-iteration path a thousand times "
                        "(37 s in the gcc build, ~4 min under ASan); the soak measures memory, "
                        "which a sanitizer's shadow memory would swamp",
}
PLACEHOLDER = re.compile(r"( \[|\b(CONFIG|SWEEP|DIR|TYPE|FILE|COMMAND|OUT_A|OUT_B|OUT_DIR)\b|K=V|LIB\.so)")
START = re.compile(r"^(\$ )?(build/sc_main/trainvp|trainvp|\$TRAINVP_PREFIX/bin/trainvp) ")


def commands(path):
    """(line number, command) of each trainvp command in the file's fenced code blocks."""
    out, fenced, pending, start = [], False, None, 0
    with open(path, encoding="utf-8") as f:
        for n, raw in enumerate(f, 1):
            line = raw.rstrip("\n")
            if line.lstrip().startswith("```"):
                fenced = not fenced
                continue
            if not fenced:
                continue
            text = line.strip()
            if pending is not None:
                pending += " " + text.rstrip("\\").strip()
                if not text.endswith("\\"):
                    out.append((start, pending))
                    pending = None
                continue
            if not START.match(text):
                continue
            if " #" in text:
                text = text[:text.index(" #")].rstrip()
            if text.startswith("$ "):
                text = text[2:]
            if text.endswith("\\"):
                pending, start = text.rstrip("\\").strip(), n
                continue
            out.append((n, text))
    return out


def main():
    source, binary = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    sys.path.insert(0, os.path.join(source, "tests", "support"))
    from sanitized_binary import sanitized
    skip = dict(NOT_UNDER_SANITIZERS) if sanitized(binary) else {}
    docs = [os.path.join(source, "README.md")] + sorted(
        os.path.join(source, "docs", f) for f in os.listdir(os.path.join(source, "docs"))
        if f.endswith(".md"))
    failures, ran, skipped = [], 0, 0
    for doc in docs:
        found = commands(doc)
        if not found:
            continue
        with tempfile.TemporaryDirectory(prefix="trainvp_doc_") as scratch:
            for entry in os.listdir(source):
                if entry in ("out", "build") or entry.startswith("."):
                    continue
                os.symlink(os.path.join(source, entry), os.path.join(scratch, entry))
            for n, cmd in found:
                where = f"{os.path.relpath(doc, source)}:{n}"
                if PLACEHOLDER.search(cmd):
                    continue  # a synopsis, not a command
                expected, reason = 0, ""
                for key, (code, why) in EXPECTED.items():
                    if key in cmd:
                        expected, reason = code, why
                for key, why in skip.items():
                    if key in cmd + " ":
                        expected, reason = None, why
                if expected is None:
                    skipped += 1
                    if "--list" in sys.argv:
                        print(f"skip  {where}: {cmd}  ({reason})")
                    continue
                args = shlex.split(cmd)
                args[0] = binary
                args = [a.replace("/shared/rs", os.path.join(scratch, "shared_rs"))
                        for a in args]
                if "--list" in sys.argv:
                    print(f"run   {where}: {cmd}  (exit {expected})")
                    continue
                r = subprocess.run(args, cwd=scratch, capture_output=True, text=True,
                                   timeout=900,
                                   env=dict(os.environ, SYSTEMC_DISABLE_COPYRIGHT_MESSAGE="1"))
                ran += 1
                if r.returncode != expected:
                    failures.append(f"{where}: `{cmd}` exited {r.returncode}, expected "
                                    f"{expected}{' (' + reason + ')' if reason else ''}\n"
                                    f"    {r.stderr.strip()[:400]}")
                elif expected != 0 and not (r.stderr + r.stdout).strip():
                    failures.append(f"{where}: `{cmd}` failed as expected but said nothing")
    for f in failures:
        print(f)
    print(f"{ran} commands run, {skipped} skipped (see EXPECTED), {len(failures)} failed")
    return 1 if failures or ran == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
