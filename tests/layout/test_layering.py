#!/usr/bin/env python3
"""The layering of the source tree (docs/architecture.md, "Layers").

Every `#include "..."` in src/ names a folder; a file of folder F may include only the public
headers (comply/...) and the folders that the table of docs/architecture.md allows for F. The
table must be a DAG (arrows point down), every folder of src/ must be in it, and the command-line
tool (cli/) and the public headers (include/comply/) may include only public headers. Reads the
table from the document, so that the document and the check cannot drift apart.

usage: test_layering.py SOURCE_DIR
"""
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def read_table(doc):
    """{folder: set of folders it may include} from the ```layers block of the document"""
    text = open(doc, encoding="utf-8").read()
    m = re.search(r"```layers\n(.*?)```", text, re.S)
    if not m:
        sys.exit(f"{doc}: no ```layers block")
    table = {}
    for n, line in enumerate(m.group(1).splitlines(), 1):
        line = line.split("#")[0].strip()
        if not line:
            continue
        name, _, deps = line.partition("->")
        name = name.strip()
        table[name] = {d for d in deps.replace(",", " ").split()} - {"(none)"}
    return table


def check_dag(table):
    """errors for unknown targets and cycles"""
    errors = []
    for f, deps in table.items():
        for d in deps:
            if d not in table:
                errors.append(f"layers: {f} -> {d}, but {d} is not a folder of the table")
    state = {}

    def visit(f, path):
        if state.get(f) == 1:
            errors.append("layers: cycle " + " -> ".join(path + [f]))
            return
        if state.get(f) == 2:
            return
        state[f] = 1
        for d in sorted(table.get(f, ())):
            visit(d, path + [f])
        state[f] = 2

    for f in sorted(table):
        visit(f, [])
    return errors


def includes(path):
    with open(path, encoding="utf-8", errors="replace") as fh:
        text = fh.read()
    for m in INCLUDE.finditer(text):
        yield text.count("\n", 0, m.start()) + 1, m.group(1)


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "../..")
    table = read_table(os.path.join(root, "docs", "architecture.md"))
    errors = check_dag(table)
    src = os.path.join(root, "src")
    folders = sorted(d for d in os.listdir(src) if os.path.isdir(os.path.join(src, d)))
    for f in folders:
        if f not in table:
            errors.append(f"src/{f}/ is not in the layers table of docs/architecture.md")
    nfiles = ninc = 0
    for f in folders:
        for dirpath, _, names in os.walk(os.path.join(src, f)):
            for name in sorted(names):
                if not name.endswith((".c", ".h")):
                    continue
                path = os.path.join(dirpath, name)
                rel = os.path.relpath(path, root)
                nfiles += 1
                for line, inc in includes(path):
                    ninc += 1
                    top = inc.split("/")[0] if "/" in inc else None
                    if top == "comply":
                        continue
                    if top is None:
                        errors.append(f"{rel}:{line}: #include \"{inc}\" has no folder "
                                      "(write \"folder/file.h\")")
                    elif top not in table.get(f, set()) | {f}:
                        errors.append(f"{rel}:{line}: {f}/ may not include {top}/ (\"{inc}\"); "
                                      f"allowed: {', '.join(sorted(table.get(f, set()))) or 'none'}")
    # the tool and the public headers: public API only
    for sub, own in (("cli", {"cli.h"}), (os.path.join("include", "comply"), set())):
        d = os.path.join(root, sub)
        for name in sorted(os.listdir(d)):
            if not name.endswith((".c", ".h")):
                continue
            path = os.path.join(d, name)
            nfiles += 1
            for line, inc in includes(path):
                ninc += 1
                if not inc.startswith("comply/") and inc not in own:
                    errors.append(f"{os.path.relpath(path, root)}:{line}: #include \"{inc}\": "
                                  "only the public API (comply/...) is allowed here")
    for e in errors:
        print(e)
    print(f"{nfiles} files, {ninc} includes, {len(table)} folders: "
          f"{'OK' if not errors else str(len(errors)) + ' violations'}")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
