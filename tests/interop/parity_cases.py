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

check.json: {"cases": {name: {"ok", "problems": [...], "checked": n}}}
"""
import base64  # noqa: F401  (the docs' decoder imports it too)
import json
import logging
import os
import re
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("KERAS_BACKEND", "tensorflow")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

tf.get_logger().setLevel(logging.ERROR)
import keras  # noqa: E402

GRAPH_KEY = "_CHECKPOINTABLE_OBJECT_GRAPH"
SUFFIX = "/.ATTRIBUTES/VARIABLE_VALUE"
DOCS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs", "cli.md")

# Byte strings JSON text cannot hold as they are: not UTF-8 (a lone 0x80,
# an overlong NUL, an encoded surrogate, a code point above U+10FFFF,
# truncated sequences), and UTF-8 ones that look like escapes.
HOSTILE_STRINGS = [b"\x80", b"\\x80", b"", b"caf\xc3\xa9", b"\x00nul\x00", b"\xc0\x80", b"\xed\xa0\x80",
                   b"\xf4\x90\x80\x80", b"\xe2\x82", b"\xff\xfe", b'"quoted"\n', "\u00e9\U0001F600".encode("utf-8"),
                   bytes(range(256))]

# ---- sources -----------------------------------------------------------------

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


# ---- cases -----------------------------------------------------------------

def cases_for(out):
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

    return cases


# ---- reading -----------------------------------------------------------------

def values_of(prefix):
    reader = tf.train.load_checkpoint(prefix)
    dtypes = reader.get_variable_to_dtype_map()
    return {k: (dtypes[k], np.asarray(reader.get_tensor(k))) for k in reader.get_variable_to_shape_map() if k != GRAPH_KEY}


def keys_of(prefix):
    return set(tf.train.load_checkpoint(prefix).get_variable_to_shape_map())


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


class Check:
    def __init__(self, name):
        self.name = name
        self.problems = []
        self.checked = 0

    def fail(self, message):
        self.problems.append(message)

    def equal(self, what, ours, theirs):
        if ours != theirs:
            self.fail("%s: ours %r, TensorFlow's %r" % (what, ours, theirs))
        else:
            self.checked += 1

    def result(self):
        return {"ok": not self.problems, "problems": self.problems, "checked": self.checked}


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


def run_check(case, out):
    c = Check(case["name"])
    stdout_path = os.path.join(out, "stdout", case["name"] + ".txt")
    stdout = open(stdout_path, encoding="utf-8").read() if os.path.exists(stdout_path) else ""
    kind = case["check"]
    if kind == "strings":
        check_strings(c, case, stdout)
    elif kind == "steps":
        check_steps(c, case, stdout)
    else:
        c.fail("unknown check %r" % kind)
    return c.result()


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--check":
        out = sys.argv[2]
        with open(os.path.join(out, "parity.json")) as f:
            doc = json.load(f)
        results = {}
        for case in doc["cases"]:
            if "check" not in case:
                continue
            try:
                results[case["name"]] = run_check(case, out)
            except Exception as e:  # noqa: BLE001 - one case's failure must not hide the others'
                results[case["name"]] = {"ok": False, "problems": ["%s: %s" % (type(e).__name__, e)], "checked": 0}
            print(case["name"], "ok" if results[case["name"]]["ok"] else results[case["name"]]["problems"], flush=True)
        with open(os.path.join(out, "check.json"), "w") as f:
            json.dump({"cases": results}, f, indent=1)
        return 0
    out = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "parity_interop_out")
    os.makedirs(os.path.join(out, "stdout"), exist_ok=True)
    doc = {"tensorflow_version": tf.__version__, "keras_version": keras.__version__, "cases": cases_for(out)}
    with open(os.path.join(out, "parity.json"), "w") as f:
        json.dump(doc, f, indent=1)
    print("wrote %d cases to %s" % (len(doc["cases"]), out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
