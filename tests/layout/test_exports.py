#!/usr/bin/env python3
"""The shared library exports exactly the public API.

Every function declared in include/comply/*.h is marked CM_API (default visibility); the library
is compiled with hidden visibility, so its dynamic symbol table must hold exactly those functions:
a missing one is a public function users cannot call, an extra one an internal symbol that leaked
(and that users could come to depend on).

usage: test_exports.py SOURCE_DIR LIBCOMPLY_SO
"""
import glob
import os
import re
import subprocess
import sys

DECL = re.compile(r"^(CM_API\s+)?(?!typedef|static|#)[A-Za-z_][\w \*]*?\b(cm_\w+)\(", re.M)


def main():
    root, lib = sys.argv[1], sys.argv[2]
    errors, public = [], set()
    for path in sorted(glob.glob(os.path.join(root, "include", "comply", "*.h"))):
        text = open(path, encoding="utf-8").read()
        for m in DECL.finditer(text):
            line = text.count("\n", 0, m.start()) + 1
            public.add(m.group(2))
            if not m.group(1):
                errors.append(f"{os.path.relpath(path, root)}:{line}: {m.group(2)} is not CM_API")
    out = subprocess.run(["nm", "-D", "--defined-only", lib], capture_output=True, text=True,
                         check=True).stdout
    exported = set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in "TtWwDdBbRr" and not parts[2].startswith("_"):
            exported.add(parts[2])
    for s in sorted(public - exported):
        errors.append(f"{s}: declared in include/comply/ but not exported by {lib}")
    for s in sorted(exported - public):
        errors.append(f"{s}: exported by {lib} but not a public function (mark it static, or "
                      "declare it in include/comply/ with CM_API)")
    for e in errors:
        print(e)
    print(f"{len(public)} public functions, {len(exported)} exported symbols: "
          f"{'OK' if not errors else str(len(errors)) + ' problems'}")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
