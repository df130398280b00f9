"""Drop-ins for TensorFlow's checkpoint readers, without TensorFlow.

A conversion script written against ``tf.train`` runs unchanged with one
import changed::

    import ckpt.compat as tf          # was: import tensorflow as tf

    reader = tf.train.load_checkpoint(path)
    for name, shape in tf.train.list_variables(path):
        value = reader.get_tensor(name)           # numpy, as TensorFlow returns it
    try:
        tf.train.load_variable(path, "missing")
    except tf.errors.NotFoundError as e:          # TensorFlow's class name and message shape
        ...

What behaves as TensorFlow's (tensorflow/python/training/checkpoint_utils.py
and py_checkpoint_reader.py, TF 2.20): a directory means the state file's
latest checkpoint (``ValueError`` when there is none); ``load_variable``
drops a trailing ":0"; ``get_tensor`` returns a numpy scalar for scalars
and ``bytes`` for a scalar string; the variable maps list every key,
``_CHECKPOINTABLE_OBJECT_GRAPH`` included, partitioned tensors by their full
key and shape; errors are ``NotFoundError`` with "Key ... not found in
checkpoint" or "... Failed to find any matching files for ...". Values
are read by the ckpt engine and checked against their stored checksums.
"""

from __future__ import annotations

import os
import types
from typing import Dict, List, Tuple, Union

import numpy as np

from . import _ckpt, _dtypes
from . import errors as errors  # noqa: PLC0414 - tf.errors
from ._checkpoint import Checkpoint
from .errors import NotFoundError

__all__ = [
    "load_checkpoint",
    "list_variables",
    "load_variable",
    "NewCheckpointReader",
    "CheckpointReader",
    "DType",
    "train",
    "errors",
]


class DType:
    """What ``get_variable_to_dtype_map`` maps to: TensorFlow's DType as far
    as conversion scripts use it (``name``, ``as_numpy_dtype``,
    ``as_datatype_enum``, comparison with other DTypes and with numpy dtypes)."""

    __slots__ = ("name", "_enum")

    def __init__(self, name: str, enum_name: str):
        self.name = name
        self._enum = enum_name

    @property
    def as_numpy_dtype(self):
        return _dtypes.numpy_dtype(self.name).type

    @property
    def as_datatype_enum(self) -> int:
        return _ENUM_VALUES.get(self._enum, 0)

    @property
    def is_floating(self) -> bool:
        return self.name.startswith(("float", "bfloat"))

    def __eq__(self, other) -> bool:
        if isinstance(other, DType):
            return self.name == other.name
        if isinstance(other, str):
            return self.name == other
        try:
            return self.name != "string" and np.dtype(other) == _dtypes.numpy_dtype(self.name)
        except TypeError:
            return False

    def __hash__(self) -> int:
        return hash(self.name)

    def __repr__(self) -> str:
        return f"tf.{self.name}"


# TensorFlow's DataType enum values (types.proto).
_ENUM_VALUES = {
    "DT_FLOAT": 1, "DT_DOUBLE": 2, "DT_INT32": 3, "DT_UINT8": 4, "DT_INT16": 5, "DT_INT8": 6, "DT_STRING": 7,
    "DT_COMPLEX64": 8, "DT_INT64": 9, "DT_BOOL": 10, "DT_QINT8": 11, "DT_QUINT8": 12, "DT_QINT32": 13,
    "DT_BFLOAT16": 14, "DT_QINT16": 15, "DT_QUINT16": 16, "DT_UINT16": 17, "DT_COMPLEX128": 18, "DT_HALF": 19,
    "DT_RESOURCE": 20, "DT_VARIANT": 21, "DT_UINT32": 22, "DT_UINT64": 23, "DT_FLOAT8_E5M2": 24,
    "DT_FLOAT8_E4M3FN": 25, "DT_FLOAT8_E4M3FNUZ": 26, "DT_FLOAT8_E4M3B11FNUZ": 27, "DT_FLOAT8_E5M2FNUZ": 28,
    "DT_INT4": 29, "DT_UINT4": 30, "DT_INT2": 31, "DT_UINT2": 32, "DT_FLOAT4_E2M1FN": 33,
}

for _n in ("float16", "float32", "float64", "bfloat16", "int8", "int16", "int32", "int64", "uint8", "uint16",
           "uint32", "uint64", "bool", "string", "complex64", "complex128"):
    globals()[_n] = DType(_n, "")
half = globals()["float16"]
double = globals()["float64"]


class CheckpointReader:
    """TensorFlow's CheckpointReader over the ckpt engine (use load_checkpoint)."""

    def __init__(self, checkpoint: Checkpoint):
        self._c = checkpoint
        self._r = checkpoint._reader

    def _infos(self):
        return [self._r.info(i) for i in range(self._r.size)]

    def get_variable_to_shape_map(self) -> Dict[str, List[int]]:
        return {t[0]: list(t[3]) for t in self._infos()}

    def get_variable_to_dtype_map(self) -> Dict[str, DType]:
        return {t[0]: DType(t[1], t[2]) for t in self._infos()}

    def has_tensor(self, tensor_str: Union[str, bytes]) -> bool:
        return self._r.find(tensor_str) >= 0

    def get_tensor(self, tensor_str: Union[str, bytes]):
        i = self._r.find(tensor_str)
        if i < 0:
            key = tensor_str.decode("utf-8", "surrogateescape") if isinstance(tensor_str, bytes) else tensor_str
            raise NotFoundError(f"Key {key} not found in checkpoint")
        value = self._r.read(i)
        info = self._r.info(i)
        if isinstance(value, list):  # strings: bytes, as TensorFlow gives them
            if not info[3]:
                return value[0]
            out = np.empty(len(value), dtype=object)
            out[:] = value
            return out.reshape(info[3])
        value = _dtypes.view(value, info[1])
        return value[()] if value.ndim == 0 else value

    def debug_string(self) -> bytes:
        lines = [f"{t[0]} ({t[2]}) {list(t[3])}" for t in self._infos()]
        return ("\n".join(lines) + "\n").encode("utf-8", "surrogateescape")

    def close(self) -> None:
        self._c.close()


def _reader_path(ckpt_dir_or_file) -> str:
    path = os.fspath(ckpt_dir_or_file)
    if isinstance(path, bytes):
        path = os.fsdecode(path)
    return path


def NewCheckpointReader(filepattern) -> CheckpointReader:  # noqa: N802 - TensorFlow's name
    """A reader of exactly this prefix (TensorFlow's tf.compat.v1.train.NewCheckpointReader)."""
    path = _reader_path(filepattern)
    if not os.path.exists(path + ".index") and not os.path.exists(path):
        raise NotFoundError(
            f"Unsuccessful TensorSliceReader constructor: Failed to find any matching files for {path}"
        )
    try:
        return CheckpointReader(Checkpoint(_ckpt.Reader.open(path)))
    except NotFoundError as e:
        raise NotFoundError(
            f"Unsuccessful TensorSliceReader constructor: Failed to find any matching files for {path} ({e})"
        ) from None


def _latest(directory: str):
    # TensorFlow's latest_checkpoint: the state file's latest, if its index exists.
    return _ckpt.latest_checkpoint(directory)


def load_checkpoint(ckpt_dir_or_file) -> CheckpointReader:
    """A CheckpointReader for a checkpoint prefix, or a directory's latest
    checkpoint by its state file (ValueError when it has none)."""
    path = _reader_path(ckpt_dir_or_file)
    if os.path.isdir(path):
        latest = _latest(path)
        if latest is None:
            raise ValueError(f"Couldn't find 'checkpoint' file or checkpoints in given directory {path}")
        path = latest
    return NewCheckpointReader(path)


def load_variable(ckpt_dir_or_file, name: str):
    """One tensor's value as numpy (a trailing ":0" is dropped, as TensorFlow does)."""
    if name.endswith(":0"):
        name = name[:-2]
    reader = load_checkpoint(ckpt_dir_or_file)
    try:
        return reader.get_tensor(name)
    finally:
        reader.close()


def list_variables(ckpt_dir_or_file) -> List[Tuple[str, List[int]]]:
    """(key, shape) of every tensor, sorted by key."""
    reader = load_checkpoint(ckpt_dir_or_file)
    try:
        shapes = reader.get_variable_to_shape_map()
    finally:
        reader.close()
    return [(name, shapes[name]) for name in sorted(shapes)]


#: ``tf.train`` as far as reading checkpoints goes: ``import ckpt.compat as tf``.
train = types.SimpleNamespace(
    load_checkpoint=load_checkpoint,
    load_variable=load_variable,
    list_variables=list_variables,
    NewCheckpointReader=NewCheckpointReader,
)
