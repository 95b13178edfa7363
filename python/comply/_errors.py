"""The exceptions of the bindings: one class per cmStatus of include/comply/core.h.

Standard library only, so that `import comply` works without numpy or the shared library (the
plot module and `comply plot` import the package too).
"""


class Error(Exception):
    """A comply call failed. `status` is the cmStatus number, `message` the library's text
    (file:line:column and field where the library knows them)."""

    status = -1

    def __init__(self, message, status=None):
        super().__init__(message)
        self.message = message
        if status is not None:
            self.status = status


class ArgumentError(Error, ValueError):
    """CM_ERR_ARG: a bad argument or value (out of range, not finite, unknown name)."""

    status = 1


class FileError(Error, OSError):
    """CM_ERR_IO: a file could not be opened, read or written."""

    status = 2


class ParseError(Error):
    """CM_ERR_PARSE: malformed input text or binary (a scene file, a mesh, a checkpoint)."""

    status = 3


class MeshError(Error):
    """CM_ERR_MESH: a mesh failed validation (open, non-manifold, inverted, ...)."""

    status = 4


class OutOfMemoryError(Error, MemoryError):
    """CM_ERR_NOMEM: an allocation failed."""

    status = 5


class NumericError(Error, ArithmeticError):
    """CM_ERR_NUMERIC: a step produced a non-finite state or exceeded max_speed; the step was
    undone (the Data keeps its last good state)."""

    status = 6


class LimitError(Error):
    """CM_ERR_LIMIT: a configured resource limit was exceeded (max_contacts, file size)."""

    status = 7


class LibraryNotFoundError(Error, ImportError):
    """libcomply.so was not found (set COMPLY_LIBRARY, or build the comply_shared target)."""


_BY_STATUS = {
    c.status: c
    for c in (ArgumentError, FileError, ParseError, MeshError, OutOfMemoryError, NumericError,
              LimitError)
}


def error_for(status, message):
    """The exception for a cmStatus and its message."""
    cls = _BY_STATUS.get(int(status), Error)
    return cls(message, int(status))


class CheckpointWarning(UserWarning):
    """Data.load_checkpoint: the checkpoint was written with another version of the scene (its
    interactions, joints, forces, motions, meshes or solver options differ; the bodies, masses
    and timestep match, which the read checks). The state is loaded; the steps from it follow
    this model, not the one that wrote it."""
