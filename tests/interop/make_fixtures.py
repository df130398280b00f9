#!/usr/bin/env python3
"""Writes TensorFlow checkpoints covering what the real corpus lacks and
records what TensorFlow itself reports about each, as the oracle for
tests/interop/tst_tf_interop.cpp.

    make_fixtures.py OUT_DIR

OUT_DIR/<fixture>/...        the checkpoints, written by real TensorFlow
OUT_DIR/fixtures.json        TensorFlow's view of them (schema below)

One process writes everything because importing TensorFlow dominates the
run time (~5 s); the fixtures themselves are tiny.

fixtures.json:
  {"tensorflow_version": str, "checksum": <how value checksums are made>,
   "fixtures": [{"name", "dir", "latest_checkpoint": abs prefix | null,
                 "checkpoint_state": null | {"model_checkpoint_path",
                                             "all_model_checkpoint_paths"},
                 "expect": {"slot_variables": bool, "partitioned": bool,
                            "min_shards": int},
                 "checkpoints": [{"prefix", "data_files": [names on disk],
                                  "variables": [{"name", "shape", "dtype",
                                                 "dtype_enum", "sha256",
                                                 "num_elements", "values"}],
                                  "object_graph": null | {"nodes": [...]}}]}]}
"""

import hashlib
import json
import logging
import os
import shutil
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

tf.get_logger().setLevel(logging.ERROR)  # deprecation notices from the TF1 APIs used on purpose
from tensorflow.core.protobuf import trackable_object_graph_pb2  # noqa: E402
from tensorflow.python.checkpoint.checkpoint import ObjectGraphProtoPrettyPrinter  # noqa: E402

CHECKSUM_RULE = (
    "sha256 over the tensor's values in row-major (C) order: fixed-size dtypes "
    "hash their little-endian element bytes exactly as numpy holds them "
    "(bfloat16/half as raw 16-bit patterns, bool as one byte 0/1, complex as "
    "real then imaginary); DT_STRING hashes, per element, its length as a "
    "little-endian uint64 followed by its bytes")
VALUES_HEAD = 8  # how many leading values to list per tensor
STRING_HEAD_BYTES = 64  # strings are listed as hex of at most this many leading bytes
OBJECT_GRAPH_KEY = "_CHECKPOINTABLE_OBJECT_GRAPH"


def checksum(array):
    h = hashlib.sha256()
    if array.dtype == object:  # DT_STRING: numpy holds bytes objects
        for item in array.reshape(-1):
            h.update(len(item).to_bytes(8, "little"))
            h.update(item)
    else:
        little = array.astype(array.dtype.newbyteorder("<"), copy=False)
        h.update(np.ascontiguousarray(little).tobytes())
    return h.hexdigest()


def head_values(array, dtype):
    """Leading values as JSON: numbers, [re, im] for complex, and for strings
    the hex of their first STRING_HEAD_BYTES bytes (the checksum covers the rest)."""
    flat = array.reshape(-1)[:VALUES_HEAD]
    if dtype == tf.string:
        return [bytes(x)[:STRING_HEAD_BYTES].hex() for x in flat]
    if dtype.is_complex:
        return [[float(x.real), float(x.imag)] for x in flat]
    if dtype == tf.bool:
        return [bool(x) for x in flat]
    if dtype.is_integer:
        return [int(x) for x in flat]
    return [float(x) for x in flat.astype(np.float64)]


def object_graph_json(reader):
    """Every node as TensorFlow names it, with attributes and slot variables."""
    if not reader.has_tensor(OBJECT_GRAPH_KEY):
        return None
    proto = trackable_object_graph_pb2.TrackableObjectGraph()
    proto.ParseFromString(reader.get_tensor(OBJECT_GRAPH_KEY))
    names = ObjectGraphProtoPrettyPrinter(proto).node_names
    nodes = []
    for node_id, node in enumerate(proto.nodes):
        nodes.append({
            "id": node_id,
            "pretty": names.get(node_id),
            "children": [{"name": c.local_name, "id": c.node_id} for c in node.children],
            "attributes": [{"name": a.name, "checkpoint_key": a.checkpoint_key} for a in node.attributes],
            "slot_variables": [{"original_variable_id": s.original_variable_node_id,
                                "slot_name": s.slot_name,
                                "slot_variable_id": s.slot_variable_node_id}
                               for s in node.slot_variables],
        })
    return {"nodes": nodes}


def describe_checkpoint(prefix):
    reader = tf.train.load_checkpoint(prefix)
    dtypes = reader.get_variable_to_dtype_map()
    variables = []
    for name, shape in tf.train.list_variables(prefix):
        dtype = dtypes[name]
        value = np.asarray(reader.get_tensor(name))
        if dtype == tf.string and value.dtype != object:
            value = value.astype(object)
        variables.append({
            "name": name,
            "shape": list(shape),
            "dtype": dtype.name,
            "dtype_enum": dtype.as_datatype_enum,
            "num_elements": int(value.size),
            "sha256": checksum(value),
            "values": head_values(value, dtype),
        })
    directory = os.path.dirname(prefix)
    base = os.path.basename(prefix)
    data_files = sorted(f for f in os.listdir(directory) if f.startswith(base + ".data-"))
    return {"prefix": prefix, "data_files": data_files, "variables": variables,
            "object_graph": object_graph_json(reader)}


def fixture_record(name, directory, prefixes, expect):
    state = tf.train.get_checkpoint_state(directory)
    return {
        "name": name,
        "dir": directory,
        "latest_checkpoint": tf.train.latest_checkpoint(directory),
        # TensorFlow's parse of the `checkpoint` state file, paths made absolute.
        "checkpoint_state": None if state is None else {
            "model_checkpoint_path": state.model_checkpoint_path,
            "all_model_checkpoint_paths": list(state.all_model_checkpoint_paths),
        },
        "expect": expect,
        "checkpoints": [describe_checkpoint(p) for p in prefixes],
    }


# --- fixtures ---------------------------------------------------------------

class Dense(tf.Module):
    def __init__(self, rng, n_in, n_out, name=None):
        super().__init__(name=name)
        self.kernel = tf.Variable(rng.standard_normal((n_in, n_out)).astype(np.float32), name="kernel")
        self.bias = tf.Variable(np.zeros(n_out, np.float32), name="bias")

    def __call__(self, x):
        return tf.matmul(x, self.kernel) + self.bias


class Model(tf.Module):
    def __init__(self, rng):
        super().__init__()
        self.embedding = tf.Variable(rng.standard_normal((16, 4)).astype(np.float32), name="embedding")
        self.layers = [Dense(rng, 4, 8), Dense(rng, 8, 2)]

    def __call__(self, ids):
        x = tf.nn.embedding_lookup(self.embedding, ids)
        for layer in self.layers:
            x = tf.nn.relu(layer(x))
        return x


def make_training(out, rng):
    """tf.train.Checkpoint + CheckpointManager with a TF1 Adam optimizer:
    slot variables, a `checkpoint` state file and max_to_keep pruning."""
    directory = os.path.join(out, "training")
    model = Model(rng)
    optimizer = tf.compat.v1.train.AdamOptimizer(learning_rate=0.01)
    step = tf.Variable(0, dtype=tf.int64, name="step")
    ckpt = tf.train.Checkpoint(step=step, model=model, optimizer=optimizer)
    manager = tf.train.CheckpointManager(ckpt, directory, max_to_keep=2)
    ids = tf.constant(rng.integers(0, 16, size=(32,)), dtype=tf.int32)
    target = tf.constant(rng.standard_normal((32, 2)).astype(np.float32))
    for _ in range(4):
        optimizer.minimize(lambda: tf.reduce_mean((model(ids) - target) ** 2),
                           var_list=model.trainable_variables)
        step.assign_add(1)
        manager.save(checkpoint_number=int(step.numpy()))
    return fixture_record("training", directory, manager.checkpoints,
                          {"slot_variables": True, "partitioned": False, "min_shards": 1})


class Holder(tf.Module):
    pass


def make_dtypes(out, rng):
    """One variable per dtype TensorFlow stores, plus scalar and empty ones."""
    directory = os.path.join(out, "dtypes")
    h = Holder()
    floats = rng.standard_normal((3, 5)).astype(np.float32)
    h.f32 = tf.Variable(floats)
    h.f64 = tf.Variable(rng.standard_normal((4, 3)))
    h.bf16 = tf.Variable(tf.constant(floats, dtype=tf.bfloat16))
    h.f16 = tf.Variable(tf.constant(floats * 100, dtype=tf.float16))
    h.i8 = tf.Variable(np.array([-128, -1, 0, 1, 127], np.int8))
    h.u8 = tf.Variable(np.array([0, 1, 128, 255], np.uint8))
    h.i16 = tf.Variable(np.array([-32768, -2, 0, 3, 32767], np.int16))
    h.u16 = tf.Variable(np.array([0, 1, 40000, 65535], np.uint16))
    h.i32 = tf.Variable(np.array([[-2147483648, 0], [1, 2147483647]], np.int32))
    h.u32 = tf.Variable(np.array([0, 1, 3000000000, 4294967295], np.uint32))
    h.i64 = tf.Variable(np.array([-(2 ** 63), -1, 0, 2 ** 40 + 3, 2 ** 63 - 1], np.int64))
    h.u64 = tf.Variable(np.array([0, 1, 2 ** 63 + 5, 2 ** 64 - 1], np.uint64))
    h.boolean = tf.Variable(np.array([[True, False, True], [False, False, True]]))
    h.c64 = tf.Variable(np.array([1 + 2j, -3.5 + 0.25j, 0j], np.complex64))
    h.c128 = tf.Variable(np.array([[1e300 - 1e-300j], [-0.0 + 7j]], np.complex128))
    h.text = tf.Variable(tf.constant([["alpha", ""], ["grüße", "日本語テキスト"], ["", "x" * 300]]))
    h.binary = tf.Variable(tf.constant([b"\x00\xff\x80nul", b""]))
    h.scalar_f32 = tf.Variable(3.25)
    h.scalar_i64 = tf.Variable(np.int64(-7))
    h.scalar_text = tf.Variable("a lonely scalar string")
    h.empty_f32 = tf.Variable(np.zeros((0,), np.float32))
    h.empty_2d = tf.Variable(np.zeros((3, 0), np.int32))
    h.empty_text = tf.Variable(tf.zeros((0, 2), tf.string))
    ckpt = tf.train.Checkpoint(values=h)
    prefix = ckpt.write(os.path.join(directory, "dtypes"))
    return fixture_record("dtypes", directory, [prefix],
                          {"slot_variables": False, "partitioned": False, "min_shards": 1})


def make_sharded(out, rng):
    """A size-capped sharding policy: several data shards, and variables
    larger than a shard split into slices."""
    directory = os.path.join(out, "sharded")
    h = Holder()
    h.big = tf.Variable(rng.standard_normal((64, 48)).astype(np.float32))  # 12 KiB, sliced
    h.wide = tf.Variable(rng.integers(-1000, 1000, size=(7, 300)).astype(np.int64))  # 16.4 KiB
    h.half = tf.Variable(tf.constant(rng.standard_normal((40, 40)), dtype=tf.float16))
    h.small = tf.Variable(np.arange(10, dtype=np.int32))
    h.words = tf.Variable(tf.constant(["one", "two", "three", "", "fünf"]))
    h.scalar = tf.Variable(1.5)
    ckpt = tf.train.Checkpoint(values=h)
    options = tf.train.CheckpointOptions(
        experimental_sharding_callback=tf.train.experimental.MaxShardSizePolicy(max_shard_size=4096))
    prefix = ckpt.write(os.path.join(directory, "sharded"), options=options)
    return fixture_record("sharded", directory, [prefix],
                          {"slot_variables": False, "partitioned": True, "min_shards": 3})


def make_tf1_saver(out, rng):
    """A TF1 name-based checkpoint from tf.compat.v1.train.Saver in graph
    mode, with a partitioned variable stored as slices."""
    directory = os.path.join(out, "tf1_saver")
    os.makedirs(directory, exist_ok=True)
    v1 = tf.compat.v1
    with tf.Graph().as_default(), v1.Session() as sess:
        with v1.variable_scope("encoder"):
            v1.get_variable("weights", initializer=rng.standard_normal((5, 3)).astype(np.float32))
            v1.get_variable("bias", initializer=np.zeros(3, np.float32))
            v1.get_variable("embedding", shape=(10, 4), dtype=tf.float32,
                            initializer=v1.random_normal_initializer(seed=1),
                            partitioner=v1.fixed_size_partitioner(3))
            v1.get_variable("table", shape=(9, 2), dtype=tf.int64,
                            initializer=v1.random_uniform_initializer(-1000, 1000, seed=2),
                            partitioner=v1.fixed_size_partitioner(2, axis=0))
        v1.get_variable("vocab", initializer=tf.constant(["<unk>", "the", "größe", ""]))
        global_step = v1.train.get_or_create_global_step()
        increment = v1.assign_add(global_step, 1)
        sess.run(v1.global_variables_initializer())
        saver = v1.train.Saver(max_to_keep=2)
        prefixes = []
        for _ in range(3):
            sess.run(increment)
            prefixes.append(saver.save(sess, os.path.join(directory, "model.ckpt"), global_step=global_step))
    return fixture_record("tf1_saver", directory, prefixes[-2:],
                          {"slot_variables": False, "partitioned": True, "min_shards": 1})


def main(argv):
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    out = os.path.abspath(argv[1])
    if os.path.exists(out):
        shutil.rmtree(out)
    os.makedirs(out)
    rng = np.random.default_rng(20240611)
    fixtures = [make_training(out, rng), make_dtypes(out, rng), make_sharded(out, rng), make_tf1_saver(out, rng)]
    with open(os.path.join(out, "fixtures.json"), "w", encoding="utf-8") as f:
        json.dump({"tensorflow_version": tf.__version__, "checksum": CHECKSUM_RULE, "fixtures": fixtures},
                  f, indent=1, ensure_ascii=False, allow_nan=False)
    print(f"make_fixtures: wrote {len(fixtures)} fixtures to {out} with TensorFlow {tf.__version__}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
