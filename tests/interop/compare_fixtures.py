#!/usr/bin/env python3
"""Checkpoints to compare, written by TensorFlow, and numpy's figures for
them: the oracle for tests/interop/tst_compare_interop.cpp (ckpt diff and
ckpt history, docs/cli.md "diff").

    compare_fixtures.py OUT_DIR      # writes OUT_DIR/compare.json + checkpoints

The program is a small tf.Module MLP (4 -> 8 ReLU -> 1, float32) trained
with tf.compat.v1.train.AdamOptimizer (so it has real slot variables),
plus a float64 vector trained with it, a bfloat16 and a half variable
nudged by hand between saves, a float32 variable that never changes, and
an int64 `step`:

  series/ckpt-1..4  tf.train.CheckpointManager saves, three training steps apart
  base/ckpt         Checkpoint(model, optimizer, step).write() after the series
  renamed/ckpt      the same objects, but model.dense2 is model.head
  moved/ckpt        the same objects, the model one level deeper: (root).outer.model
  nan/ckpt          one more training step, then dense1.kernel[1,2] = NaN
                    and dense1.kernel[3,5] = +inf

Figures are computed in float64 from tf.train.load_checkpoint values, as
the engine's contract says (ckpt/tensor_diff.h): max/mean |a-b|, max
|a-b|/|b|, the L2 norms, relative L2 and cosine over the pairs where both
values are finite; mismatches = count of not numpy.isclose(a, b, rtol,
atol, equal_nan=True) for floats, of a != b for integers. Non-finite
figures are written as the strings "nan", "inf", "-inf".

compare.json:
  {"tensorflow_version", "numpy_version",
   "tolerance": {"atol", "rtol"},            # the explicit tolerance of "mismatches"
   "default_tolerance": {dtype name: {"atol", "rtol"}},
   "checkpoints": {name: prefix},
   "pairs": [{"name", "a", "b",              # checkpoint names
              "keys": {key: {"dtype", "shape", "elements", "equal_bytes",
                             "max_abs", "max_abs_index", "max_abs_unique",
                             "max_rel", "max_rel_index", "max_rel_unique",
                             "mean_abs", "norm_a", "norm_b", "norm_diff",
                             "rel_l2", "cosine", "mismatches",
                             "mismatches_default", "nans_a", "nans_b",
                             "infs_a", "infs_b"}}}],
   "histories": [{"name", "checkpoints": [names],
                  "keys": {key: {"points": [{"norm", "rel_change", "mean",
                                             "std", "min", "max", "nans",
                                             "infs", "unchanged"}],
                                 "first_non_finite": int | null}},
                  "global_norm": [...], "global_rel_change": [...],
                  "first_non_finite": int | null}]}
"""
import json
import logging
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

tf.get_logger().setLevel(logging.ERROR)

OBJECT_GRAPH_KEY = "_CHECKPOINTABLE_OBJECT_GRAPH"
TOLERANCE = {"atol": 1e-4, "rtol": 1e-3}
# ckpt/tensor_diff.h: torch.testing.assert_close's defaults per dtype.
DEFAULT_TOLERANCE = {
    "float32": {"atol": 1e-5, "rtol": 1.3e-6},
    "float64": {"atol": 1e-7, "rtol": 1e-7},
    "float16": {"atol": 1e-5, "rtol": 1e-3},
    "bfloat16": {"atol": 1e-5, "rtol": 1.6e-2},
}


class Dense(tf.Module):
    def __init__(self, rng, n_in, n_out):
        super().__init__()
        self.kernel = tf.Variable(rng.uniform(-0.7, 0.7, (n_in, n_out)).astype(np.float32))
        self.bias = tf.Variable(np.zeros([n_out], np.float32))


def build(rng):
    model = tf.Module()
    model.dense1 = Dense(rng, 4, 8)
    model.dense2 = Dense(rng, 8, 1)
    model.wide = tf.Variable(rng.standard_normal(16))  # float64
    model.bf = tf.Variable(tf.cast(rng.standard_normal((5, 3)).astype(np.float32), tf.bfloat16))
    model.hf = tf.Variable(rng.standard_normal(7).astype(np.float16))
    model.frozen = tf.Variable(rng.standard_normal((3, 3)).astype(np.float32))
    return model


def number(v):
    v = float(v)
    if np.isnan(v):
        return "nan"
    if np.isinf(v):
        return "inf" if v > 0 else "-inf"
    return v


def argmax_first(values):
    """Index of the largest value (numpy's first), and whether it is the only one."""
    i = int(np.argmax(values))
    return i, bool(np.count_nonzero(values == values[i]) == 1)


def pair_figures(a_raw, b_raw, dtype):
    a = np.asarray(a_raw).astype(np.float64).reshape(-1)
    b = np.asarray(b_raw).astype(np.float64).reshape(-1)
    finite = np.isfinite(a) & np.isfinite(b)
    fa, fb = a[finite], b[finite]
    d = np.abs(fa - fb)
    idx = np.flatnonzero(finite)
    out = {"elements": int(a.size), "equal_bytes": bool(np.asarray(a_raw).tobytes() == np.asarray(b_raw).tobytes())}
    if d.size:
        i, unique = argmax_first(d)
        out.update(max_abs=number(d[i]), max_abs_index=int(idx[i]), max_abs_unique=unique, mean_abs=number(d.mean()))
        with np.errstate(divide="ignore", invalid="ignore"):
            rel = np.where(fb != 0, d / np.abs(fb), np.where(d == 0, 0.0, np.inf))
        j, unique = argmax_first(rel)
        out.update(max_rel=number(rel[j]), max_rel_index=int(idx[j]), max_rel_unique=unique)
    else:
        out.update(max_abs=0.0, max_abs_index=-1, max_abs_unique=True, mean_abs=0.0, max_rel=0.0, max_rel_index=-1,
                   max_rel_unique=True)
    norm_a, norm_b, norm_diff = (float(np.sqrt(np.sum(x * x))) for x in (fa, fb, fa - fb))
    if norm_a == 0:
        rel_l2 = 0.0 if norm_diff == 0 else np.inf
    else:
        rel_l2 = norm_diff / norm_a
    cosine = float(np.dot(fa, fb)) / (norm_a * norm_b) if norm_a > 0 and norm_b > 0 else np.nan
    out.update(norm_a=norm_a, norm_b=norm_b, norm_diff=norm_diff, rel_l2=number(rel_l2), cosine=number(cosine))
    if dtype.is_integer or dtype == tf.bool:
        out["mismatches"] = out["mismatches_default"] = int(np.count_nonzero(a != b))
    else:
        out["mismatches"] = int(np.count_nonzero(~np.isclose(a, b, equal_nan=True, **TOLERANCE)))
        out["mismatches_default"] = int(
            np.count_nonzero(~np.isclose(a, b, equal_nan=True, **DEFAULT_TOLERANCE[dtype.name])))
    out.update(nans_a=int(np.isnan(a).sum()), nans_b=int(np.isnan(b).sum()), infs_a=int(np.isinf(a).sum()),
               infs_b=int(np.isinf(b).sum()))
    return out


def values_of(prefix):
    reader = tf.train.load_checkpoint(prefix)
    dtypes = reader.get_variable_to_dtype_map()
    return {k: (dtypes[k], np.asarray(reader.get_tensor(k))) for k in reader.get_variable_to_shape_map()
            if k != OBJECT_GRAPH_KEY}


def diff_oracle(name, a_name, b_name, prefixes):
    a, b = values_of(prefixes[a_name]), values_of(prefixes[b_name])
    keys = {}
    for key in sorted(set(a) & set(b)):
        (dta, va), (dtb, vb) = a[key], b[key]
        if dta != dtb or va.shape != vb.shape or dta == tf.string:
            continue
        f = pair_figures(va, vb, dta)
        f.update(dtype=dta.name, shape=list(va.shape))
        keys[key] = f
    return {"name": name, "a": a_name, "b": b_name, "keys": keys}


def history_oracle(name, names, prefixes):
    series = [values_of(prefixes[n]) for n in names]
    keys = {}
    sq_norm = [0.0] * len(names)
    sq_diff = [0.0] * len(names)
    sq_prev = [0.0] * len(names)
    first_any = None
    for key in sorted(series[0]):
        if series[0][key][0] == tf.string:
            continue
        # The run's global figures count weights only: counters such as the
        # int64 step are not (docs/cli.md, "ckpt history").
        weight = series[0][key][0].is_floating or series[0][key][0].is_complex
        points, prev, first = [], None, None
        for i, values in enumerate(series):
            raw = values[key][1]
            x = raw.astype(np.float64).reshape(-1)
            fin = x[np.isfinite(x)]
            p = {"norm": float(np.sqrt(np.sum(fin * fin))), "nans": int(np.isnan(x).sum()), "infs": int(np.isinf(x).sum())}
            if fin.size:
                p.update(mean=number(fin.mean()), std=number(fin.std()), min=number(fin.min()), max=number(fin.max()))
            else:
                p.update(mean="nan", std="nan", min="nan", max="nan")
            p["unchanged"] = prev is not None and prev[1].tobytes() == raw.tobytes()
            if prev is None:
                p["rel_change"] = "nan"
            else:
                px = prev[0]
                both = np.isfinite(x) & np.isfinite(px)
                pn = float(np.sqrt(np.sum(px[both] ** 2)))
                dn = float(np.sqrt(np.sum((x[both] - px[both]) ** 2)))
                p["rel_change"] = number(dn / pn) if pn > 0 else "nan"
                if weight:
                    sq_diff[i] += dn * dn
                    sq_prev[i] += pn * pn
            if first is None and (p["nans"] or p["infs"]):
                first = i
            if weight:
                sq_norm[i] += p["norm"] ** 2
            points.append(p)
            prev = (x, raw)
        keys[key] = {"points": points, "first_non_finite": first}
        if first is not None and (first_any is None or first < first_any):
            first_any = first
    global_rel = ["nan"] + [number(np.sqrt(sq_diff[i]) / np.sqrt(sq_prev[i])) if sq_prev[i] > 0 else "nan"
                            for i in range(1, len(names))]
    return {"name": name, "checkpoints": names, "keys": keys, "global_norm": [float(np.sqrt(s)) for s in sq_norm],
            "global_rel_change": global_rel, "first_non_finite": first_any}


def main():
    out = os.path.abspath(sys.argv[1])
    os.makedirs(out, exist_ok=True)
    rng = np.random.default_rng(14)
    model = build(rng)
    opt = tf.compat.v1.train.AdamOptimizer(0.05)
    step = tf.Variable(0, dtype=tf.int64)
    trained = [model.dense1.kernel, model.dense1.bias, model.dense2.kernel, model.dense2.bias, model.wide]
    x = tf.constant(rng.standard_normal((64, 4)).astype(np.float32))
    y = tf.reduce_sum(tf.sin(x), axis=1, keepdims=True)
    target = tf.constant(rng.standard_normal(16))

    def loss():
        h = tf.nn.relu(x @ model.dense1.kernel + model.dense1.bias)
        mse = tf.reduce_mean((h @ model.dense2.kernel + model.dense2.bias - y) ** 2)
        return mse + tf.cast(0.1 * tf.reduce_sum((model.wide - target) ** 2), tf.float32)

    def train(n):
        for _ in range(n):
            opt.minimize(loss, var_list=trained)
            step.assign_add(1)
        # The low-precision variables are nudged by hand, outside the optimizer.
        model.bf.assign(tf.cast(tf.cast(model.bf, tf.float32) + rng.normal(0, 0.05, (5, 3)).astype(np.float32),
                                tf.bfloat16))
        model.hf.assign((model.hf.numpy().astype(np.float32) + rng.normal(0, 0.01, 7)).astype(np.float16))

    prefixes = {}
    ckpt = tf.train.Checkpoint(model=model, optimizer=opt, step=step)
    manager = tf.train.CheckpointManager(ckpt, os.path.join(out, "series"), max_to_keep=None)
    for i in range(1, 5):
        train(3)
        prefixes["series-%d" % i] = manager.save()
    prefixes["base"] = tf.train.Checkpoint(model=model, optimizer=opt, step=step).write(os.path.join(out, "base", "ckpt"))

    renamed = tf.Module()
    renamed.dense1 = model.dense1
    renamed.head = model.dense2
    renamed.wide, renamed.bf, renamed.hf, renamed.frozen = model.wide, model.bf, model.hf, model.frozen
    prefixes["renamed"] = tf.train.Checkpoint(model=renamed, optimizer=opt, step=step).write(
        os.path.join(out, "renamed", "ckpt"))

    outer = tf.Module()
    outer.model = model
    prefixes["moved"] = tf.train.Checkpoint(outer=outer, optimizer=opt, step=step).write(
        os.path.join(out, "moved", "ckpt"))

    train(1)
    kernel = model.dense1.kernel.numpy()
    kernel[1, 2] = np.nan
    kernel[3, 5] = np.inf
    model.dense1.kernel.assign(kernel)
    prefixes["nan"] = tf.train.Checkpoint(model=model, optimizer=opt, step=step).write(os.path.join(out, "nan", "ckpt"))

    doc = {
        "tensorflow_version": tf.__version__,
        "numpy_version": np.__version__,
        "tolerance": TOLERANCE,
        "default_tolerance": DEFAULT_TOLERANCE,
        "checkpoints": prefixes,
        "pairs": [
            diff_oracle("series ckpt-1 vs ckpt-2", "series-1", "series-2", prefixes),
            diff_oracle("series ckpt-1 vs ckpt-4", "series-1", "series-4", prefixes),
            diff_oracle("base vs nan", "base", "nan", prefixes),
        ],
        "histories": [
            history_oracle("series", ["series-1", "series-2", "series-3", "series-4"], prefixes),
            history_oracle("base then nan", ["base", "nan"], prefixes),
        ],
    }
    with open(os.path.join(out, "compare.json"), "w") as f:
        json.dump(doc, f, indent=1, allow_nan=False)


if __name__ == "__main__":
    main()
