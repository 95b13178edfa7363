"""The ctypes mirror of the public structs (python/comply/_lib.py) has the C layout: every field
offset and struct size printed by layout_probe.c (which walks cmModel and cmData through the
field lists of comply/fields.h) must match, and no C field may be missing from the mirror."""
import ctypes
import os
import subprocess

import pytest

from comply import _lib


def probe():
    exe = os.environ.get("COMPLY_LAYOUT_PROBE")
    if not exe:
        pytest.fail("COMPLY_LAYOUT_PROBE is not set (tests/python/CMakeLists.txt sets it)")
    out = subprocess.run([exe], check=True, capture_output=True, text=True).stdout
    return [line.split() for line in out.splitlines()]


def test_struct_layout_matches_c():
    seen = set()
    for struct, field, value in probe():
        value = int(value)
        if struct == "constant":
            assert getattr(_lib, field) == value, field
            continue
        py = _lib.STRUCTS[struct]
        if field == "sizeof":
            assert ctypes.sizeof(py) == value, struct
        else:
            assert hasattr(py, field), "%s.%s missing from python/comply/_lib.py" % (struct, field)
            assert getattr(py, field).offset == value, "%s.%s" % (struct, field)
            seen.add((struct, field))
    for name, py in _lib.STRUCTS.items():
        for field, _ in py._fields_:
            assert (name, field) in seen, "%s.%s is not in the C struct" % (name, field)
