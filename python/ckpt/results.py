"""Results of ckpt's operations: dicts keyed like ``ckpt … --json``.

Every operation returns a :class:`Record`, a ``dict`` whose keys are the
field names ``ckpt <command> --json`` prints (docs/cli.md), nested records
and lists included, so ``json.dumps(result)`` works and scripts move
between the CLI and Python without renaming anything. Fields also read as
attributes: ``report.ok``, ``report.problems[0].message``.

Two differences from the CLI's JSON, both in Python's favour: figures that
are NaN or infinite are floats (the JSON writes null and "inf"), and keys,
names and paths are ``str`` even when they are not valid UTF-8 (decoded
with surrogateescape; the JSON escapes such bytes as ``\\xNN``).
"""

from __future__ import annotations

from typing import Any


class Record(dict):
    """A dict whose keys also read as attributes."""

    __slots__ = ()

    def __getattr__(self, name: str) -> Any:
        try:
            return self[name]
        except KeyError:
            raise AttributeError(
                f"{type(self).__name__} has no field {name!r} (fields: {', '.join(self)})"
            ) from None

    def __dir__(self):
        return list(self) + list(super().__dir__())


def record(value: Any) -> Any:
    """Dicts (recursively, through lists too) as Records."""
    if isinstance(value, dict):
        return Record((k, record(v)) for k, v in value.items())
    if isinstance(value, list):
        return [record(v) for v in value]
    return value
