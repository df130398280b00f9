"""Checkpoint dtypes as numpy dtypes.

numpy has no bfloat16, float8, int4 or float4: for those the engine hands
over the raw little-endian elements as unsigned integers of the same size,
and they are viewed through ``ml_dtypes`` when it is importable (the
package TensorFlow and JAX use; no copy is made). Without ml_dtypes such
values stay unsigned-integer bit patterns.
"""

from __future__ import annotations

import numpy as np

# ml_dtypes is imported when a type numpy lacks is first met: it costs
# more than the rest of `import ckpt` together.
_ml = None
_ml_tried = False


def _ml_dtypes():
    global _ml, _ml_tried
    if not _ml_tried:
        _ml_tried = True
        try:  # optional: pip install ml_dtypes
            import ml_dtypes

            _ml = ml_dtypes
        except ImportError:
            _ml = None
    return _ml

# Short names (ckpt's dtype names) that numpy lacks.
_ML_NAMES = (
    "bfloat16",
    "float8_e5m2",
    "float8_e4m3fn",
    "float8_e4m3fnuz",
    "float8_e4m3b11fnuz",
    "float8_e5m2fnuz",
    "int4",
    "uint4",
    "int2",
    "uint2",
    "float4_e2m1fn",
)


def ml_dtype(name: str):
    """The ml_dtypes type for a short name numpy lacks, else None."""
    if name not in _ML_NAMES or _ml_dtypes() is None:
        return None
    return getattr(_ml, name, None)


# The buffer protocol names 64-bit integers 'q'/'Q' (long long), which numpy
# keeps as a type distinct from np.int64 where that is 'l' (Linux):
# equal dtypes, but type(x) would differ from what numpy and TensorFlow give.
_CANONICAL = {}
if np.dtype(np.int64).char != "q":
    _CANONICAL = {"q": np.dtype(np.int64), "Q": np.dtype(np.uint64)}


def needs_view(array: np.ndarray) -> bool:
    """Whether view() may change the engine's array (a cheap test for bulk
    reads: numpy-native arrays come back final)."""
    return array.dtype.kind == "u" or array.dtype.char in _CANONICAL


def view(array: np.ndarray, name: str) -> np.ndarray:
    """The engine's array viewed as dtype 'name' where numpy needs help
    (no copy)."""
    t = ml_dtype(name)
    if t is not None:
        return array.view(t)
    c = _CANONICAL.get(array.dtype.char)
    return array.view(c) if c is not None else array


def numpy_dtype(name: str) -> np.dtype:
    """The numpy dtype values of short dtype name 'name' come back as."""
    t = ml_dtype(name)
    if t is not None:
        return np.dtype(t)
    if name in _ML_NAMES:
        return np.dtype(np.uint16 if name == "bfloat16" else np.uint8)
    if name.startswith("q"):  # quantized types: their integer storage
        name = name[1:]
    if name == "string":
        return np.dtype(object)
    return np.dtype(name)
