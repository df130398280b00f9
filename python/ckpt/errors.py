"""Exceptions raised by ckpt, one per engine status code.

The names follow ``tf.errors`` (``NotFoundError``, ``DataLossError``, ...), so
code that catches TensorFlow's classes by name reads the same. Every
message is the engine's, verbatim: it names the file and the problem.
``NotFoundError`` is also a ``KeyError`` (a missing key in ``c[key]``), and
``InvalidArgumentError`` a ``ValueError``.
"""

from __future__ import annotations

__all__ = [
    "OpError",
    "InvalidArgumentError",
    "NotFoundError",
    "DataLossError",
    "UnimplementedError",
    "FailedPreconditionError",
    "OutOfRangeError",
    "PermissionDeniedError",
    "ResourceExhaustedError",
    "AlreadyExistsError",
    "CancelledError",
    "InternalError",
]


class OpError(Exception):
    """Base class of every engine error; ``message`` is the engine's text."""

    #: The engine's status code name ("NotFound", "DataLoss", ...).
    code = "Unknown"

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return self.message


class InvalidArgumentError(OpError, ValueError):
    """The caller asked for something malformed."""

    code = "InvalidArgument"


class NotFoundError(OpError, KeyError):
    """A file, key or checkpoint does not exist."""

    code = "NotFound"

    def __str__(self) -> str:  # KeyError would quote the message
        return self.message


class DataLossError(OpError):
    """Bytes on disk are corrupt or inconsistent."""

    code = "DataLoss"


class UnimplementedError(OpError):
    """A valid feature the engine does not support (e.g. resource dtypes)."""

    code = "Unimplemented"


class FailedPreconditionError(OpError):
    """The operation does not apply in the current state."""

    code = "FailedPrecondition"


class OutOfRangeError(OpError, IndexError):
    """An index or range lies outside what exists."""

    code = "OutOfRange"


class PermissionDeniedError(OpError, PermissionError):
    """The file system refused access."""

    code = "PermissionDenied"


class ResourceExhaustedError(OpError, MemoryError):
    """Disk full or out of memory."""

    code = "ResourceExhausted"


class AlreadyExistsError(OpError, FileExistsError):
    """The destination exists and overwrite was not asked for."""

    code = "AlreadyExists"


class CancelledError(OpError):
    """The operation was cancelled."""

    code = "Cancelled"


class InternalError(OpError):
    """A bug in the engine."""

    code = "Internal"
