#!/usr/bin/env python3
"""Replaces one generated section of docs/validation.md, leaving the others untouched.

A section lies between `<!-- BEGIN NAME -->` and `<!-- END NAME -->`; a section that is not
there yet is appended.  The file is written atomically (temporary file + rename), so a failed
generator never leaves a half-written report.  Generators (tools/validate_*.py) import
`replace_section`; the command line form is for shell use:

    tools/validation_section.py NAME FILE_WITH_MARKDOWN [--doc docs/validation.md]
"""
import argparse
import os
import tempfile

DEFAULT_DOC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "docs",
                           "validation.md")

HEADER = """# Validation report

Generated sections: each is rewritten by the command named at its top and compares what
trainvp computes with the papers in `../shared/papers/` (published numbers) or reports it as a
prediction (numbers the papers mask as `[held out]` are never used to fit anything).
Plots are in `docs/validation/`.
"""


def atomic_write(path, text):
    d = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=d, prefix=".tmp.")
    try:
        with os.fdopen(fd, "w") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def replace_section(name, body, doc=DEFAULT_DOC):
    begin, end = f"<!-- BEGIN {name} -->", f"<!-- END {name} -->"
    text = open(doc).read() if os.path.exists(doc) else HEADER
    block = f"{begin}\n{body.rstrip()}\n{end}"
    if begin in text:
        head, rest = text.split(begin, 1)
        if end not in rest:
            raise SystemExit(f"{doc}: section {name} has no end marker")
        tail = rest.split(end, 1)[1]
        text = head + block + tail
    else:
        text = text.rstrip() + "\n\n" + block + "\n"
    atomic_write(doc, text)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("name")
    ap.add_argument("file")
    ap.add_argument("--doc", default=DEFAULT_DOC)
    a = ap.parse_args()
    replace_section(a.name, open(a.file).read(), a.doc)


if __name__ == "__main__":
    main()
