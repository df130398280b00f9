"""ckpt.compat against TensorFlow's tf.train readers on the same
checkpoints: the same maps, values, exception classes and message shapes,
and a TF-style conversion loop that runs unchanged."""

import numpy as np
import pytest

import ckpt
import ckpt.compat as ctf


def same_value(ours, theirs):
    assert type(ours) is type(theirs), (type(ours), type(theirs))
    if isinstance(theirs, bytes):
        assert ours == theirs
        return
    a, b = np.asarray(ours), np.asarray(theirs)
    assert a.dtype == b.dtype and a.shape == b.shape
    if a.dtype == object:
        assert a.tolist() == b.tolist()
    else:
        assert a.tobytes() == b.tobytes()


def test_reader_maps_and_values(tf, all_prefixes):
    for prefix in all_prefixes:
        theirs = tf.train.load_checkpoint(prefix)
        ours = ctf.load_checkpoint(prefix)
        assert ours.get_variable_to_shape_map() == theirs.get_variable_to_shape_map()
        dtypes = ours.get_variable_to_dtype_map()
        for key, dtype in theirs.get_variable_to_dtype_map().items():
            assert dtypes[key].name == dtype.name
            assert dtypes[key].as_datatype_enum == dtype.as_datatype_enum
            assert dtypes[key] == dtype.as_numpy_dtype or dtype.name == "string"
            assert ours.has_tensor(key) and theirs.has_tensor(key)
            same_value(ours.get_tensor(key), theirs.get_tensor(key))
        assert not ours.has_tensor("no/such/key")


def test_list_and_load_variable(tf, fixtures_dir):
    for d in ("training", "tf1_saver", "dtypes/dtypes", "sharded/sharded"):
        path = str(fixtures_dir / d)
        assert ctf.list_variables(path) == tf.train.list_variables(path)
        for name, _ in tf.train.list_variables(path):
            same_value(ctf.load_variable(path, name), tf.train.load_variable(path, name))
        name = tf.train.list_variables(path)[-1][0]
        same_value(ctf.load_variable(path, name + ":0"), tf.train.load_variable(path, name + ":0"))


def message_of(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - comparing what each raises
        return type(e).__name__, str(e)
    return None, None


def test_errors_like_tensorflow(tf, fixtures_dir, tmp_path):
    prefix = str(sorted((fixtures_dir / "training").glob("ckpt-*.index"))[-1])[: -len(".index")]
    cases = [
        lambda m: m.load_checkpoint(prefix).get_tensor("no/such"),
        lambda m: m.load_variable(prefix, "no/such"),
        lambda m: m.load_checkpoint(str(tmp_path / "missing" / "ckpt-1")),
        lambda m: m.load_checkpoint(str(tmp_path)),
    ]
    for case in cases:
        ours = message_of(lambda: case(ctf.train))
        theirs = message_of(lambda: case(tf.train))
        assert ours[0] == theirs[0], (ours, theirs)
        assert ours[1] == theirs[1] or ours[1].startswith(theirs[1]), (ours, theirs)
    with pytest.raises(ctf.errors.NotFoundError):
        ctf.load_variable(prefix, "no/such")
    with pytest.raises(ckpt.NotFoundError):  # the same classes
        ctf.load_variable(prefix, "no/such")


def convert_loop(tf_module, path):
    """What Hugging Face's TF->PyTorch converters do, verbatim in style."""
    arrays = {}
    init_vars = tf_module.train.list_variables(path)
    for name, shape in init_vars:
        array = tf_module.train.load_variable(path, name)
        arrays[name] = (shape, array)
    return arrays


def test_conversion_loop_runs_unchanged(tf, fixtures_dir, real_prefixes):
    for path in [str(fixtures_dir / "tf1_saver"), str(fixtures_dir / "training")] + real_prefixes[:3]:
        ours, theirs = convert_loop(ctf, path), convert_loop(tf, path)
        assert ours.keys() == theirs.keys()
        for name in theirs:
            assert ours[name][0] == theirs[name][0]
            same_value(ours[name][1], theirs[name][1])
