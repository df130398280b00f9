#!/usr/bin/env python3
"""TensorFlow's answers on the cases of issue #30, for tst_parity_interop.

    parity_cases.py OUT_DIR          # writes the sources + OUT_DIR/parity.json
    parity_cases.py --check OUT_DIR  # after the driver ran every case:
                                     # OUT_DIR/check.json

The first mode writes checkpoints with TensorFlow 2.20 and Keras 3 and lists
the cases: the `ckpt` arguments of each and what the second mode checks.
The driver (tst_parity_interop.cpp) runs every case through the built CLI,
keeps its stdout in OUT_DIR/stdout/<case>.txt (and in the case's
"stdout_file", for a later case to read) and checks its exit status;
then this script, in the second mode, judges each case by what TensorFlow
says:

  strings     `ckpt cat --json` of a string tensor decoded by the Python
              decoder docs/cli.md shows (run here, taken from the doc) gives
              the bytes tf.train.load_checkpoint gives, for every element.
  steps       `ckpt list --json` shows, for each checkpoint, the step
              TensorFlow reads from the variable its convention writes
              (Keras 3 optimizer/_iterations, TF1 `step`, TF1 and TF2
              global_step, ...), not the checkpoint number.
  readback    an output of a writer (reshard of every dtype, merge,
              average, edit, import, restore --out) is read by
              tf.train.load_checkpoint: exactly the expected keys with
              values equal to the source's (averages: numpy's float64 mean
              cast to the dtype, within one ulp), and restored into its
              program with assert_consumed().
  keep-plan   `ckpt retention plan --keep-latest K --keep-hours H` on a run
              saved without deletions keeps exactly the checkpoints
              TensorFlow's CheckpointManager(max_to_keep=K,
              keep_checkpoint_every_n_hours=H) kept over the same saves
              (time.time patched to fixed timestamps), and reports the
              last_preserved_timestamp TensorFlow's state file holds.
  keep-apply  `ckpt retention apply` leaves the same files and writes the
              same last_preserved_timestamp as TensorFlow; then
              TensorFlow's manager saves three more times into both
              directories and keeps the same files in each (it reads our
              state file as its own).

check.json: {"cases": {name: {"ok", "problems": [...], "checked": n}}}
"""
import base64  # noqa: F401  (the docs' decoder imports it too)
import glob
import json
import logging
import os
import re
import shutil
import sys
from unittest import mock

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("KERAS_BACKEND", "tensorflow")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

tf.get_logger().setLevel(logging.ERROR)
import keras  # noqa: E402

from tf_judge import GRAPH_KEY, SUFFIX, Check, judge_cases, keys_of, ulp_problems, values_of  # noqa: E402

DOCS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs", "cli.md")

# Byte strings JSON text cannot hold as they are: not UTF-8 (a lone 0x80,
# an overlong NUL, an encoded surrogate, a code point above U+10FFFF,
# truncated sequences), and UTF-8 ones that look like escapes.
HOSTILE_STRINGS = [b"\x80", b"\\x80", b"", b"caf\xc3\xa9", b"\x00nul\x00", b"\xc0\x80", b"\xed\xa0\x80",
                   b"\xf4\x90\x80\x80", b"\xe2\x82", b"\xff\xfe", b'"quoted"\n', "\u00e9\U0001F600".encode("utf-8"),
                   bytes(range(256))]

# Every dtype a tf.Variable holds (TensorFlow 2.20 writes and restores them).
DTYPES = ["float16", "bfloat16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
          "uint64", "bool", "complex64", "complex128", "string"]


# ---- sources -----------------------------------------------------------------

def dtype_value(name, rng, shape=(6, 4), scale=1.0):
    if name == "string":
        return np.array([[("s%d-" % i).encode() * (5 + i) for i in range(shape[1])] for _ in range(shape[0])], object)
    if name == "bool":
        return rng.random(shape) > 0.5
    if name.startswith("complex"):
        return (rng.standard_normal(shape) * scale + 1j * rng.standard_normal(shape)).astype(name)
    if name in ("float16", "float32", "float64"):
        return (rng.standard_normal(shape) * scale).astype(name)
    if name == "bfloat16":
        return (rng.standard_normal(shape) * scale).astype(np.float32)  # cast by TensorFlow
    info = np.iinfo(name)
    return rng.integers(max(info.min, -1000), min(info.max, 1000), shape).astype(name)


class DtypeModule(tf.Module):
    """One variable per dtype, named after it, plus a big string and a
    big half tensor (each larger than the shard cap the cases use)."""

    def __init__(self, rng, scale=1.0):
        super().__init__()
        for name in DTYPES:
            value = dtype_value(name, rng, scale=scale)
            dtype = tf.bfloat16 if name == "bfloat16" else tf.as_dtype(name)
            setattr(self, name + "_v", tf.Variable(tf.cast(value, dtype) if name == "bfloat16" else
                                                   tf.constant(value, dtype=dtype)))
        self.big_string = tf.Variable(tf.constant(dtype_value("string", rng, (40, 3)), dtype=tf.string))
        self.big_half = tf.Variable(tf.constant(dtype_value("float16", rng, (64, 8), scale), dtype=tf.float16))
        self.step = tf.Variable(0, dtype=tf.int64)


def dtype_root(module):
    return tf.train.Checkpoint(model=module, step=module.step)


def write_steps(out):
    """Runs whose step lives where each convention writes it; returns
    {case: (directory, [(checkpoint name, step key)])}."""
    runs = {}
    rng = np.random.default_rng(3)

    # Keras 3: the optimizer's iteration count; the manager numbers 1, 2.
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)])
    opt = keras.optimizers.Adam(0.01)
    model.compile(optimizer=opt, loss="mse")
    d = os.path.join(out, "steps", "keras3")
    manager = tf.train.CheckpointManager(tf.train.Checkpoint(model=model, optimizer=opt), d, max_to_keep=None)
    x, y = rng.standard_normal((8, 3)).astype(np.float32), rng.standard_normal((8, 2)).astype(np.float32)
    for epochs in (7, 5):
        model.fit(x, y, epochs=epochs, batch_size=8, verbose=0)
        manager.save()
    runs["keras3"] = (d, [("ckpt-1", "optimizer/_iterations" + SUFFIX), ("ckpt-2", "optimizer/_iterations" + SUFFIX)])

    # A compiled Keras 3 model saved alone: its optimizer under model/.
    d = os.path.join(out, "steps", "keras3_model")
    manager = tf.train.CheckpointManager(tf.train.Checkpoint(model=model), d, max_to_keep=None)
    model.fit(x, y, epochs=2, batch_size=8, verbose=0)
    manager.save()
    runs["keras3_model"] = (d, [("ckpt-1", "model/optimizer/_iterations" + SUFFIX)])

    # TF2: a root step, a root global_step, and a step beside an optimizer.
    for name, attr, values in (("tf2_step", "step", (40, 80)), ("tf2_global_step", "global_step", (300, 600))):
        v = tf.Variable(0, dtype=tf.int64)
        d = os.path.join(out, "steps", name)
        manager = tf.train.CheckpointManager(tf.train.Checkpoint(**{attr: v, "w": tf.Variable([1.0, 2.0])}), d,
                                             max_to_keep=None)
        for value in values:
            v.assign(value)
            manager.save()
        runs[name] = (d, [("ckpt-1", attr + SUFFIX), ("ckpt-2", attr + SUFFIX)])
    step = tf.Variable(5, dtype=tf.int64)
    d = os.path.join(out, "steps", "step_and_optimizer")
    tf.train.CheckpointManager(tf.train.Checkpoint(step=step, optimizer=opt, model=model), d, max_to_keep=None).save()
    runs["step_and_optimizer"] = (d, [("ckpt-1", "step" + SUFFIX)])

    # TF1 Savers, numbered 1 and 2 while the step variable holds 100, 200.
    for name in ("tf1_step", "tf1_global_step"):
        d = os.path.join(out, "steps", name)
        with tf.Graph().as_default():
            if name == "tf1_step":
                counter = tf.compat.v1.Variable(0, dtype=tf.int64, name="step")
            else:
                counter = tf.compat.v1.train.get_or_create_global_step()
            tf.compat.v1.get_variable("w", [3])
            bump = tf.compat.v1.assign_add(counter, 100)
            saver = tf.compat.v1.train.Saver()
            with tf.compat.v1.Session() as sess:
                sess.run(tf.compat.v1.global_variables_initializer())
                for i in (1, 2):
                    sess.run(bump)
                    saver.save(sess, os.path.join(d, "model.ckpt"), global_step=i, write_meta_graph=False)
        key = "step" if name == "tf1_step" else "global_step"
        runs[name] = (d, [("model.ckpt-1", key), ("model.ckpt-2", key)])
    return runs


def write_strings(out):
    v = tf.Variable(tf.constant(HOSTILE_STRINGS, dtype=tf.string))
    return tf.train.Checkpoint(s=v).write(os.path.join(out, "strings", "ckpt"))


# ---- keep_checkpoint_every_n_hours -----------------------------------------

T0 = 1.7e9
# (name, max_to_keep, hours, manager creation, save times (hours after T0),
#  index of the save before which a second manager takes over or None,
#  three more saves for the continuation)
KEEP_SEQUENCES = [
    ("every-half-hour", 3, 2.0, 0.0, [0.5 * i for i in range(1, 11)], None, [5.5, 6.0, 9.0]),
    ("irregular", 2, 1.0, 0.0, [0.2, 1.5, 1.6, 2.9, 3.0, 4.7, 4.8, 6.1, 8.0, 8.1], None, [8.2, 9.5, 12.0]),
    ("late-first-save", 3, 1.5, 0.0, [3.0, 3.1, 3.2, 4.6, 4.7, 6.3, 6.4, 6.5, 9.0, 9.1], None, [9.2, 9.3, 11.0]),
    ("two-managers", 2, 1.0, 0.0, [0.5, 1.0, 1.6, 2.0, 2.7, 3.1, 4.5, 4.6, 5.9, 7.0], 5, [7.5, 8.8, 9.0]),
]


def clock(hours):
    return mock.patch("time.time", return_value=T0 + hours * 3600.0)


def manager_for(d, created, max_to_keep, hours):
    with clock(created):
        root = tf.train.Checkpoint(w=tf.Variable([1.0, 2.0, 3.0]))
        # A new manager in an existing directory numbers on from its latest.
        latest = tf.train.latest_checkpoint(d)
        if latest:
            root.save_counter.assign(int(latest.rsplit("-", 1)[1]))
        return root, tf.train.CheckpointManager(root, d, max_to_keep=max_to_keep,
                                                keep_checkpoint_every_n_hours=hours)


def run_saves(d, created, times, max_to_keep, hours, handover=None):
    root, manager = manager_for(d, created, max_to_keep, hours)
    for i, at in enumerate(times):
        if handover is not None and i == handover:
            root, manager = manager_for(d, at - 0.05, max_to_keep, hours)
        with clock(at):
            root.w.assign_add([1.0, 1.0, 1.0])
            manager.save()


def indexes(d):
    return sorted(os.path.basename(p)[:-len(".index")] for p in glob.glob(os.path.join(d, "*.index")))


def state_of(d):
    state = tf.train.get_checkpoint_state(d)
    return {"last_preserved_timestamp": state.last_preserved_timestamp,
            "paths": [os.path.basename(p) for p in state.all_model_checkpoint_paths]}


def write_keep(out):
    runs = []
    for name, keep, hours, created, times, handover, _ in KEEP_SEQUENCES:
        base = os.path.join(out, "keep", name)
        run_saves(os.path.join(base, "tf"), created, times, keep, hours, handover)
        run_saves(os.path.join(base, "all"), created, times, None, None, handover)
        shutil.copytree(os.path.join(base, "all"), os.path.join(base, "applied"))
        runs.append({"sequence": name, "dir": base, "keep": keep, "hours": hours, "at": T0 + (times[-1] + 0.01) * 3600.0,
                     "tf_kept": indexes(os.path.join(base, "tf")), "tf_state": state_of(os.path.join(base, "tf"))})
    return runs


# ---- cases -----------------------------------------------------------------

def cases_for(out):
    rng = np.random.default_rng(20261130)
    d = os.path.join(out, "out")
    os.makedirs(d, exist_ok=True)
    cases = []

    def case(name, args, check=None, **extra):
        c = {"name": name, "args": args, "ok": True}
        if check:
            c["check"] = check
        c.update(extra)
        cases.append(c)

    strings = write_strings(out)
    case("cat-strings", ["cat", strings, "s" + SUFFIX, "--json", "--limit", "-1"], "strings", prefix=strings,
         key="s" + SUFFIX)

    for name, (directory, expected) in write_steps(out).items():
        case("steps-" + name, ["list", directory, "--json"], "steps", dir=directory, expected=expected)

    # Writers on every dtype: sources.
    a = DtypeModule(rng)
    dtypes = dtype_root(a).write(os.path.join(out, "dtypes", "ckpt-1"))
    a.step.assign(7)
    for v in a.trainable_variables:
        if v.dtype.is_floating or v.dtype.is_complex:
            v.assign(v * 2 + 1)
    dtypes2 = dtype_root(a).write(os.path.join(out, "dtypes", "ckpt-2"))
    parts = [tf.train.Checkpoint(first=DtypeModule(rng)).write(os.path.join(out, "parts", "first")),
             tf.train.Checkpoint(second=DtypeModule(rng)).write(os.path.join(out, "parts", "second"))]
    # Import: every dtype npz holds, new values under the template's keys.
    numeric_names = [n for n in DTYPES if n not in ("string", "bfloat16")]
    numeric_template = tf.train.Checkpoint(**{n + "_v": tf.Variable(tf.constant(dtype_value(n, rng), dtype=n))
                                              for n in numeric_names}).write(os.path.join(out, "import", "numeric"))
    np.savez(os.path.join(out, "import", "numeric.npz"),
             **{n + "_v" + SUFFIX: dtype_value(n, rng, scale=3.0) for n in numeric_names})

    for flags, tag in ((["--max-shard-bytes", "64"], "max-bytes"), (["--shards", "3"], "shards-3"),
                       (["--by-task"], "by-task")):
        dst = os.path.join(d, "reshard-" + tag)
        case("reshard-" + tag, ["reshard", dtypes, dst, *flags, "--json"], "readback", dst=dst, source=dtypes,
             program="dtypes")
    dst = os.path.join(d, "merge-parts")
    case("merge-parts", ["merge", dst, *parts, "--max-shard-bytes", "64", "--json"], "readback", dst=dst,
         sources=parts, program="parts")
    dst = os.path.join(d, "average")
    case("average", ["merge", "--average", dst, dtypes, dtypes2, "--max-shard-bytes", "64", "--json"], "readback",
         dst=dst, sources=[dtypes, dtypes2], program="dtypes", average=True)
    dst = os.path.join(d, "edit")
    case("edit", ["edit", dtypes, dst, "--rename", "model.int8_v=model.int8_renamed", "--max-shard-bytes", "64",
                  "--json"], "readback", dst=dst, source=dtypes, program="dtypes",
         rename=["model/int8_v/", "model/int8_renamed/"])
    spec = os.path.join(out, "import", "numeric-spec.json")
    case("spec-numeric", ["spec", numeric_template], stdout_file=spec)
    dst = os.path.join(d, "import")
    case("import", ["import", os.path.join(out, "import", "numeric.npz"), dst, "--spec", spec,
                    "--max-shard-bytes", "64", "--json"], "readback", dst=dst, source=numeric_template,
         npz=os.path.join(out, "import", "numeric.npz"), program="numeric")
    spec = os.path.join(out, "dtypes", "spec.json")
    case("spec-dtypes", ["spec", dtypes], stdout_file=spec)
    dst = os.path.join(d, "restored")
    case("restore-out", ["restore", dtypes, "--into", spec, "--assert", "consumed", "--out", dst, "--no-record"],
         "readback", dst=dst, source=dtypes, program="dtypes")

    for run in write_keep(out):
        policy = ["--keep-latest", str(run["keep"]), "--keep-hours", repr(run["hours"]), "--adopt",
                  "--at", repr(run["at"])]
        case("keep-plan-" + run["sequence"], ["retention", "plan", os.path.join(run["dir"], "all"), *policy, "--json"],
             "keep-plan", **run)
        case("keep-plan-tf-dir-" + run["sequence"],
             ["retention", "plan", os.path.join(run["dir"], "tf"), *policy, "--json"], "keep-plan", **run)
        case("keep-apply-" + run["sequence"],
             ["retention", "apply", os.path.join(run["dir"], "applied"), *policy, "--json"], "keep-apply", **run)
    return cases


# ---- checks ------------------------------------------------------------------

def docs_decoder():
    """The Python block of docs/cli.md's `ckpt cat` section, executed."""
    text = open(DOCS, encoding="utf-8").read()
    section = text[text.index("## `ckpt cat"):]
    section = section[:section.index("\n## ", 1)]
    block = re.search(r"```python\n(.*?)```", section, re.S)
    if not block:
        raise AssertionError("docs/cli.md's ckpt cat section shows no ```python decoder")
    scope = {}
    exec(compile(block.group(1), DOCS, "exec"), scope)  # noqa: S102 - our own documentation
    return scope["string_values"]


def check_strings(c, case, stdout):
    decode = docs_decoder()
    ours = decode(stdout)
    theirs = [bytes(b) for b in tf.train.load_checkpoint(case["prefix"]).get_tensor(case["key"]).reshape(-1)]
    if len(ours) != len(theirs):
        c.fail("%d elements decoded, TensorFlow reads %d" % (len(ours), len(theirs)))
    for i, (o, t) in enumerate(zip(ours, theirs)):
        c.equal("element %d" % i, o, t)
    # Different bytes never print the same (the issue's \x80 and "\\x80").
    printed = [json.dumps(v) for v in json.loads(stdout)["values"]]
    if len(set(printed)) != len(set(theirs)):
        c.fail("distinct byte strings print alike: %s" % printed)


def check_steps(c, case, stdout):
    listed = {os.path.basename(e["prefix"]): e for e in json.loads(stdout)["checkpoints"]}
    for name, key in case["expected"]:
        prefix = os.path.join(case["dir"], name)
        if key not in keys_of(prefix):
            c.fail("%s: TensorFlow wrote no %s (the fixture is wrong)" % (name, key))
            continue
        theirs = int(tf.train.load_checkpoint(prefix).get_tensor(key))
        if name not in listed:
            c.fail("%s is not listed" % name)
            continue
        c.equal("%s step" % name, listed[name]["step"], theirs)
        c.equal("%s step source" % name, listed[name].get("step_source"), key)


def program_for(kind):
    rng = np.random.default_rng(99)
    if kind == "dtypes":
        return dtype_root(DtypeModule(rng))
    if kind == "parts":
        return tf.train.Checkpoint(first=DtypeModule(rng), second=DtypeModule(rng))
    raise ValueError(kind)


def check_readback(c, case, out):
    dst = case["dst"]
    theirs = values_of(dst)  # TensorFlow must read every tensor, slices assembled
    if "sources" in case and not case.get("average"):
        expected = {}
        for p in case["sources"]:
            expected.update(values_of(p))
    elif case.get("average"):
        a, b = (values_of(p) for p in case["sources"])
        expected = {}
        for key, (dtype, value) in b.items():
            if dtype.is_floating or dtype.is_complex:
                exact = (a[key][1].astype(np.complex128 if dtype.is_complex else np.float64) +
                         value.astype(np.complex128 if dtype.is_complex else np.float64)) / 2
                expected[key] = (dtype, exact)
            else:
                expected[key] = (dtype, value)  # the latest source's
    elif "npz" in case:
        npz = np.load(case["npz"])
        expected = {k: (tf.as_dtype(npz[k].dtype), npz[k]) for k in npz.files}
    else:
        expected = values_of(case["source"])
        if "rename" in case:
            old, new = case["rename"]
            expected = {(new + k[len(old):] if k.startswith(old) else k): v for k, v in expected.items()}
    if set(theirs) != set(expected):
        c.fail("keys differ: only ours %s, only expected %s" % (sorted(set(theirs) - set(expected)),
                                                                 sorted(set(expected) - set(theirs))))
    for key in sorted(set(theirs) & set(expected)):
        (odt, ov), (edt, ev) = theirs[key], expected[key]
        if odt != edt or ov.shape != np.asarray(ev).shape:
            c.fail("%s: %s%s, expected %s%s" % (key, odt.name, list(ov.shape), edt.name, list(np.asarray(ev).shape)))
        elif case.get("average") and (edt.is_floating or edt.is_complex):
            problems = ulp_problems(key, edt, ov, np.asarray(ev).astype(edt.as_numpy_dtype), ev)
            if problems:
                c.problems += problems
            else:
                c.checked += 1
        elif ov.dtype == object:
            c.equal(key, [bytes(x) for x in ov.reshape(-1)], [bytes(x) for x in np.asarray(ev).reshape(-1)])
        elif ov.tobytes() != np.asarray(ev).astype(ov.dtype).tobytes():
            c.fail("%s: TensorFlow reads other values than expected" % key)
        else:
            c.checked += 1
    # TensorFlow restores the result into its program.
    kind = case["program"]
    if kind == "numeric":
        reader_keys = [k for k in keys_of(dst) if k != GRAPH_KEY]
        root = tf.train.Checkpoint(**{k.split("/")[0]: tf.Variable(np.zeros_like(theirs[k][1])) for k in reader_keys})
    elif kind == "dtypes" and "rename" in case:
        module = DtypeModule(np.random.default_rng(98))
        module.int8_renamed = module.int8_v
        delattr(module, "int8_v")
        root = dtype_root(module)
    else:
        root = program_for(kind)
    try:
        root.read(dst).assert_consumed()
        c.checked += 1
    except (AssertionError, tf.errors.OpError, ValueError) as e:
        c.fail("TensorFlow cannot restore it with assert_consumed(): %s" % str(e)[:800])


def plan_kept(stdout):
    plan = json.loads(stdout)
    return sorted(r["name"] for r in plan["checkpoints"] if r["verdict"] == "keep"), plan


def check_keep_plan(c, case, stdout):
    kept, plan = plan_kept(stdout)
    c.equal("kept checkpoints", kept, case["tf_kept"])
    theirs = case["tf_state"]["last_preserved_timestamp"]
    if "tf-dir" in c.name:
        c.equal("deleted on TensorFlow's own directory", plan["totals"]["deleted"], 0)
    else:
        c.equal("last_preserved_timestamp", plan.get("last_preserved_timestamp"), theirs)


def continue_saves(d, sequence):
    name, keep, hours, _, times, _, more = sequence
    root, manager = manager_for(d, more[0] - 0.05, keep, hours)
    for at in more:
        with clock(at):
            manager.save()


def check_keep_apply(c, case):
    base = case["dir"]
    applied, tf_dir = os.path.join(base, "applied"), os.path.join(base, "tf")
    c.equal("files left", indexes(applied), case["tf_kept"])
    ours = state_of(applied)
    c.equal("last_preserved_timestamp in the state file", ours["last_preserved_timestamp"],
            case["tf_state"]["last_preserved_timestamp"])
    sequence = next(s for s in KEEP_SEQUENCES if s[0] == case["sequence"])
    continue_saves(applied, sequence)
    continue_saves(tf_dir, sequence)
    c.equal("files left after TensorFlow saves on", indexes(applied), indexes(tf_dir))
    c.equal("state after TensorFlow saves on", state_of(applied)["last_preserved_timestamp"],
            state_of(tf_dir)["last_preserved_timestamp"])


def run_check(case, out):
    c = Check(case["name"])
    stdout_path = os.path.join(out, "stdout", case["name"] + ".txt")
    stdout = open(stdout_path, encoding="utf-8").read() if os.path.exists(stdout_path) else ""
    kind = case["check"]
    if kind == "strings":
        check_strings(c, case, stdout)
    elif kind == "steps":
        check_steps(c, case, stdout)
    elif kind == "readback":
        check_readback(c, case, out)
    elif kind == "keep-plan":
        check_keep_plan(c, case, stdout)
    elif kind == "keep-apply":
        check_keep_apply(c, case)
    else:
        c.fail("unknown check %r" % kind)
    return c.result()


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--check":
        out = sys.argv[2]
        with open(os.path.join(out, "parity.json")) as f:
            doc = json.load(f)
        return judge_cases(out, doc["cases"], lambda case: run_check(case, out))
    out = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "parity_interop_out")
    os.makedirs(os.path.join(out, "stdout"), exist_ok=True)
    doc = {"tensorflow_version": tf.__version__, "keras_version": keras.__version__, "cases": cases_for(out)}
    with open(os.path.join(out, "parity.json"), "w") as f:
        json.dump(doc, f, indent=1)
    print("wrote %d cases to %s" % (len(doc["cases"]), out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
