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
    for struct, field, *rest in probe():
        if struct == "array":
            continue
        value = int(rest[0])
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


def test_array_shapes_match_field_lists():
    """Model.MODEL_ARRAYS (the views of cmModel) and the per-body views of cmData have the types
    and shapes of the field lists: every numeric array of CM_MODEL_ARRAYS, none more."""
    from comply import _core

    ctypes_of = {"int": ctypes.c_int, "double": ctypes.c_double}
    listed = set()
    for kind, name, ctype, rows, cols in (r for r in probe() if r[0] == "array"):
        cols = cols.replace("CM_M(", "").rstrip(")")
        if name.startswith("body_") and name in _core._BODY_COLS:  # cmData.body_*
            assert (rows, int(cols)) == ("nbody", _core._BODY_COLS[name]), name
            continue
        if name in ("node_pos", "node_vel"):  # cmData's nodes: Data views (nnode, 3)
            assert (rows, int(cols)) == ("nnode", 3), name
            continue
        if ctype not in ctypes_of:  # void* rows: user law pointers, not numbers
            continue
        listed.add(name)
        py_type, py_rows, py_cols = _core.MODEL_ARRAYS[name]
        assert py_type is ctypes_of[ctype] and py_rows == rows, name
        if cols.isdigit():
            n = 1
            for c in (py_cols if isinstance(py_cols, tuple) else (py_cols,)):
                n *= c
            assert n == int(cols), name
        else:
            assert py_cols == cols, name
    assert listed == set(_core.MODEL_ARRAYS)
