"""Checks that TensorFlow reads and restores checkpoints written by ckpt.

usage: tf_restore_check.py PREFIX [PREFIX...]

For each prefix: tf.train.load_checkpoint reads every tensor (the caller
compares the printed sha256 of each value's bytes with its own values), then
a program with the demo trainer's structure, tf.train.Checkpoint(model=...,
optimizer=..., step=...), restores it with assert_consumed() and every
restored variable must equal load_checkpoint's value.
Prints one JSON line per prefix; exit status 1 on any failure.
"""
import hashlib
import json
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

GRAPH_KEY = "_CHECKPOINTABLE_OBJECT_GRAPH"
SLOT_NAMES = ("m", "v")
HYPERS = ("beta_1", "beta_2", "decay", "learning_rate")


class Dense(tf.Module):
    def __init__(self, kernel_shape, bias_shape):
        super().__init__()
        self.kernel = tf.Variable(tf.zeros(kernel_shape))
        self.bias = tf.Variable(tf.zeros(bias_shape))


class LegacyAdam(tf.compat.v1.train.AdamOptimizer):
    """A v1 optimizer (it owns slot variables) with the hyper-parameter
    variables a legacy Keras Adam tracks, so the object graph matches."""

    def __init__(self):
        super().__init__(learning_rate=0.01)
        self._track_trackable(tf.Variable(0, dtype=tf.int64), name="iter")
        for name in HYPERS:
            self._track_trackable(tf.Variable(0.0), name=name)


def build(shapes):
    model = tf.Module()
    layers = []
    i = 0
    while f"model/layer_with_weights-{i}/kernel/.ATTRIBUTES/VARIABLE_VALUE" in shapes:
        base = f"model/layer_with_weights-{i}"
        layer = Dense(shapes[f"{base}/kernel/.ATTRIBUTES/VARIABLE_VALUE"],
                      shapes[f"{base}/bias/.ATTRIBUTES/VARIABLE_VALUE"])
        setattr(model, f"layer_with_weights-{i}", layer)
        setattr(model, f"layer-{i}", layer)
        layers.append((base, layer))
        i += 1
    optimizer = LegacyAdam()
    step = tf.Variable(0, dtype=tf.int64)
    ckpt = tf.train.Checkpoint(model=model, optimizer=optimizer, step=step)
    return ckpt, model, optimizer, step, layers


def check(prefix):
    reader = tf.train.load_checkpoint(prefix)
    shapes = reader.get_variable_to_shape_map()
    values = {k: reader.get_tensor(k) for k in shapes if k != GRAPH_KEY}
    ckpt, model, optimizer, step, layers = build(shapes)
    status = ckpt.restore(prefix)
    # Creating the slots after restore() triggers their deferred restoration.
    for _, layer in layers:
        for var in (layer.kernel, layer.bias):
            for slot in SLOT_NAMES:
                optimizer._zeros_slot(var, slot, optimizer._name)
    status.assert_consumed()
    compared = 0

    def same(key, var):
        nonlocal compared
        if not np.array_equal(var.numpy(), values[key]):
            raise AssertionError(f"{key}: restored value differs from load_checkpoint's")
        compared += 1

    for base, layer in layers:
        same(f"{base}/kernel/.ATTRIBUTES/VARIABLE_VALUE", layer.kernel)
        same(f"{base}/bias/.ATTRIBUTES/VARIABLE_VALUE", layer.bias)
        for var, name in ((layer.kernel, "kernel"), (layer.bias, "bias")):
            for slot in SLOT_NAMES:
                same(f"{base}/{name}/.OPTIMIZER_SLOT/optimizer/{slot}/.ATTRIBUTES/VARIABLE_VALUE",
                     optimizer.get_slot(var, slot))
    same("step/.ATTRIBUTES/VARIABLE_VALUE", step)
    same("save_counter/.ATTRIBUTES/VARIABLE_VALUE", ckpt.save_counter)
    return {"prefix": prefix, "ok": True, "tensors": len(values), "compared": compared,
            "sha256": {k: hashlib.sha256(np.ascontiguousarray(v).tobytes()).hexdigest()
                       for k, v in sorted(values.items()) if np.asarray(v).dtype.kind in "fiub"}}


def main(argv):
    failed = False
    for prefix in argv[1:]:
        try:
            result = check(prefix)
        except Exception as e:  # report every prefix, fail at the end
            result = {"prefix": prefix, "ok": False, "error": f"{type(e).__name__}: {e}"}
            failed = True
        print(json.dumps(result), flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
