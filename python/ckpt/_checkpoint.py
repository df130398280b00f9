"""ckpt.Checkpoint: one open checkpoint, read like a mapping of arrays."""

from __future__ import annotations

import operator
import os
from typing import Any, Callable, Dict, Iterator, List, NamedTuple, Optional, Tuple, Union

import numpy as np

from . import _ckpt, _dtypes
from .errors import NotFoundError

Progress = Optional[Callable[[int, int, str], Any]]
PathLike = Union[str, "os.PathLike[str]"]


class TensorInfo(NamedTuple):
    """What the index says about one tensor; no data is read to know it.

    Fields as ``ckpt inspect --json`` names them, plus ``name`` (the
    object-graph name ``keys()`` lists) and ``dtype`` as a numpy-style
    name; ``dtype_enum`` is TensorFlow's ("DT_FLOAT").
    """

    key: str
    name: str
    dtype: str
    dtype_enum: str
    shape: Tuple[int, ...]
    size: int  #: bytes stored (all slices of a partitioned tensor)
    crc32c: int  #: the masked crc32c as stored (0 for partitioned tensors)
    shard_id: int
    offset: int
    slices: Tuple[Tuple[str, int, int, int, int], ...]  #: (spec, shard, offset, size, crc32c)
    optimizer_state: bool  #: a slot variable or other optimizer state

    @property
    def nbytes(self) -> int:
        return self.size

    @property
    def partitioned(self) -> bool:
        return bool(self.slices)


class Step(NamedTuple):
    """Which step a checkpoint belongs to (``ckpt/checkpoint_step.h``)."""

    number: Optional[int]  #: the "-N" of "ckpt-N"
    step: Optional[int]  #: stored in the checkpoint, else the number
    source: Optional[str]  #: the key it was read from, or "checkpoint number"


class Node:
    """One row of the checkpoint's tree, as ``ckpt tree`` prints it:
    ``kind`` (root, object, variable, replicated_variable, slot, optimizer,
    attribute, alias, key_group, key), ``name``, ``path`` (TensorFlow's
    object path, or the key prefix of key rows), ``key`` (the tensor a
    variable, attribute or key row holds, else None) and ``children``."""

    __slots__ = ("kind", "name", "path", "key", "children")

    def __init__(self, kind: str, name: str, path: str, key: Optional[str], children: List["Node"]):
        self.kind, self.name, self.path, self.key, self.children = kind, name, path, key, children

    def __repr__(self) -> str:
        return f"Node({self.kind!r}, {self.name!r}, {len(self.children)} children)"

    def walk(self) -> Iterator["Node"]:
        """This node and every node below it, parents first."""
        stack = [self]
        while stack:
            node = stack.pop()
            yield node
            stack.extend(reversed(node.children))


def _node(t) -> Node:
    # Iterative: trees can be deep (the engine builds them without recursion).
    root = Node(t[0], t[1], t[2], t[3], [])
    stack = [(root, t[4])]
    while stack:
        parent, kids = stack.pop()
        for k in kids:
            child = Node(k[0], k[1], k[2], k[3], [])
            parent.children.append(child)
            stack.append((child, k[4]))
    return root


class Rows:
    """Lazy row access to one tensor: ``c.slice(key)[10:20]`` reads only rows
    10 to 19 from disk. Such partial reads are bounds-checked but cannot be
    checked against the stored checksum, which covers the whole tensor;
    ``c[key]`` reads and verifies it all."""

    def __init__(self, checkpoint: "Checkpoint", index: int, info: TensorInfo):
        self._checkpoint = checkpoint
        self._index = index
        self.info = info

    @property
    def shape(self) -> Tuple[int, ...]:
        return self.info.shape

    def __len__(self) -> int:
        if not self.info.shape:
            raise TypeError("a scalar has no rows")
        return self.info.shape[0]

    def __getitem__(self, item) -> np.ndarray:
        rest = ()
        if isinstance(item, tuple):
            item, rest = item[0], item[1:]
        n = len(self)
        if isinstance(item, slice):
            wanted = range(*item.indices(n))
            if not wanted:
                rows = self._checkpoint._read_rows(self._index, 0, 0, self.info)
            else:
                lo, hi = min(wanted), max(wanted) + 1
                rows = self._checkpoint._read_rows(self._index, lo, hi, self.info)
                if wanted.step != 1:
                    rows = rows[[r - lo for r in wanted]]
        else:
            i = operator.index(item)
            if i < 0:
                i += n
            if not 0 <= i < n:
                raise IndexError(f"row {item} is out of range for {n} rows")
            rows = self._checkpoint._read_rows(self._index, i, i + 1, self.info)[0]
        if not rest:
            return rows
        return rows[rest] if not isinstance(item, slice) else rows[(slice(None),) + rest]


class Checkpoint:
    """An open TensorFlow checkpoint (use :func:`ckpt.open`).

    A read-only mapping from names to numpy arrays::

        with ckpt.open("runs/exp1") as c:          # a directory: its latest
            for name in c.keys():                  # "model.dense.kernel", ...
                print(name, c.info(name).shape)
            kernel = c["model.dense.kernel"]       # read, checksum verified
            rows = c.slice("model.embedding")[10:20]   # only those rows read

    Keys are object-graph names (as ``ckpt export`` names arrays); raw
    checkpoint keys (``keys(raw=True)``) are accepted wherever a name is.
    Every array owns the buffer the engine read into: nothing is copied.
    """

    def __init__(self, reader: "_ckpt.Reader"):
        self._reader = reader
        self._names: Optional[List[str]] = None
        self._name_index: Optional[Dict[str, int]] = None
        self._optimizer: Optional[Dict[int, bool]] = None
        self._index_name: Optional[Dict[int, str]] = None

    # ---- life ------------------------------------------------------------

    def close(self) -> None:
        """Releases the index and the open data files; arrays stay valid."""
        self._reader.close()

    @property
    def closed(self) -> bool:
        return self._reader.closed

    def __enter__(self) -> "Checkpoint":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self) -> str:
        if self.closed:
            return "<ckpt.Checkpoint (closed)>"
        return f"<ckpt.Checkpoint {self.prefix!r}: {len(self)} tensors, {self.style}>"

    # ---- what it is ------------------------------------------------------

    @property
    def prefix(self) -> str:
        """The bundle prefix the path resolved to."""
        return self._reader.prefix

    @property
    def resolved_by(self) -> str:
        """How: "prefix", "state file", "only index", "highest-numbered index", "SavedModel"."""
        return self._reader.resolved_by

    @property
    def style(self) -> str:
        """"object-based" (tf.train.Checkpoint, Keras) or "name-based" (TF1 Saver)."""
        return "object-based" if self._reader.object_based else "name-based"

    @property
    def step(self) -> Step:
        """The training step the checkpoint holds (else its number)."""
        return Step(*self._reader.step())

    def tree(self) -> Node:
        """The object graph as TensorFlow names it (``ckpt tree``); key groups
        for name-based checkpoints."""
        return _node(self._reader.tree())

    # ---- keys ------------------------------------------------------------

    def _load_names(self) -> None:
        if self._names is None:
            names, indices, optimizer = self._reader.names()
            self._name_index = dict(zip(names, indices))
            self._index_name = dict(zip(indices, names))
            self._optimizer = dict(zip(indices, optimizer))
            self._names = names  # last: other threads test it first

    def keys(self, raw: bool = False) -> List[str]:
        """Object-graph names ("model.dense.kernel", "optimizer/m/model.dense.kernel"),
        or with ``raw=True`` the checkpoint keys as stored (the object graph's
        own ``_CHECKPOINTABLE_OBJECT_GRAPH`` entry included)."""
        if raw:
            return self._reader.keys()
        self._load_names()
        return list(self._names)

    def __iter__(self) -> Iterator[str]:
        return iter(self.keys())

    def __len__(self) -> int:
        self._load_names()
        return len(self._names)

    def _index(self, key: str) -> int:
        i = self._reader.find(key)
        if i >= 0:
            return i
        self._load_names()
        i = self._name_index.get(key, -1)
        if i < 0:
            raise NotFoundError(f"no tensor named {key!r} in {self.prefix}")
        return i

    def __contains__(self, key: object) -> bool:
        if not isinstance(key, (str, bytes)):
            return False
        try:
            self._index(key)
            return True
        except NotFoundError:
            return False

    def info(self, key: str) -> TensorInfo:
        """dtype, shape, stored bytes and checksum of one tensor (no data read)."""
        return self._info(self._index(key))

    def _info(self, i: int) -> TensorInfo:
        self._load_names()
        key, dtype, dtype_enum, shape, size, crc, shard, offset, slices = self._reader.info(i)
        return TensorInfo(
            key=key,
            name=self._index_name.get(i, key),
            dtype=dtype,
            dtype_enum=dtype_enum,
            shape=tuple(shape),
            size=size,
            crc32c=crc,
            shard_id=shard,
            offset=offset,
            slices=tuple(tuple(s) for s in slices),
            optimizer_state=self._optimizer.get(i, False),
        )

    # ---- values ----------------------------------------------------------

    def _finish(self, value, info_tuple) -> np.ndarray:
        dtype, shape = info_tuple[1], info_tuple[3]
        if isinstance(value, list):  # strings: bytes objects
            out = np.empty(len(value), dtype=object)
            out[:] = value
            return out.reshape(shape)
        return _dtypes.view(value, dtype)

    def __getitem__(self, key: str) -> np.ndarray:
        """The whole value, read and checked against its stored checksum.
        Strings come back as an object array of ``bytes``; bfloat16 and the
        other types numpy lacks through ml_dtypes (see ckpt._dtypes)."""
        i = self._index(key)
        return self._finish(self._reader.read(i), self._reader.info(i))

    def get(self, key: str, default: Any = None) -> Any:
        return self[key] if key in self else default

    def read_many(
        self, keys: List[str], progress: Progress = None, threads: int = 0
    ) -> Dict[str, np.ndarray]:
        """Several values in one checksummed pass (large ones in parallel),
        by the keys given."""
        indices = [self._index(k) for k in keys]
        values = self._reader.read_many(indices, progress, threads)
        return {
            k: self._finish(v, self._reader.info(i)) if _needs_finish(v, self._reader, i) else v
            for k, i, v in zip(keys, indices, values)
        }

    def to_dict(self, raw: bool = False, progress: Progress = None, threads: int = 0) -> Dict[str, np.ndarray]:
        """Every value, by object-graph name (or raw key), in one pass:
        ``progress(done_bytes, total_bytes, phase)`` is called as it goes,
        and Ctrl-C stops it."""
        if raw:
            keys = self._reader.keys()
            indices = list(range(len(keys)))
        else:
            self._load_names()
            keys = self._names
            indices = [self._name_index[n] for n in keys]
        values = self._reader.read_many(indices, progress, threads)
        out = {}
        for k, i, v in zip(keys, indices, values):
            out[k] = self._finish(v, self._reader.info(i)) if _needs_finish(v, self._reader, i) else v
        return out

    def items(self) -> Iterator[Tuple[str, np.ndarray]]:
        for k in self.keys():
            yield k, self[k]

    def slice(self, key: str) -> Rows:
        """Row access that reads only the rows asked for (see :class:`Rows`)."""
        i = self._index(key)
        return Rows(self, i, self._info(i))

    def _read_rows(self, index: int, begin: int, end: int, info: TensorInfo) -> np.ndarray:
        return _dtypes.view(self._reader.read_rows(index, begin, end), info.dtype)


def _needs_finish(value, reader, index) -> bool:
    # Fast path for to_dict: numpy-native arrays come back final.
    return isinstance(value, list) or _dtypes.needs_view(value)
