"""comply: rigid bodies in compliant contact, from Python (docs/python.md).

    import comply
    m = comply.load("examples/drop.yaml")     # Scene.load(path).compile()
    d = comply.Data(m)
    d.step(100)
    print(d.body_cpos, d.contacts["force"].sum())

Bindings over the shared library libcomply.so through ctypes (_lib.py says where it is looked
for). Importing the package needs only the standard library: numpy and the library are loaded
when a binding (Scene, Model, Data, load, ...) is first used, so that `python3 -m comply.plot`
works without them.
"""

from ._errors import (ArgumentError, CheckpointWarning, Error, FileError, LibraryNotFoundError,
                      LimitError, MeshError, NumericError, OutOfMemoryError, ParseError)

__all__ = [
    "Error", "ArgumentError", "FileError", "ParseError", "MeshError", "OutOfMemoryError",
    "NumericError", "LimitError", "LibraryNotFoundError", "CheckpointWarning",
    "Scene", "Model", "Data", "load", "step_parallel", "version", "library", "checkpoint_info",
    "contact_time_restitution", "contact_time_duration", "contact_time_er",
    "area_compliant_restitution",
]

_LAZY = {"Scene", "Model", "Data", "load", "step_parallel", "version", "checkpoint_info",
         "contact_time_restitution", "contact_time_duration", "contact_time_er",
         "area_compliant_restitution", "ENUMS", "MODEL_ARRAYS"}


def __getattr__(name):
    if name in _LAZY:
        from . import _core

        return getattr(_core, name)
    if name == "library":
        from . import _lib

        return _lib.library
    raise AttributeError("module 'comply' has no attribute %r" % name)


def __dir__():
    return sorted(set(globals()) | _LAZY | {"library"})
