#!/usr/bin/env python3
"""Converts a TensorFlow checkpoint to safetensors with PyTorch-style names,
without TensorFlow: what Hugging Face's TF->PyTorch converters do, on the
ckpt package (docs/python.md).

    convert_to_safetensors.py CHECKPOINT OUT.safetensors [--all] [--keep-names]

CHECKPOINT is a prefix, a directory (its latest checkpoint) or a SavedModel.
Every value is read once, checked against the checksum TensorFlow stored,
renamed, and written with the safetensors library. Optimizer state is left
out unless --all is given.

The name mapping is the usual TF -> PyTorch one: the object path's dots
and slashes become dots, "kernel" becomes "weight" (transposed for 2-D
dense kernels, as torch.nn.Linear stores [out, in]), "gamma"/"beta" of
normalisation layers become "weight"/"bias", "embeddings" becomes "weight".
"""

import argparse
import re
import sys

import numpy as np
from safetensors.numpy import save_file

import ckpt

_RENAMES = [
    (re.compile(r"\.kernel$"), ".weight"),
    (re.compile(r"\.gamma$"), ".weight"),
    (re.compile(r"\.beta$"), ".bias"),
    (re.compile(r"\.embeddings$"), ".weight"),
]


def torch_name(name: str) -> str:
    """'model/layer_with_weights-0/kernel' style paths -> 'model.layer_with_weights-0.weight'."""
    name = name.replace("/", ".")
    for pattern, replacement in _RENAMES:
        name = pattern.sub(replacement, name)
    return name


def torch_value(name: str, value: np.ndarray) -> np.ndarray:
    # Dense kernels are [in, out] in TensorFlow and [out, in] in torch.nn.Linear.
    if name.endswith(".kernel") and value.ndim == 2:
        return np.ascontiguousarray(value.T)
    return value


def convert(source: str, output: str, include_optimizer: bool = False, keep_names: bool = False) -> dict:
    tensors = {}
    with ckpt.open(source) as c:
        names = [n for n in c.keys() if include_optimizer or not c.info(n).optimizer_state]
        values = c.read_many(names)
        for name in names:
            value = values[name]
            if value.dtype == object:
                print(f"skipping {name}: strings cannot go into safetensors", file=sys.stderr)
                continue
            out_name = name if keep_names else torch_name(name)
            tensors[out_name] = value if keep_names else torch_value(name, value)
        metadata = {"format": "pt", "source": c.prefix}
        if c.step.step is not None:
            metadata["step"] = str(c.step.step)
    save_file(tensors, output, metadata=metadata)
    return tensors


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("checkpoint")
    ap.add_argument("output")
    ap.add_argument("--all", action="store_true", help="also write optimizer state")
    ap.add_argument("--keep-names", action="store_true", help="object-graph names and TensorFlow layouts, unchanged")
    a = ap.parse_args(argv)
    try:
        tensors = convert(a.checkpoint, a.output, a.all, a.keep_names)
    except ckpt.OpError as e:
        print(f"convert_to_safetensors: {e}", file=sys.stderr)
        return 1
    print(f"wrote {a.output}: {len(tensors)} tensors")
    return 0


if __name__ == "__main__":
    sys.exit(main())
