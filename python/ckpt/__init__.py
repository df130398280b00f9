"""Read and manage TensorFlow checkpoints without TensorFlow.

``ckpt`` is the ckpt-explorer engine (the C++ library behind the ``ckpt``
command and the explorer) for Python scripts::

    import ckpt

    with ckpt.open("runs/exp1") as c:              # prefix, directory or SavedModel
        print(c.step.step, len(c))
        weights = c.to_dict()                      # every value, checksums verified

    report = ckpt.verify("runs/exp1")              # as `ckpt verify --json`
    ckpt.export("runs/exp1", "model.safetensors")  # written, read back, compared

Values are numpy arrays that own the buffer the engine read into (one copy
in memory). Operations return :class:`ckpt.results.Record` dicts keyed like
``ckpt <command> --json`` (docs/cli.md). Errors are ``ckpt.errors``
classes named like ``tf.errors``. Long calls release the GIL, stop on
Ctrl-C and take ``progress(done, total, phase)`` callbacks.
``ckpt.compat`` has drop-ins for ``tf.train.load_checkpoint``,
``list_variables`` and ``load_variable``. More: docs/python.md.
"""

from __future__ import annotations

import os
import time
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence, Tuple, Union

from . import _ckpt
from ._checkpoint import Checkpoint, Node, Rows, Step, TensorInfo
from .errors import (
    AlreadyExistsError,
    CancelledError,
    DataLossError,
    FailedPreconditionError,
    InternalError,
    InvalidArgumentError,
    NotFoundError,
    OpError,
    OutOfRangeError,
    PermissionDeniedError,
    ResourceExhaustedError,
    UnimplementedError,
)
from .results import Record, record

__version__ = "0.1.0"

__all__ = [
    "open",
    "Checkpoint",
    "TensorInfo",
    "Step",
    "Node",
    "Rows",
    "Record",
    "list_checkpoints",
    "verify",
    "diff",
    "history",
    "retention_plan",
    "retention_apply",
    "export",
    "import_arrays",
    "reshard",
    "merge",
    "average",
    "edit",
    "restore",
    "catalog_add",
    "catalog_scan",
    "catalog_list",
    "catalog_search",
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

PathLike = Union[str, "os.PathLike[str]"]
Progress = Optional[Callable[[int, int, str], Any]]


def _path(p: PathLike) -> str:
    return os.fsdecode(p) if not isinstance(p, str) else p


def _paths(ps: Union[PathLike, Iterable[PathLike]]) -> List[str]:
    if isinstance(ps, (str, bytes, os.PathLike)):
        return [_path(ps)]
    return [_path(p) for p in ps]


def open(path: PathLike) -> Checkpoint:  # noqa: A001 - the natural name, like io.open
    """Opens a checkpoint: a prefix (``runs/exp1/ckpt-5``), its ``.index``, a
    directory (the state file's latest, else its only or highest-numbered
    checkpoint) or a SavedModel directory. Reads and checks the index; the
    object graph is decoded when names or the tree are first asked for (its
    errors are raised then), values when they are read. Use it in a
    ``with`` block, or call ``close()``."""
    return Checkpoint(_ckpt.Reader.open(_path(path)))


# ---- reading -----------------------------------------------------------------


def list_checkpoints(path: PathLike, count_tensors: bool = True) -> Record:
    """Every checkpoint in a directory (or the directory of a prefix or
    SavedModel) by training step: ``ckpt list --json``."""
    return record(_ckpt.list_checkpoints(_path(path), count_tensors))


def verify(path: PathLike, threads: int = 0, progress: Progress = None) -> Record:
    """Every index block, tensor checksum and data file: ``ckpt verify --json``.
    Problems are findings (``report.ok`` is False), not exceptions."""
    return record(_ckpt.verify(_path(path), threads, progress))


def diff(
    a: PathLike,
    b: PathLike,
    *,
    weights_only: bool = False,
    include: Sequence[str] = (),
    exclude: Sequence[str] = (),
    atol: Optional[float] = None,
    rtol: Optional[float] = None,
    exact: bool = False,
    nan_equal: bool = True,
    count: int = 10,
    slice: Optional[str] = None,  # noqa: A002 - the CLI's --slice
    read_all: bool = False,
    all: bool = False,  # noqa: A002 - the CLI's --all
    threads: int = 0,
    progress: Progress = None,
) -> Record:
    """What changed between two checkpoints: ``ckpt diff --json`` (``equal``
    says whether anything differs beyond tolerance)."""
    return record(
        _ckpt.diff(
            _path(a), _path(b), weights_only, list(include), list(exclude), atol, rtol, exact, nan_equal,
            count, slice, read_all, all, threads, progress,
        )
    )


def history(
    paths: Union[PathLike, Sequence[PathLike]],
    *,
    keys: Sequence[str] = (),
    exclude: Sequence[str] = (),
    weights_only: bool = False,
    threads: int = 0,
    progress: Progress = None,
) -> Record:
    """Every variable across a run's checkpoints (a directory, or two or more
    checkpoints in order): ``ckpt history --json``."""
    return record(_ckpt.history(_paths(paths), list(keys), list(exclude), weights_only, threads, progress))


def _policy_json(policy: Union[Dict[str, Any], str]) -> str:
    import json

    return policy if isinstance(policy, str) else json.dumps(policy)


def _retention(directory, policy, owner, adopt, at, apply):
    now = time.time() if at is None else at
    return record(_ckpt.retention(_path(directory), _policy_json(policy), owner, adopt, now, apply))


def retention_plan(
    directory: PathLike,
    policy: Union[Dict[str, Any], str],
    *,
    owner: str = "",
    adopt: bool = False,
    at: Optional[float] = None,
) -> Record:
    """Which checkpoints a retention policy keeps and deletes, and why,
    without deleting anything: ``ckpt retention plan --json``. 'policy' is
    the JSON policy of docs/scheduling.md, as a dict or text; 'at' the time
    to plan for (Unix seconds, default now)."""
    return _retention(directory, policy, owner, adopt, at, apply=False)


def retention_apply(
    directory: PathLike,
    policy: Union[Dict[str, Any], str],
    *,
    owner: str = "",
    adopt: bool = False,
    at: Optional[float] = None,
) -> Record:
    """Plans as :func:`retention_plan` and deletes the plan's deletions
    (only ``owner``'s checkpoints, re-checked first): ``ckpt retention apply --json``."""
    return _retention(directory, policy, owner, adopt, at, apply=True)


# ---- writing -----------------------------------------------------------------


def export(
    source: PathLike,
    output: PathLike,
    *,
    names: str = "paths",
    weights_only: bool = False,
    skip_unsupported: bool = False,
    overwrite: bool = False,
    progress: Progress = None,
) -> Record:
    """A checkpoint as .safetensors or .npz (by the output's extension),
    written, read back and compared bit for bit before it is renamed into
    place: ``ckpt export --json``. ``names="keys"`` keeps checkpoint keys."""
    return record(
        _ckpt.export(_path(source), _path(output), names, weights_only, skip_unsupported, overwrite, progress)
    )


def import_arrays(
    input: PathLike,  # noqa: A002 - the CLI's IN
    destination: PathLike,
    *,
    spec: PathLike,
    overwrite: bool = False,
    shards: int = 0,
    max_shard_bytes: int = 0,
    by_task: bool = False,
    progress: Progress = None,
) -> Record:
    """A .safetensors or .npz file into a new checkpoint shaped by a model
    spec (docs/model-spec.md), verified: ``ckpt import --json``."""
    return record(
        _ckpt.import_arrays(
            _path(input), _path(destination), _path(spec), overwrite, shards, max_shard_bytes, by_task, progress
        )
    )


def reshard(
    source: PathLike,
    destination: PathLike,
    *,
    shards: int = 0,
    max_shard_bytes: int = 0,
    by_task: bool = False,
    overwrite: bool = False,
) -> Record:
    """The same values with another sharding, verified: ``ckpt reshard --json``.
    A checkpoint already at ``destination`` is replaced only with ``overwrite``."""
    return record(_ckpt.reshard(_path(source), _path(destination), shards, max_shard_bytes, by_task, overwrite))


def merge(
    sources: Sequence[PathLike],
    destination: PathLike,
    *,
    overwrite: bool = False,
    shards: int = 0,
    max_shard_bytes: int = 0,
    by_task: bool = False,
    progress: Progress = None,
) -> Record:
    """Bundles with disjoint keys (several workers' saves) as one: ``ckpt merge --json``."""
    return record(
        _ckpt.merge(_paths(sources), _path(destination), overwrite, shards, max_shard_bytes, by_task, progress)
    )


def average(
    sources: Sequence[PathLike],
    destination: PathLike,
    *,
    method: str = "mean",
    weights: Sequence[float] = (),
    ema_decay: float = 0.9,
    slerp_t: float = 0.5,
    last: int = 0,
    weights_only: bool = False,
    overwrite: bool = False,
    shards: int = 0,
    max_shard_bytes: int = 0,
    by_task: bool = False,
    progress: Progress = None,
) -> Record:
    """Same-structure checkpoints combined in float64 ("mean", "ema" or
    "slerp"): ``ckpt merge --average --json``. A directory stands for its
    checkpoints; ``last`` keeps the K highest steps."""
    return record(
        _ckpt.average(
            _paths(sources), _path(destination), method, list(weights), ema_decay, slerp_t, last, weights_only,
            overwrite, shards, max_shard_bytes, by_task, progress,
        )
    )


def edit(
    source: PathLike,
    destination: PathLike,
    *,
    rename: Union[Dict[str, str], Sequence[Tuple[str, str]]] = (),
    delete: Sequence[str] = (),
    strip_optimizer: bool = False,
    set: Union[Dict[str, PathLike], Sequence[Tuple[str, PathLike]]] = (),  # noqa: A002 - the CLI's --set
    force: bool = False,
    dry_run: bool = False,
    overwrite: bool = False,
    shards: int = 0,
    max_shard_bytes: int = 0,
    by_task: bool = False,
    progress: Progress = None,
) -> Record:
    """Renames, deletions, optimizer stripping and values from .npy files,
    written to a new verified checkpoint (or only planned with
    ``dry_run``): ``ckpt edit --json``."""
    renames = list(rename.items()) if isinstance(rename, dict) else [tuple(r) for r in rename]
    sets = list(set.items()) if isinstance(set, dict) else [tuple(s) for s in set]
    return record(
        _ckpt.edit(
            _path(source), _path(destination), renames, list(delete), strip_optimizer,
            [(k, _path(v)) for k, v in sets], force, dry_run, overwrite, shards, max_shard_bytes, by_task, progress,
        )
    )


def restore(
    source: PathLike,
    into: PathLike,
    *,
    map: Sequence[str] = (),  # noqa: A002 - the CLI's --map
    assertion: str = "",
    expect_partial: bool = False,
    match_only: bool = False,
    out: Optional[PathLike] = None,
    force: bool = False,
    overwrite: bool = False,
) -> Record:
    """Matches a checkpoint against a model spec (or a template checkpoint)
    the way ``tf.train.Checkpoint.restore`` does, with TensorFlow's verdicts;
    ``out`` writes the restored program as a new verified checkpoint (over an
    existing one only with ``overwrite``; after a failed restore only with
    ``force``): ``ckpt restore --json``. ``assertion``: "consumed", "existing"
    or "nontrivial"."""
    return record(
        _ckpt.restore(
            _path(source), _path(into), list(map), assertion, expect_partial, match_only,
            _path(out) if out is not None else "", force, overwrite,
        )
    )


# ---- the catalog -------------------------------------------------------------
# 'catalog' is the database file; None is the user's
# ($XDG_DATA_HOME/ckpt-explorer/catalog.db), as for `ckpt catalog`.


def _catalog(catalog: Optional[PathLike]) -> str:
    return "" if catalog is None else _path(catalog)


def catalog_add(
    directories: Union[PathLike, Sequence[PathLike]],
    *,
    catalog: Optional[PathLike] = None,
    scan: bool = True,
    verify: bool = False,
    progress: Progress = None,
) -> Record:
    """Remembers directories in the catalog and (unless ``scan=False``) scans
    them: ``ckpt catalog add --json``."""
    return record(_ckpt.catalog_add(_paths(directories), _catalog(catalog), scan, verify, progress))


def catalog_scan(
    directories: Union[PathLike, Sequence[PathLike]] = (),
    *,
    catalog: Optional[PathLike] = None,
    verify: bool = False,
    progress: Progress = None,
) -> Record:
    """Records what changed under the catalog's directories (or these, each
    inside one), verifying what is new with ``verify``: ``ckpt catalog scan --json``."""
    return record(_ckpt.catalog_scan(_paths(directories), _catalog(catalog), verify, progress))


def catalog_list(directory: Optional[PathLike] = None, *, catalog: Optional[PathLike] = None) -> Record:
    """The catalog's directories and checkpoints with their health: ``ckpt catalog list --json``."""
    return record(_ckpt.catalog_list("" if directory is None else _path(directory), _catalog(catalog)))


def catalog_search(
    query: str,
    *,
    catalog: Optional[PathLike] = None,
    limit: int = 200,
    matches: int = 50,
    exact_totals: bool = False,
) -> Record:
    """Which catalogued checkpoints hold matching keys or object paths
    (``encoder/layer_3``, ``'kernel NOT optimizer'``): ``ckpt catalog search --json``.
    Past ``limit`` the totals may stop counting (``totals_exact`` False: they
    are lower bounds); ``exact_totals=True`` counts them all."""
    return record(_ckpt.catalog_search(query, _catalog(catalog), limit, matches, exact_totals))
