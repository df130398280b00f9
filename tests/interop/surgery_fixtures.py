#!/usr/bin/env python3
"""Checkpoint surgery against TensorFlow: the oracle for
tests/interop/tst_surgery_interop.cpp (`ckpt merge` and `ckpt edit`,
engine/include/ckpt/surgery.h).

    surgery_fixtures.py OUT_DIR          # writes sources + OUT_DIR/surgery.json
    surgery_fixtures.py --check OUT_DIR  # after the driver ran every case:
                                         # OUT_DIR/check.json

The first mode writes the sources with TensorFlow and lists the cases: the
`ckpt` arguments of each, whether it must succeed, the fragments its error
must name, and what the second mode checks. The driver runs the cases
(every source's bytes hashed before and after, every result through
`ckpt verify`); then this script, in the second mode, reads each result
with tf.train.load_checkpoint (exactly the expected keys, values equal to
numpy's) and restores it with tf.train.Checkpoint.read() into the
program it stands for with assert_consumed(); the restored program is
written again by TensorFlow, and its values under our keys must be the
ones we wrote (so the restore put them where they belong).

Sources:
  keras/ckpt-1..3  a Keras 3 Sequential (4 -> 8 relu "dense" -> 1 "head")
                   with keras.optimizers.Adam, trained between writes;
                   `checkpoint` lists them (a run directory). Its step
                   counter is optimizer/_iterations (int64).
  mlp/ckpt-1..3    a tf.Module MLP (dense 4->8, head 8->1, float32) trained
                   with tf.compat.v1.train.AdamOptimizer (real slot
                   variables), a bfloat16 and a float16 variable nudged by
                   hand, an int64 `step` and a string `tag` at the root.
  mlp_variant/ckpt the MLP with model.hf float32 and model.frozen 4x3:
                   not averageable with mlp/* (both named).
  shards/a, /b     mlp/ckpt-3's tensors split in two bundles by
                   tf.raw_ops.SaveV2, the object graph in the first, and
                   the two halves of a partitioned [4, 3] tensor: what
                   several workers write before MergeV2Checkpoints.
  tf_merged/ckpt   tf.raw_ops.MergeV2Checkpoints of copies of the shards.
  parts/encoder,   tf.train.Checkpoint(encoder=...) and (decoder=...): two
  parts/decoder    object graphs with disjoint keys.
  parts/encoder2   another encoder: its keys conflict with parts/encoder.

Averages are computed with numpy in float64 from load_checkpoint's values
and cast to the tensor's dtype; ours must agree to one unit in the last
place of that dtype (the engine may sum in another order). Tensors that are
not floating point (the step counters among them) must equal the latest
source's: the highest step, the last given among equals; the result's
"base" names that source and its step.

check.json: {"cases": {name: {"ok", "problems": [...], "checked": n}}}
"""
import json
import logging
import os
import shutil
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("KERAS_BACKEND", "tensorflow")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

tf.get_logger().setLevel(logging.ERROR)
import keras  # noqa: E402

from tf_judge import GRAPH_KEY, SUFFIX, judge_cases, keys_of, ulp_problems, values_of  # noqa: E402
from tf_judge import Check as Findings  # noqa: E402

SLICED_KEY = "extra/sliced" + SUFFIX  # a partitioned tensor no object names

# ---- programs --------------------------------------------------------------

def keras_model(compiled=True):
    """The Keras program. Compiled, the model tracks its optimizer too
    (model.optimizer); uncompiled it is the model alone."""
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(8, activation="relu", name="dense"),
                              keras.layers.Dense(1, name="head")])
    if not compiled:
        return model, None
    opt = keras.optimizers.Adam(0.01)
    model.compile(optimizer=opt, loss="mse")
    return model, opt


def keras_train(model, rng, steps=2):
    x = rng.standard_normal((16, 4)).astype(np.float32)
    y = rng.standard_normal((16, 1)).astype(np.float32)
    model.fit(x, y, epochs=steps, batch_size=8, verbose=0)


class Dense(tf.Module):
    def __init__(self, rng, n_in, n_out, kernel=True):
        super().__init__()
        if kernel:
            self.kernel = tf.Variable(rng.uniform(-0.7, 0.7, (n_in, n_out)).astype(np.float32))
        self.bias = tf.Variable(rng.uniform(-0.1, 0.1, n_out).astype(np.float32))


class Mlp:
    """The tf.Module program. 'dense' names the first layer's attribute;
    kernel=False leaves its kernel out; moved_head puts the second layer at
    model.heads.main instead of model.head; variant changes model.hf's
    dtype and model.frozen's shape."""

    def __init__(self, rng, dense="dense", kernel=True, variant=False, moved_head=False):
        self.model = tf.Module()
        self.dense = Dense(rng, 4, 8, kernel)
        setattr(self.model, dense, self.dense)
        self.head = Dense(rng, 8, 1)
        if moved_head:
            self.model.heads = tf.Module()
            self.model.heads.main = self.head
        else:
            self.model.head = self.head
        self.model.bf = tf.Variable(tf.cast(rng.standard_normal((5, 3)).astype(np.float32), tf.bfloat16))
        self.model.hf = tf.Variable(rng.standard_normal(7).astype(np.float32 if variant else np.float16))
        self.model.frozen = tf.Variable(rng.standard_normal((4 if variant else 3, 3)).astype(np.float32))
        self.opt = tf.compat.v1.train.AdamOptimizer(0.05)
        self.step = tf.Variable(0, dtype=tf.int64)
        self.tag = tf.Variable("run-0")
        self.x = tf.constant(rng.standard_normal((16, 4)).astype(np.float32))
        self.y = tf.constant(rng.standard_normal((16, 1)).astype(np.float32))

    def trainable(self):
        head = [self.head.kernel, self.head.bias]
        return ([self.dense.kernel] if hasattr(self.dense, "kernel") else []) + [self.dense.bias] + head

    def train(self, steps):
        for _ in range(steps):
            with tf.GradientTape() as tape:
                h = self.x @ self.dense.kernel if hasattr(self.dense, "kernel") else self.x[:, :1] * tf.ones([1, 8])
                h = tf.nn.relu(h + self.dense.bias)
                loss = tf.reduce_mean(tf.square(h @ self.head.kernel + self.head.bias - self.y))
            variables = self.trainable()
            self.opt.apply_gradients(zip(tape.gradient(loss, variables), variables))
            self.step.assign_add(1)

    def nudge(self, rng):
        self.model.bf.assign_add(tf.cast(rng.standard_normal((5, 3)).astype(np.float32) * 0.1, tf.bfloat16))
        self.model.hf.assign_add(tf.cast(rng.standard_normal(7) * 0.1, self.model.hf.dtype))
        self.tag.assign("run-%d" % int(self.step.numpy()))

    def checkpoint(self, optimizer=True, optimizer_name="optimizer"):
        parts = {"model": self.model, "step": self.step, "tag": self.tag}
        if optimizer:
            parts[optimizer_name] = self.opt
        return tf.train.Checkpoint(**parts)


def encoder(rng):
    return Dense(rng, 3, 4)


# ---- reading ---------------------------------------------------------------

def is_optimizer_key(key):
    return key.startswith("optimizer/") or "/.OPTIMIZER_SLOT/" in key


def keras_optimizer_only(key):
    # Keras 3 tracks the model's variables under the optimizer too
    # (optimizer/_trainable_variables/N): TensorFlow keys them there because
    # its walk reaches them first. They are the model's, not optimizer state.
    return key.startswith("optimizer/") and not key.startswith("optimizer/_trainable_variables/")


def keras_model_keys(scratch):
    """Source key -> the key TensorFlow gives the same variable when it saves
    the model alone: without the optimizer, the walk reaches the model's
    variables through the model (a result without the optimizer must key
    them so, as the keys follow their object's path)."""
    model, opt = fresh_keras(5)
    alone_model, _ = keras_model(compiled=False)
    for i, (v, w) in enumerate(zip(model.weights, alone_model.weights)):
        v.assign(tf.fill(v.shape, float(i + 1)))
        w.assign(v)
    full = values_of(tf.train.Checkpoint(model=model, optimizer=opt).write(os.path.join(scratch, "keys-full")))
    alone = values_of(tf.train.Checkpoint(model=alone_model).write(os.path.join(scratch, "keys-model")))
    by_value = {float(v.flat[0]): k for k, (_, v) in alone.items()}
    return {k: by_value[float(v.flat[0])] for k, (_, v) in full.items()
            if not keras_optimizer_only(k) and v.size and float(v.flat[0]) in by_value}


# ---- numpy oracles ---------------------------------------------------------

def combine(method, arrays, params):
    xs = [np.asarray(a).astype(np.float64) for a in arrays]
    if method == "mean":
        w = np.asarray(params.get("weights") or [1.0] * len(xs), np.float64)
        w = w / w.sum()
        return sum(wi * x for wi, x in zip(w, xs))
    if method == "ema":
        d = params["decay"]
        e = xs[0]
        for x in xs[1:]:
            e = d * e + (1 - d) * x
        return e
    if method == "slerp":
        # Along the arc between the flattened tensors, as model-merging tools
        # (mergekit) do; the straight line where they are nearly parallel
        # (|cos| >= 0.9995) or one is zero. params["arcs"] counts the arcs.
        t = params["t"]
        a, b = xs
        na, nb = np.linalg.norm(a), np.linalg.norm(b)
        if na > 0 and nb > 0:
            cos = float(np.clip(np.sum(a * b) / (na * nb), -1.0, 1.0))
            if abs(cos) < 0.9995:
                params["arcs"] = params.get("arcs", 0) + 1
                omega = np.arccos(cos)
                return (np.sin((1 - t) * omega) * a + np.sin(t * omega) * b) / np.sin(omega)
        return (1 - t) * a + t * b
    raise ValueError(method)


STEP_KEYS = ("step" + SUFFIX, "optimizer/_iterations" + SUFFIX)  # the mlp's, the Keras optimizer's


def step_of(prefix):
    values = values_of(prefix)
    for key in STEP_KEYS:
        if key in values:
            return int(values[key][1])
    raise ValueError("no step in " + prefix)


def latest_index(sources):
    """The source an average takes its step and other non-float tensors
    from: the highest step, the last given among equals."""
    steps = [step_of(p) for p in sources]
    return max(range(len(sources)), key=lambda i: (steps[i], i))


def averaged(case):
    sources = [values_of(p) for p in case["sources"]]
    base = sources[latest_index(case["sources"])]
    out = {}
    for key, (dtype, value) in base.items():
        if case.get("weights_only") and case["optimizer_only"](key):
            continue
        ours = case.get("rekey", {}).get(key, key)
        if dtype.is_floating:
            exact = combine(case["method"], [s[key][1] for s in sources], case)
            out[ours] = (dtype, exact.astype(value.dtype), exact)
        else:
            out[ours] = (dtype, value, None)
    return out


# ---- checks ----------------------------------------------------------------

class Check(Findings):
    """One case's findings. 'scratch' is where TensorFlow writes restored
    programs again."""

    def __init__(self, name, scratch):
        super().__init__(name)
        self.scratch = scratch

    def keys(self, prefix, expected):
        keys = keys_of(prefix) - {GRAPH_KEY}
        if keys != set(expected):
            self.fail("keys differ: only ours %s, only expected %s" %
                      (sorted(keys - set(expected)), sorted(set(expected) - keys)))

    def values(self, prefix, expected):
        """expected: key -> (dtype, value, float64 exact or None)."""
        ours = values_of(prefix)
        for key, (dtype, value, exact) in sorted(expected.items()):
            if key not in ours:
                continue  # reported by keys()
            odt, ov = ours[key]
            if odt != dtype or ov.shape != np.asarray(value).shape:
                self.fail("%s: %s%s, expected %s%s" % (key, odt.name, list(ov.shape), dtype.name,
                                                        list(np.asarray(value).shape)))
                continue
            self.checked += 1
            if exact is not None:
                self.problems += ulp_problems(key, dtype, ov, value, exact)
            elif not np.array_equal(ov, value):
                self.fail("%s: value differs from the expected one" % key)

    def restored(self, prefix, read_root, write_root, unnamed=()):
        """read_root restores 'prefix' with assert_consumed(); write_root
        (holding the same objects, maybe more) is written again by
        TensorFlow and must store our values under our keys, but for the
        'unnamed' keys, which no object of the graph names."""
        try:
            read_root.read(prefix).assert_consumed()
        except AssertionError as e:
            self.fail("assert_consumed(): %s" % str(e)[:1500])
            return
        again = write_root.write(os.path.join(self.scratch, self.name))
        theirs = values_of(again)
        for key, (_, value) in values_of(prefix).items():
            if key in unnamed:
                continue
            if key not in theirs:
                self.fail("%s: restored nowhere TensorFlow saves it again" % key)
            elif not np.array_equal(theirs[key][1], value):
                self.fail("%s: restored value differs from the stored one" % key)
            else:
                self.checked += 1

def fresh_keras(seed):
    model, opt = keras_model()
    keras_train(model, np.random.default_rng(seed), steps=1)  # builds the optimizer's variables
    return model, opt


def fresh_mlp(seed, **kw):
    m = Mlp(np.random.default_rng(seed), **kw)
    m.train(1)  # the v1 optimizer's slots exist once it has taken a step
    return m


def check_average(c, case):
    expected = averaged(case)
    c.keys(case["dst"], expected)
    c.values(case["dst"], expected)
    if case["method"] == "slerp" and not case.get("arcs"):
        c.fail("every tensor pair is nearly parallel: the arc of slerp is untested")
    copied = [k for k, (_, _, exact) in expected.items() if exact is None]
    base = latest_index(case["sources"])
    other = values_of(case["sources"][1 if base == 0 else 0])
    if copied and not any(not np.array_equal(other[k][1], expected[k][1]) for k in copied):
        c.fail("no non-float tensor differs between the sources: 'taken from the latest' is untested")
    if case["program"] == "keras" and case.get("weights_only"):
        model, _ = keras_model(compiled=False)
        root = tf.train.Checkpoint(model=model)
        c.restored(case["dst"], root, root)
    elif case["program"] == "keras":
        model, opt = fresh_keras(99)
        root = tf.train.Checkpoint(model=model, optimizer=opt)
        c.restored(case["dst"], root, root)
    else:
        m = fresh_mlp(99)
        c.restored(case["dst"], m.checkpoint(optimizer=not case.get("weights_only")), m.checkpoint())


def check_same_as(c, dst, source, drop=(), rename=None, replace=None):
    src = values_of(source)
    expected = {}
    for key, (dtype, value) in src.items():
        if key in drop:
            continue
        if rename and key.startswith(rename[0]):
            key = rename[1] + key[len(rename[0]):]
        if rename and len(rename) == 4:  # and the optimizer's path inside slot keys
            key = key.replace(rename[2], rename[3])
        expected[key] = (dtype, value, None)
    for key, value in (replace or {}).items():
        expected[key] = (expected[key][0], value, None)
    c.keys(dst, expected)
    c.values(dst, expected)


def run_check(case, scratch):
    c = Check(case["name"], scratch)
    kind = case["check"]
    dst = case.get("dst")
    if kind == "average":
        case["optimizer_only"] = keras_optimizer_only if case["program"] == "keras" else is_optimizer_key
        if case["program"] == "keras" and case.get("weights_only"):
            case["rekey"] = keras_model_keys(scratch)
        check_average(c, case)
    elif kind == "merge-shards":
        # TensorFlow's MergeV2Checkpoints of the same shards is the oracle:
        # the same keys, the same values (the partitioned tensor assembled).
        tf_merged = values_of(case["tf_merged"])
        whole = values_of(case["whole"])
        if not set(whole) <= set(tf_merged) or not np.array_equal(tf_merged[case["sliced"]][1], np.load(case["sliced_npy"])):
            c.fail("MergeV2Checkpoints' result is not the sharded checkpoint: the fixture is wrong")
        c.keys(dst, tf_merged)
        c.values(dst, {k: (d, v, None) for k, (d, v) in tf_merged.items()})
        m = fresh_mlp(98)
        c.restored(dst, m.checkpoint(), m.checkpoint(), unnamed={case["sliced"]})
    elif kind == "merge-parts":
        expected = {}
        for p in case["sources"]:
            expected.update({k: (d, v, None) for k, (d, v) in values_of(p).items()})
        c.keys(dst, expected)
        c.values(dst, expected)
        rng = np.random.default_rng(97)
        root = tf.train.Checkpoint(encoder=encoder(rng), decoder=Dense(rng, 4, 2))
        c.restored(dst, root, root)
    elif kind == "edit-rename":
        check_same_as(c, dst, case["source"], rename=("model/dense/", "model/dense_renamed/"))
        m = fresh_mlp(96, dense="dense_renamed")
        c.restored(dst, m.checkpoint(), m.checkpoint())
    elif kind == "edit-move":
        check_same_as(c, dst, case["source"], rename=("model/head/", "model/heads/main/"))
        m = fresh_mlp(92, moved_head=True)
        c.restored(dst, m.checkpoint(), m.checkpoint())
    elif kind == "edit-rename-optimizer":
        # Slot keys name their optimizer's path: they follow it too.
        check_same_as(c, dst, case["source"], rename=("optimizer/", "opt/", "/.OPTIMIZER_SLOT/optimizer/",
                                                      "/.OPTIMIZER_SLOT/opt/"))
        m = fresh_mlp(91)
        root = m.checkpoint(optimizer_name="opt")
        c.restored(dst, root, root)
    elif kind == "edit-strip":
        src = values_of(case["source"])
        check_same_as(c, dst, case["source"], drop={k for k in src if is_optimizer_key(k)})
        m = fresh_mlp(95)
        c.restored(dst, m.checkpoint(optimizer=False), m.checkpoint())
    elif kind == "edit-delete":
        src = values_of(case["source"])
        gone = {k for k in src if k.startswith("model/dense/kernel/")}
        if len(gone) != 3:
            c.fail("expected the kernel and its two slots in the source, found %s" % sorted(gone))
        check_same_as(c, dst, case["source"], drop=gone)
        m = fresh_mlp(94, kernel=False)
        c.restored(dst, m.checkpoint(), m.checkpoint())
    elif kind == "edit-set":
        replace = {k: np.load(f) for k, f in case["sets"].items()}
        check_same_as(c, dst, case["source"], replace=replace)
        m = fresh_mlp(93)
        c.restored(dst, m.checkpoint(), m.checkpoint())
        for key, value in replace.items():
            if values_of(dst)[key][1].tobytes() != value.tobytes():
                c.fail("%s: TensorFlow reads other bytes than the .npy's" % key)
    elif kind == "absent":
        for path in case["absent"]:
            if os.path.exists(path):
                c.fail("%s exists after a dry run" % path)
            c.checked += 1
    else:
        c.fail("unknown check %r" % kind)
    return c.result()


# ---- writing ---------------------------------------------------------------

def write_sources(out):
    rng = np.random.default_rng(20261126)
    keras.utils.set_random_seed(1)
    p = {}

    model, opt = keras_model()
    root = tf.train.Checkpoint(model=model, optimizer=opt)
    run = os.path.join(out, "keras")
    p["keras"] = []
    for i in (1, 2, 3):
        keras_train(model, rng)
        p["keras"].append(root.write(os.path.join(run, "ckpt-%d" % i)))
    # The state file a tf.train.CheckpointManager keeps: the directory lists its checkpoints.
    tf.compat.v1.train.update_checkpoint_state(run, p["keras"][-1], all_model_checkpoint_paths=p["keras"])

    m = Mlp(rng)
    p["mlp"] = []
    for i in (1, 2, 3):
        m.train(3)
        m.nudge(rng)
        p["mlp"].append(m.checkpoint().write(os.path.join(out, "mlp", "ckpt-%d" % i)))
    v = Mlp(rng, variant=True)
    v.train(1)
    p["variant"] = v.checkpoint().write(os.path.join(out, "mlp_variant", "ckpt"))

    # Two workers' bundles: mlp/ckpt-3's tensors, alternately, the graph in the first.
    reader = tf.train.load_checkpoint(p["mlp"][2])
    keys = sorted(k for k in reader.get_variable_to_shape_map() if k != GRAPH_KEY)
    halves = ([GRAPH_KEY] + keys[0::2], keys[1::2])
    os.makedirs(os.path.join(out, "shards"), exist_ok=True)
    os.makedirs(os.path.join(out, "tf_merge_in"), exist_ok=True)
    # A partitioned variable, rows 0-1 in the first bundle and 2-3 in the
    # second (TensorFlow's slice specs: full shape, then start,length per dim).
    sliced = rng.standard_normal((4, 3)).astype(np.float32)
    np.save(os.path.join(out, "sliced.npy"), sliced)
    p["shards"] = []
    for name, names, rows in zip("ab", halves, ("0,2", "2,2")):
        prefix = os.path.join(out, "shards", name)
        start = int(rows.split(",")[0])
        tf.raw_ops.SaveV2(prefix=prefix, tensor_names=names + [SLICED_KEY],
                          shape_and_slices=[""] * len(names) + ["4 3 %s:-" % rows],
                          tensors=[tf.constant(reader.get_tensor(k)) for k in names] + [sliced[start:start + 2]])
        p["shards"].append(prefix)
        for f in os.listdir(os.path.join(out, "shards")):
            if f.startswith(name + "."):
                shutil.copy(os.path.join(out, "shards", f), os.path.join(out, "tf_merge_in", f))
    # MergeV2Checkpoints deletes its inputs: it merges copies.
    p["tf_merged"] = os.path.join(out, "tf_merged", "ckpt")
    tf.raw_ops.MergeV2Checkpoints(checkpoint_prefixes=[os.path.join(out, "tf_merge_in", n) for n in "ab"],
                                  destination_prefix=p["tf_merged"], delete_old_dirs=False)

    p["encoder"] = tf.train.Checkpoint(encoder=encoder(rng)).write(os.path.join(out, "parts", "encoder"))
    p["decoder"] = tf.train.Checkpoint(decoder=Dense(rng, 4, 2)).write(os.path.join(out, "parts", "decoder"))
    p["encoder2"] = tf.train.Checkpoint(encoder=encoder(rng)).write(os.path.join(out, "parts", "encoder2"))

    np.save(os.path.join(out, "bias.npy"), (np.arange(8) * 0.25 - 1).astype(np.float32))
    np.save(os.path.join(out, "hf.npy"), np.linspace(-2, 2, 7).astype(np.float16))
    np.save(os.path.join(out, "bias_f64.npy"), np.zeros(8, np.float64))
    np.save(os.path.join(out, "bias_9.npy"), np.zeros(9, np.float32))
    return p


def cases_for(out, p):
    d = os.path.join(out, "out")
    os.makedirs(d, exist_ok=True)
    cases = []

    def case(name, args, check=None, errors=None, unchanged=(), **extra):
        c = {"name": name, "args": args, "ok": errors is None, "errors": errors or [], "unchanged": list(unchanged)}
        if check:
            c["check"] = check
        c.update(extra)
        if c["ok"] and "dst" not in c and check not in (None, "absent"):
            raise ValueError(name)
        cases.append(c)

    def copied(program, sources, weights_only=False):
        """The tensors that are not floating point, which the result takes from
        the latest source: its notes must name each one."""
        dropped = keras_optimizer_only if program == "keras" else is_optimizer_key
        return sorted(k for k, (dtype, _) in values_of(sources[0]).items()
                      if not dtype.is_floating and not (weights_only and dropped(k)))

    def based(sources):
        """What the result's "base" names: the latest source and its step."""
        latest = sources[latest_index(sources)]
        return {"base": latest, "base_step": step_of(latest)}

    def average(name, program, sources, flags, method, args=None, **params):
        dst = os.path.join(d, name)
        args = args or ["merge", dst, *sources, "--average", *flags, "--json"]
        case(name, [a if a != "DST" else dst for a in args], "average", unchanged=sources, dst=dst, program=program,
             sources=sources, method=method, notes=copied(program, sources, params.get("weights_only", False)),
             **based(sources), **params)

    k, mlp = p["keras"], p["mlp"]
    average("average-mean-keras", "keras", k, [], "mean")
    average("average-mean-mlp", "mlp", mlp, [], "mean")
    # The latest source given first: its step still wins.
    average("average-mean-mlp-latest-first", "mlp", mlp[::-1], [], "mean")
    average("average-weighted-mlp", "mlp", mlp, ["--weights", "1,2,5"], "mean", weights=[1, 2, 5])
    # Options before the paths, as docs/cli.md writes them: the weights are one value, not DST and the sources.
    average("average-weighted-options-first", "mlp", mlp, [], "mean", weights=[1, 2, 5],
            args=["merge", "--average", "--weights", "1,2,5", "DST", *mlp, "--json"])
    average("average-weighted-equals-form", "mlp", mlp, [], "mean", weights=[1, 2, 5],
            args=["merge", "--average", "--weights=1,2,5", "DST", *mlp, "--json"])
    average("average-ema-keras", "keras", k, ["--ema", "0.75"], "ema", decay=0.75)
    # EMA runs over the sources in step order, whatever order they are given in.
    dst = os.path.join(d, "average-ema-keras-unordered")
    case("average-ema-keras-unordered", ["merge", dst, k[2], k[0], k[1], "--average", "--ema", "0.75", "--json"],
         "average", unchanged=k, dst=dst, program="keras", sources=k, method="ema", decay=0.75,
         notes=copied("keras", k), **based(k))
    average("average-slerp-mlp", "mlp", mlp[:2], ["--slerp", "0.3"], "slerp", t=0.3)
    average("average-weights-only-keras", "keras", k, ["--weights-only"], "mean", weights_only=True)
    average("average-weights-only-mlp", "mlp", mlp, ["--weights-only"], "mean", weights_only=True)
    # A run directory stands for the checkpoints its state file lists; --last 2 keeps ckpt-2 and ckpt-3.
    dst = os.path.join(d, "average-last-2-keras")
    case("average-last-2-keras", ["merge", dst, os.path.join(out, "keras"), "--average", "--last", "2", "--json"],
         "average", unchanged=k, dst=dst, program="keras", sources=k[1:], method="mean", notes=copied("keras", k[1:]),
         **based(k[1:]))

    dst = os.path.join(d, "merge-shards")
    case("merge-shards", ["merge", dst, *p["shards"], "--json"], "merge-shards", unchanged=p["shards"], dst=dst,
         whole=mlp[2], tf_merged=p["tf_merged"], sliced=SLICED_KEY, sliced_npy=os.path.join(out, "sliced.npy"))
    dst = os.path.join(d, "merge-parts")
    case("merge-parts", ["merge", dst, p["encoder"], p["decoder"], "--json"], "merge-parts",
         unchanged=[p["encoder"], p["decoder"]], dst=dst, sources=[p["encoder"], p["decoder"]])

    src = mlp[2]
    dst = os.path.join(d, "edit-rename")
    case("edit-rename", ["edit", src, dst, "--rename", "model.dense=model.dense_renamed", "--json"], "edit-rename",
         unchanged=[src], dst=dst, source=src)
    # A move: the missing parent (model.heads) is created as a plain object.
    dst = os.path.join(d, "edit-move")
    case("edit-move", ["edit", src, dst, "--rename", "model.head=model.heads.main", "--json"], "edit-move",
         unchanged=[src], dst=dst, source=src)
    dst = os.path.join(d, "edit-rename-optimizer")
    case("edit-rename-optimizer", ["edit", src, dst, "--rename", "optimizer=opt", "--json"], "edit-rename-optimizer",
         unchanged=[src], dst=dst, source=src)
    dst = os.path.join(d, "edit-strip")
    case("edit-strip", ["edit", src, dst, "--strip-optimizer", "--json"], "edit-strip", unchanged=[src], dst=dst,
         source=src)
    dst = os.path.join(d, "edit-delete-forced")
    case("edit-delete-forced", ["edit", src, dst, "--delete", "model.dense.kernel", "--force", "--json"],
         "edit-delete", unchanged=[src], dst=dst, source=src)
    dst = os.path.join(d, "edit-set")
    bias_key = "model/dense/bias" + SUFFIX
    case("edit-set", ["edit", src, dst, "--set", bias_key + "=" + os.path.join(out, "bias.npy"), "--set",
                      "model.hf=" + os.path.join(out, "hf.npy"), "--json"], "edit-set", unchanged=[src], dst=dst,
         source=src, sets={bias_key: os.path.join(out, "bias.npy"), "model/hf" + SUFFIX: os.path.join(out, "hf.npy")})
    dst = os.path.join(d, "edit-dry-run")
    case("edit-dry-run", ["edit", src, dst, "--rename", "model.dense=model.dense_renamed", "--dry-run", "--json"],
         "absent", unchanged=[src], absent=[dst + ".index", dst + ".data-00000-of-00001", d + "/edit-dry-run"],
         stdout=["model/dense_renamed/kernel" + SUFFIX])

    # Refusals: the error names the problem, nothing is written, sources untouched.
    def refused(name, args, errors, unchanged, dst):
        case(name, args, "absent", errors=errors, unchanged=unchanged, absent=[dst + ".index"])

    dst = os.path.join(d, "merge-conflict")
    refused("merge-conflict", ["merge", dst, p["encoder"], p["encoder2"]],
            ["encoder/kernel" + SUFFIX, "encoder/bias" + SUFFIX], [p["encoder"], p["encoder2"]], dst)
    dst = os.path.join(d, "average-mismatch")
    refused("average-mismatch", ["merge", dst, mlp[0], p["variant"], "--average"],
            ["model/hf" + SUFFIX, "model/frozen" + SUFFIX], [mlp[0], p["variant"]], dst)
    dst = os.path.join(d, "edit-delete-refused")
    # The slot variables left dangling, as TensorFlow names them, and the way out.
    slots = ["(root).optimizer's state '%s' for (root).model.dense.kernel" % s for s in ("m", "v")]
    refused("edit-delete-refused", ["edit", src, dst, "--delete", "model.dense.kernel"], slots + ["--force"], [src], dst)
    dst = os.path.join(d, "edit-rename-onto-existing")
    refused("edit-rename-onto-existing", ["edit", src, dst, "--rename", "model.dense=model.head"], ["head"], [src],
            dst)
    dst = os.path.join(d, "edit-unknown-path")
    refused("edit-unknown-path", ["edit", src, dst, "--delete", "model.nope"], ["nope"], [src], dst)
    dst = os.path.join(d, "edit-set-dtype")
    refused("edit-set-dtype", ["edit", src, dst, "--set", bias_key + "=" + os.path.join(out, "bias_f64.npy")],
            ["DT_DOUBLE[8]", "DT_FLOAT[8]"], [src], dst)
    dst = os.path.join(d, "edit-set-shape")
    refused("edit-set-shape", ["edit", src, dst, "--set", bias_key + "=" + os.path.join(out, "bias_9.npy")],
            ["[9]", "[8]"], [src], dst)
    refused("edit-dst-is-source", ["edit", src, src, "--strip-optimizer"], [src], [src], os.path.join(d, "none"))
    refused("average-dst-inside-source", ["merge", os.path.join(out, "keras", "avg"), os.path.join(out, "keras"),
                                          "--average"], [os.path.join(out, "keras")], k,
            os.path.join(out, "keras", "avg"))
    return cases


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--check":
        out = sys.argv[2]
        with open(os.path.join(out, "surgery.json")) as f:
            doc = json.load(f)
        scratch = os.path.join(out, "scratch")
        os.makedirs(scratch, exist_ok=True)
        return judge_cases(out, doc["cases"], lambda case: run_check(case, scratch))
    out = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "surgery_interop_out")
    os.makedirs(out, exist_ok=True)
    p = write_sources(out)
    doc = {"tensorflow_version": tf.__version__, "keras_version": keras.__version__, "numpy_version": np.__version__,
           "cases": cases_for(out, p)}
    with open(os.path.join(out, "surgery.json"), "w") as f:
        json.dump(doc, f, indent=1)
    print("wrote %d cases to %s" % (len(doc["cases"]), out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
