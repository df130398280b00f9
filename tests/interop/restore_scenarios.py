#!/usr/bin/env python3
"""Restore scenarios run in real TensorFlow, for tst_restore_interop.

Builds a small program (tf.Module layers + tf.compat.v1.train.AdamOptimizer
slots), writes checkpoints with tf.train.Checkpoint.write(), then restores
them into modified programs with tf.train.Checkpoint.read() and records what
TensorFlow's own load-status assertions say. For every scenario it also emits
the program as a ckpt model spec (docs/model-spec.md) so the C++ engine can
restore the same checkpoint into the same structure and compare verdicts.

    python restore_scenarios.py OUTDIR   # writes OUTDIR/scenarios.json + checkpoints
    python restore_scenarios.py --check-restored PREFIX SOURCE
        # TensorFlow reads PREFIX (written by `ckpt restore SOURCE --into <the
        # "identical" spec> --out PREFIX`): load_checkpoint values equal
        # SOURCE's, and the "identical" program restores it with
        # assert_consumed() to those values. Prints one JSON line; exit 1 on failure.

Verdicts: per assertion {passed, message, named_paths}. named_paths are the
checkpoint paths TensorFlow names ("Unresolved object in checkpoint P"),
or the program paths of the variables it lists as unbound (mapped back from
their variable names, which every variable here gets uniquely).
"""
import json
import os
import re
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import tensorflow as tf  # noqa: E402

V1Optimizer = tf.compat.v1.train.Optimizer


class Dense(tf.Module):
    def __init__(self, prefix, n_in, n_out, dtype=tf.float32):
        super().__init__()
        self.kernel = tf.Variable(tf.ones([n_in, n_out], dtype=dtype), name=prefix + "/kernel")
        self.bias = tf.Variable(tf.zeros([n_out], dtype=dtype), name=prefix + "/bias")


def make_model(layers=("dense1", "dense2"), extra=False, shapes=None, dtypes=None):
    shapes = shapes or {}
    dtypes = dtypes or {}
    model = tf.Module()
    for name in layers:
        n_in, n_out = shapes.get(name, (3, 2))
        setattr(model, name, Dense("model/" + name, n_in, n_out, dtypes.get(name, tf.float32)))
    if extra:
        model.extra = tf.Variable(tf.zeros([4]), name="model/extra")
    return model


class TwoValues(tf.__internal__.tracking.Trackable):
    """A node with VARIABLE_VALUE and a second attribute, "extra"."""

    def __init__(self):
        self.value = tf.Variable(1.5, name="two/value")
        self.extra = tf.Variable(2.5, name="two/extra")

    def _serialize_to_tensors(self):
        return {"VARIABLE_VALUE": self.value, "extra": self.extra}

    def _restore_from_tensors(self, restored_tensors):
        return tf.group(self.value.assign(restored_tensors["VARIABLE_VALUE"]),
                        self.extra.assign(restored_tensors["extra"]))


def train_step(opt, variables):
    with tf.GradientTape() as tape:
        loss = tf.add_n([tf.reduce_sum(tf.cast(v, tf.float32)) for v in variables])
    grads = tape.gradient(loss, variables)
    opt.apply_gradients(zip(grads, variables))


def module_vars(model):
    return list(model.trainable_variables)


# ---------------------------------------------------------------------------
# Program -> model spec, and variable name -> program path


def children_of(obj):
    try:
        kids = obj._trackable_children(save_type="checkpoint")  # pylint: disable=protected-access
    except TypeError:
        kids = obj._trackable_children()  # pylint: disable=protected-access
    return list(kids.items())


def walk(root):
    """BFS like the engine's listProgramObjects: objects, paths, slots."""
    order, ids, paths = [root], {id(root): 0}, {id(root): "(root)"}
    i = 0
    while i < len(order):
        obj = order[i]
        for name, child in children_of(obj):
            if id(child) not in ids:
                ids[id(child)] = len(order)
                paths[id(child)] = paths[id(obj)] + "." + name
                order.append(child)
        i += 1
    slots = []  # (optimizer, variable, slot name, slot variable)
    for obj in list(order):
        if isinstance(obj, V1Optimizer):
            for var in [o for o in order if isinstance(o, tf.Variable)]:
                for slot_name in obj.get_slot_names():
                    s = obj.get_slot(var, slot_name)
                    if s is not None:
                        slots.append((obj, var, slot_name, s))
    return order, ids, paths, slots


def to_spec(root):
    order, ids, _, slots = walk(root)
    objects = []
    for obj in order:
        o = {"id": ids[id(obj)], "children": []}
        if isinstance(obj, tf.Variable):
            o.update(kind="variable", dtype=obj.dtype.name, shape=obj.shape.as_list(), name=obj.name.split(":")[0])
        elif isinstance(obj, V1Optimizer):
            o["kind"] = "optimizer"
            o["slots"] = [{"variable": ids[id(v)], "name": n} for (opt, v, n, _) in slots if opt is obj]
        else:
            o["kind"] = "object"
        for name, child in children_of(obj):
            o["children"].append({"name": name, "id": ids[id(child)]})
        objects.append(o)
    return {"format": "ckpt-model-spec", "version": 1, "root": 0, "objects": objects}


def name_to_path(root):
    order, _, paths, slots = walk(root)
    out = {}
    for obj in order:
        if isinstance(obj, tf.Variable):
            out[obj.name.split(":")[0]] = paths[id(obj)]
    for opt, var, slot_name, s in slots:
        out[s.name.split(":")[0]] = "%s's state '%s' for %s" % (paths[id(opt)], slot_name, paths[id(var)])
    return out


# ---------------------------------------------------------------------------
# Verdicts


def named_paths(message, names):
    m = re.match(r"Unresolved object in checkpoint (.+?): ", message)
    if m:
        return [m.group(1)]
    if message.startswith("Unused attributes in these objects"):
        return [line.split(" (")[0] for line in message.split("\n")[1:] if line.strip()]
    if message.startswith("Nothing to load"):
        return []
    found = re.findall(r"<tf\.Variable '([^']*?)(?::\d+)?'", message)
    return [names.get(n, "?" + n) for n in found]


def verdicts(status, names):
    out = {}
    for key, fn in (("existing", status.assert_existing_objects_matched),
                    ("nontrivial", status.assert_nontrivial_match),
                    ("consumed", status.assert_consumed)):
        try:
            fn()
            out[key] = {"passed": True, "message": "", "named_paths": []}
        except AssertionError as e:
            msg = str(e)
            out[key] = {"passed": False, "message": msg, "named_paths": named_paths(msg, names)}
    return out


def run_scenario(name, prefix, build, after=None):
    """build() -> (root, description); after(root) -> list of additions (parent path, name, subtree)."""
    root = build()
    spec = to_spec(root)
    result = {"name": name, "checkpoint": os.path.basename(prefix), "spec": spec, "additions": []}
    try:
        status = root.read(prefix)
    except Exception as e:  # noqa: BLE001 - TensorFlow raises several types for mismatches
        result["expect"] = {"restore_error": True, "error_type": type(e).__name__, "error": str(e)[:2000]}
        return result
    if after is not None:
        for parent_path, child_name, subtree in after(root):
            result["additions"].append({"parent": parent_path, "name": child_name, "spec": to_spec(subtree)})
    names = name_to_path(root)
    result["expect"] = {"restore_error": False, "assertions": verdicts(status, names)}
    status.expect_partial()
    return result


def program(layers=("dense1", "dense2"), extra=False, optimizer=True, step=True, **kw):
    def build():
        m = make_model(layers, extra, **kw)
        kwargs = {"model": m}
        if optimizer:
            o = tf.compat.v1.train.AdamOptimizer(0.1)
            if step:
                train_step(o, module_vars(m))
            kwargs["optimizer"] = o
        return tf.train.Checkpoint(**kwargs)
    return build


def check_restored(prefix, source):
    import numpy as np  # only this mode compares values
    ours = tf.train.load_checkpoint(prefix)
    theirs = tf.train.load_checkpoint(source)
    keys = set(ours.get_variable_to_shape_map()) - {"_CHECKPOINTABLE_OBJECT_GRAPH"}
    source_keys = set(theirs.get_variable_to_shape_map()) - {"_CHECKPOINTABLE_OBJECT_GRAPH"}
    if keys != source_keys:
        raise AssertionError(f"keys differ: only ours {sorted(keys - source_keys)}, only source {sorted(source_keys - keys)}")
    for key in sorted(keys):
        if not np.array_equal(ours.get_tensor(key), theirs.get_tensor(key)):
            raise AssertionError(f"{key}: value differs from the source checkpoint's")
    # The program's own values differ from the checkpoint's (a fresh training
    # step), so equal values after read() prove they came from PREFIX.
    root = program()()
    status = root.read(prefix)
    status.assert_consumed()
    order, _, paths, slots = walk(root)
    compared = 0

    def key_of(obj):
        return paths[id(obj)][len("(root)."):].replace(".", "/")

    def same(var, key):
        nonlocal compared
        if not np.array_equal(var.numpy(), ours.get_tensor(key)):
            raise AssertionError(f"{key}: restored value differs from load_checkpoint's")
        compared += 1

    for obj in order:
        if isinstance(obj, tf.Variable):
            same(obj, key_of(obj) + "/.ATTRIBUTES/VARIABLE_VALUE")
    for opt, var, slot_name, slot in slots:
        same(slot, f"{key_of(var)}/.OPTIMIZER_SLOT/{key_of(opt)}/{slot_name}/.ATTRIBUTES/VARIABLE_VALUE")
    return {"prefix": prefix, "ok": True, "tensors": len(keys), "compared": compared, "slots": len(slots)}


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "--check-restored":
        try:
            result = check_restored(sys.argv[2], sys.argv[3])
        except Exception as e:  # noqa: BLE001 - report any failure as JSON
            result = {"prefix": sys.argv[2], "ok": False, "error": f"{type(e).__name__}: {e}"}
        print(json.dumps(result), flush=True)
        return 0 if result["ok"] else 1
    out_dir = sys.argv[1] if len(sys.argv) > 1 else "restore_interop_out"
    os.makedirs(out_dir, exist_ok=True)

    # The saved program: two layers and an Adam optimizer that has taken a step.
    model = make_model()
    opt = tf.compat.v1.train.AdamOptimizer(0.1)
    train_step(opt, module_vars(model))
    full = tf.train.Checkpoint(model=model, optimizer=opt).write(os.path.join(out_dir, "full"))
    model_only = tf.train.Checkpoint(model=make_model()).write(os.path.join(out_dir, "model_only"))
    # A TF1 name-based checkpoint of the same model (no object graph).
    tf1 = tf.compat.v1.train.Saver(var_list=module_vars(make_model())).save(
        None, os.path.join(out_dir, "tf1_model"), write_meta_graph=False)

    # A lookup table's node (attributes table-keys, table-values) and a node
    # holding VARIABLE_VALUE plus another attribute, each beside a model.
    table = tf.lookup.experimental.MutableHashTable(tf.string, tf.int64, -1)
    table.insert(tf.constant(["a", "b"]), tf.constant([1, 2], tf.int64))
    with_table = tf.train.Checkpoint(model=make_model(), t1=table).write(os.path.join(out_dir, "with_table"))
    with_two = tf.train.Checkpoint(model=make_model(), two=TwoValues()).write(os.path.join(out_dir, "with_two"))

    def with_variable(name):
        return lambda: tf.train.Checkpoint(model=make_model(), **{name: tf.Variable(0.0, name=name)})

    def add_dense2(root):
        layer = Dense("model/dense2", 3, 2)
        root.model.dense2 = layer
        return [("(root).model", "dense2", layer)]

    scenarios = [
        run_scenario("identical", full, program()),
        run_scenario("identical_fresh_optimizer", full, program(step=False)),
        run_scenario("layer_removed", full, program(layers=("dense1",))),
        run_scenario("extra_variable", full, program(extra=True)),
        run_scenario("model_only_program", full, program(optimizer=False)),
        run_scenario("empty_target", full, lambda: tf.train.Checkpoint()),
        run_scenario("unrelated_target", full, lambda: tf.train.Checkpoint(other=tf.Variable(1.0, name="other"))),
        run_scenario("shape_mismatch", full, program(shapes={"dense1": (4, 2)})),
        run_scenario("dtype_mismatch", full, program(dtypes={"dense2": tf.float64}, step=False)),
        run_scenario("deferred_layer", full, program(layers=("dense1",)), after=add_dense2),
        run_scenario("optimizer_program_model_only_checkpoint", model_only, program()),
        run_scenario("model_only_checkpoint_and_program", model_only, program(optimizer=False)),
        run_scenario("tf1_identical", tf1, program(optimizer=False)),
        run_scenario("tf1_layer_removed", tf1, program(layers=("dense1",), optimizer=False)),
        run_scenario("tf1_extra_variable", tf1, program(extra=True, optimizer=False)),
        run_scenario("tf1_program_with_optimizer", tf1, program()),
        # TensorFlow raises NotFoundError: the variable's key is not in the checkpoint.
        run_scenario("variable_at_table_node", with_table, with_variable("t1")),
        run_scenario("table_node_unbound", with_table, program(optimizer=False)),
        # The variable reads VARIABLE_VALUE; "extra" is not an unused attribute.
        run_scenario("variable_at_node_with_extra_attribute", with_two, with_variable("two")),
    ]
    doc = {"tensorflow": tf.__version__, "checkpoints": {"full": os.path.basename(full), "model_only": os.path.basename(model_only),
                                                     "tf1": os.path.basename(tf1)},
           "scenarios": scenarios}
    with open(os.path.join(out_dir, "scenarios.json"), "w") as f:
        json.dump(doc, f, indent=1, sort_keys=True)
    print(os.path.join(out_dir, "scenarios.json"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
