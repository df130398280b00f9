"""TensorFlow, numpy and safetensors as the judges of ckpt export / import.

usage: convert_check.py make DIR
       convert_check.py check-export DIR     (reads DIR/exports.json)
       convert_check.py check-contained DIR  (reads DIR/contained.json)
       convert_check.py make-import DIR      (after check-export)
       convert_check.py check-import DIR     (reads DIR/imports.json)

make writes two TensorFlow checkpoints: DIR/train/ckpt (two dense layers, a
v1 Adam optimizer with slot variables after one step, a step counter) and
DIR/dtypes/ckpt (one variable per dtype TensorFlow can hold in a variable,
a string one included). check-export reads every exported file with
safetensors.numpy.load_file or numpy.load (no pickle) and compares each
array, bit for bit, with tf.train.load_checkpoint's value for its key; it
checks the crc32c the metadata carries and that nothing is missing.
make-import writes arrays with new values from Python (safetensors.numpy
save_file by object path, np.savez_compressed by checkpoint key);
check-import restores each imported checkpoint into the same program with
assert_consumed() and compares the restored values with those arrays.
make also writes DIR/hostile/ckpt, whose local names ("../../evil",
"/abs", "..") would, taken as paths, leave a directory; check-contained
reads its exports (paths in contained.json): every member name stays
inside, zipfile's extraction writes only inside a fresh directory, and
numpy and safetensors load every array.
Exit status 1 on any failure, with the reason on stderr.
"""
import json
import os
import sys
import tempfile
import zipfile

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
import ml_dtypes  # noqa: E402,F401  (registers bfloat16 with numpy for safetensors)
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
from safetensors import safe_open  # noqa: E402
from safetensors.numpy import load_file, save_file  # noqa: E402

GRAPH_KEY = "_CHECKPOINTABLE_OBJECT_GRAPH"
META = "__ckpt_metadata__"


def crc32c(data: bytes) -> int:
    # Castagnoli, reflected; a table-driven loop is enough for test sizes.
    table = crc32c.table
    if table is None:
        table = []
        for i in range(256):
            c = i
            for _ in range(8):
                c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
            table.append(c)
        crc32c.table = table
    crc = 0xFFFFFFFF
    for b in data:
        crc = table[(crc ^ b) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


crc32c.table = None


class Dense(tf.Module):
    def __init__(self, rows, cols, seed):
        super().__init__()
        rng = np.random.default_rng(seed)
        self.kernel = tf.Variable(rng.standard_normal((rows, cols)).astype(np.float32))
        self.bias = tf.Variable(rng.standard_normal((cols,)).astype(np.float32))

    def __call__(self, x):
        return tf.matmul(x, self.kernel) + self.bias


def train_program(step_once=True):
    model = tf.Module()
    model.dense = Dense(4, 3, 1)
    model.out = Dense(3, 2, 2)
    opt = tf.compat.v1.train.AdamOptimizer(0.01)
    step = tf.Variable(0, dtype=tf.int64)
    if step_once:
        x = tf.ones((5, 4))
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(model.out(tf.nn.relu(model.dense(x))))
        variables = [model.dense.kernel, model.dense.bias, model.out.kernel, model.out.bias]
        opt.apply_gradients(zip(tape.gradient(loss, variables), variables))
        step.assign_add(1)
    return tf.train.Checkpoint(model=model, optimizer=opt, step=step)


DTYPES = ["float16", "bfloat16", "float32", "float64", "int8", "int16", "int32", "int64",
          "uint8", "uint16", "uint32", "uint64", "bool", "complex64"]


def make(out):
    train_program().write(os.path.join(out, "train", "ckpt"))
    holder = tf.Module()
    made = []
    for i, name in enumerate(DTYPES):
        values = np.arange(6).reshape(2, 3) * (i + 1) - 3
        if name == "bool":
            values = values % 2 == 0
        try:
            setattr(holder, "v_" + name, tf.Variable(tf.constant(values, dtype=getattr(tf, name))))
            made.append(name)
        except Exception as e:  # a dtype without variable kernels on CPU
            print(f"no {name} variable: {e}", file=sys.stderr)
    holder.words = tf.Variable(["a", "bc"])
    tf.train.Checkpoint(holder=holder).write(os.path.join(out, "dtypes", "ckpt"))
    # Local names chosen to escape a directory once taken for paths.
    hostile = {"../../evil": 1.0, "/abs": 2.0, "..": 3.0, "ok": 4.0}
    tf.train.Checkpoint(**{k: tf.Variable(v) for k, v in hostile.items()}).write(os.path.join(out, "hostile", "ckpt"))
    print(json.dumps({"dtypes": made}))


def load_exported(path, fmt):
    if fmt == "safetensors":
        arrays = load_file(path)
        with safe_open(path, "np") as f:
            meta = f.metadata()
    else:
        with np.load(path, allow_pickle=False) as z:
            arrays = {k: z[k] for k in z.files}
        meta = json.loads(str(arrays.pop(META)))
    return arrays, meta


def fail(msg):
    print("FAIL: " + msg, file=sys.stderr)
    sys.exit(1)


def check_export(out):
    exports = json.load(open(os.path.join(out, "exports.json")))
    for e in exports:
        arrays, meta = load_exported(e["file"], e["format"])
        reader = tf.train.load_checkpoint(e["prefix"])
        dtypes = reader.get_variable_to_dtype_map()
        keys = json.loads(meta.get("ckpt.keys", "{}"))
        crcs = json.loads(meta["ckpt.crc32c"])
        if meta["ckpt.names"] != e["names"]:
            fail(f"{e['file']}: ckpt.names is {meta['ckpt.names']}")
        seen = set()
        for name, value in arrays.items():
            key = keys.get(name, name)
            want = reader.get_tensor(key)
            want = np.asarray(want)
            if value.dtype != want.dtype or value.shape != want.shape or value.tobytes() != want.tobytes():
                fail(f"{e['file']}: {name} ({value.dtype} {value.shape}) differs from TF's {key} "
                     f"({want.dtype} {want.shape})")
            if int(crcs[name], 16) != crc32c(np.ascontiguousarray(value).tobytes()):
                fail(f"{e['file']}: crc32c of {name} is not {crcs[name]}")
            seen.add(key)
        expected = set()
        for key, dtype in dtypes.items():
            if key == GRAPH_KEY or dtype == tf.string:
                continue
            if e["format"] == "npz" and dtype == tf.bfloat16:
                continue
            if e["format"] == "safetensors" and dtype.is_complex:
                continue
            if e.get("weights_only") and ("OPTIMIZER_SLOT" in key or key.startswith("optimizer/")):
                continue
            expected.add(key)
        if seen != expected:
            fail(f"{e['file']}: arrays for {sorted(seen)}, expected {sorted(expected)}")
        if e["names"] == "paths" and e["prefix"].endswith("train/ckpt") and "model.dense.kernel" not in arrays:
            fail(f"{e['file']}: no model.dense.kernel among {sorted(arrays)}")
        print(f"ok {e['file']}: {len(arrays)} arrays equal TensorFlow's")


def bumped(value, by):
    if value.dtype == np.bool_:
        return np.asarray(np.logical_not(value))
    return np.asarray(value + by).astype(value.dtype)


def make_import(out):
    reader = tf.train.load_checkpoint(os.path.join(out, "train", "ckpt"))
    _, meta = load_exported(os.path.join(out, "train_paths.safetensors"), "safetensors")
    keys = json.loads(meta["ckpt.keys"])
    by_path = {name: bumped(np.asarray(reader.get_tensor(key)), 1) for name, key in keys.items()}
    save_file(by_path, os.path.join(out, "in_paths.safetensors"))
    by_key = {key: bumped(np.asarray(reader.get_tensor(key)), 2) for key in keys.values()}
    np.savez_compressed(os.path.join(out, "in_keys.npz"), **by_key)
    json.dump({"keys": keys}, open(os.path.join(out, "import_names.json"), "w"))


def check_import(out):
    imports = json.load(open(os.path.join(out, "imports.json")))
    keys = json.load(open(os.path.join(out, "import_names.json")))["keys"]
    for imp in imports:
        if imp["file"].endswith(".npz"):
            with np.load(imp["file"], allow_pickle=False) as z:
                arrays = {k: z[k] for k in z.files}
        else:
            arrays = {keys[k]: v for k, v in load_file(imp["file"]).items()}
        ckpt = train_program(step_once=True)  # slots exist, so every object is matched
        status = ckpt.read(imp["prefix"])
        status.assert_consumed()
        reader = tf.train.load_checkpoint(imp["prefix"])
        for key, value in arrays.items():
            got = np.asarray(reader.get_tensor(key))
            if got.dtype != value.dtype or got.tobytes() != value.tobytes():
                fail(f"{imp['prefix']}: {key} differs from the imported array")
        restored = {
            "model/dense/kernel/.ATTRIBUTES/VARIABLE_VALUE": ckpt.model.dense.kernel,
            "model/out/bias/.ATTRIBUTES/VARIABLE_VALUE": ckpt.model.out.bias,
            "step/.ATTRIBUTES/VARIABLE_VALUE": ckpt.step,
        }
        for key, var in restored.items():
            if var.numpy().tobytes() != arrays[key].tobytes():
                fail(f"{imp['prefix']}: restored {key} is not the imported value")
        print(f"ok {imp['prefix']}: TensorFlow restored it with assert_consumed(), {len(arrays)} values equal")


def stays_inside(name):
    if name.startswith("/") or "\\" in name or any(ord(c) < 0x20 or ord(c) == 0x7F for c in name):
        return False
    return all(part not in ("", ".", "..") for part in name.split("/"))


def check_contained(out):
    for path in json.load(open(os.path.join(out, "contained.json"))):
        if path.endswith(".npz"):
            with zipfile.ZipFile(path) as z:
                names = z.namelist()
                for name in names:
                    if not stays_inside(name):
                        fail(f"{path}: member {name!r} leaves an extraction directory")
                with tempfile.TemporaryDirectory() as parent:
                    target = os.path.join(parent, "x")
                    z.extractall(target)
                    written = set()
                    for root, _, files in os.walk(parent):
                        for f in files:
                            written.add(os.path.relpath(os.path.join(root, f), target))
                    if written != set(names) or any(w.startswith("..") for w in written):
                        fail(f"{path}: extraction wrote {sorted(written)}, members {sorted(names)}")
        arrays, meta = load_exported(path, "safetensors" if path.endswith(".safetensors") else "npz")
        for name in arrays:
            if not stays_inside(name):
                fail(f"{path}: array {name!r} leaves a directory")
        keys = json.loads(meta.get("ckpt.keys", "{}"))
        if len(arrays) != 4 or not all(name in keys for name in arrays if name != "ok"):
            fail(f"{path}: arrays {sorted(arrays)}, ckpt.keys {keys}")
        print(f"ok {path}: {len(arrays)} arrays, every name inside")


if __name__ == "__main__":
    {"make": make, "check-export": check_export, "make-import": make_import,
     "check-import": check_import, "check-contained": check_contained}[sys.argv[1]](sys.argv[2])
