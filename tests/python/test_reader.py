"""ckpt.open and ckpt.Checkpoint against TensorFlow's own reader: every
value of every checkpoint in the real corpus and the fixtures bit for bit,
keys, dtypes and shapes as TensorFlow lists them."""

import os

import numpy as np
import pytest

import ckpt
from ckpt.compat import _ENUM_VALUES


def same_bits(ours, theirs):
    """Equal values and equal bytes (NaN payloads, -0.0 and bf16 included)."""
    if isinstance(theirs, bytes):  # TensorFlow's scalar string
        assert ours.shape == () and ours.dtype == object and ours[()] == theirs
        return
    theirs = np.asarray(theirs)
    assert ours.shape == theirs.shape
    if theirs.dtype == object or ours.dtype == object:
        assert ours.dtype == object
        assert [bytes(x) for x in ours.reshape(-1)] == [bytes(x) for x in theirs.reshape(-1)]
        return
    assert ours.dtype.itemsize == theirs.dtype.itemsize
    assert ours.dtype == theirs.dtype, (ours.dtype, theirs.dtype)
    assert ours.tobytes() == theirs.tobytes()


def test_every_value_matches_tensorflow(tf, all_prefixes):
    checked = 0
    for prefix in all_prefixes:
        reader = tf.train.load_checkpoint(prefix)
        dtypes = reader.get_variable_to_dtype_map()
        with ckpt.open(prefix) as c:
            assert sorted(c.keys(raw=True)) == sorted(dtypes)
            values = c.to_dict(raw=True)
            for key, dtype in dtypes.items():
                info = c.info(key)
                assert info.key == key
                assert list(info.shape) == reader.get_variable_to_shape_map()[key]
                assert _ENUM_VALUES[info.dtype_enum] == dtype.as_datatype_enum
                theirs = reader.get_tensor(key)
                same_bits(c[key], theirs)
                same_bits(values[key], theirs)
                checked += 1
    assert checked > 400


def test_bfloat16_through_ml_dtypes(fixtures_dir):
    import ml_dtypes

    with ckpt.open(fixtures_dir / "dtypes") as c:
        v = c["values.bf16"]
        assert v.dtype == np.dtype(ml_dtypes.bfloat16)
        assert c.info("values.bf16").dtype == "bfloat16"
        assert v.shape == (3, 5)


def test_strings_are_bytes(fixtures_dir):
    with ckpt.open(fixtures_dir / "dtypes") as c:
        text = c["values.text"]
        assert text.dtype == object and text.shape == (3, 2)
        assert text[1, 0] == "grüße".encode()
        assert list(c["values.binary"]) == [b"\x00\xff\x80nul", b""]
        scalar = c["values.scalar_text"]
        assert scalar.shape == () and scalar[()] == b"a lonely scalar string"


def test_names_follow_the_object_graph(fixtures_dir):
    training = sorted((fixtures_dir / "training").glob("ckpt-*.index"))[-1]
    with ckpt.open(str(training)[: -len(".index")]) as c:
        names = c.keys()
        assert any(n.startswith("optimizer/") for n in names), names
        assert "step" in names
        assert "_CHECKPOINTABLE_OBJECT_GRAPH" in c.keys(raw=True)
        assert "_CHECKPOINTABLE_OBJECT_GRAPH" not in names
        for name in names:
            info = c.info(name)
            assert info.name == name
            assert info.optimizer_state == name.startswith(("optimizer/", "optimizer."))
            np.testing.assert_array_equal(c[name], c[info.key])
        assert c.step.step == 4 and c.step.number == 4


def test_directory_resolves_through_state_file(fixtures_dir):
    with ckpt.open(fixtures_dir / "training") as c:
        assert c.resolved_by == "state file"
        assert c.prefix.endswith("ckpt-4")
        assert c.style == "object-based"


def test_partitioned_and_sharded(tf, fixtures_dir):
    tf1 = fixtures_dir / "tf1_saver"
    with ckpt.open(tf1) as c:
        assert c.style == "name-based"
        info = c.info("encoder/embedding")
        assert info.partitioned and info.shape == (10, 4)
        reader = tf.train.load_checkpoint(str(tf1))
        same_bits(c["encoder/embedding"], reader.get_tensor("encoder/embedding"))
        same_bits(c.slice("encoder/embedding")[3:7], reader.get_tensor("encoder/embedding")[3:7])


def test_row_slices_read_only_those_rows(fixtures_dir):
    with ckpt.open(fixtures_dir / "sharded") as c:
        whole = c["values.wide"]
        rows = c.slice("values.wide")
        assert len(rows) == 7
        np.testing.assert_array_equal(rows[2:5], whole[2:5])
        np.testing.assert_array_equal(rows[-1], whole[-1])
        np.testing.assert_array_equal(rows[::3], whole[::3])
        np.testing.assert_array_equal(rows[5:1:-2], whole[5:1:-2])
        np.testing.assert_array_equal(rows[1:3, 4:9], whole[1:3, 4:9])
        assert rows[4:4].shape == (0, 300)
        with pytest.raises(IndexError):
            rows[7]
    with ckpt.open(fixtures_dir / "dtypes") as c:
        with pytest.raises(TypeError):
            len(c.slice("values.scalar_f32"))


def test_tree_and_step(demo_run):
    with ckpt.open(demo_run) as c:
        tree = c.tree()
        assert tree.kind == "root"
        kinds = {n.kind for n in tree.walk()}
        assert {"variable", "optimizer", "slot"} <= kinds
        keys = {n.key for n in tree.walk() if n.key}
        assert keys <= set(c.keys(raw=True))
        assert c.step.step == 200 and c.step.number == 5


def test_mapping_protocol_and_errors(demo_run):
    with ckpt.open(demo_run) as c:
        assert len(c) == len(list(c))
        assert "model.layer_with_weights-0.kernel" in c
        assert "model/layer_with_weights-0/kernel/.ATTRIBUTES/VARIABLE_VALUE" in c
        assert "nope" not in c and 3 not in c
        assert c.get("nope") is None
        with pytest.raises(ckpt.NotFoundError) as e:
            c["nope"]
        assert isinstance(e.value, KeyError)
        assert "nope" in str(e.value) and str(demo_run) in str(e.value)
        kept = c["model.layer_with_weights-0.kernel"]
    assert c.closed
    with pytest.raises(ckpt.FailedPreconditionError, match="closed"):
        c["model.layer_with_weights-0.kernel"]
    assert kept.sum() != 0  # arrays outlive the checkpoint


def test_arrays_own_their_buffer(demo_run):
    with ckpt.open(demo_run) as c:
        a = c["model.layer_with_weights-0.kernel"]
        b = c["model.layer_with_weights-0.kernel"]
    assert a.flags.c_contiguous and a.flags.writeable and a.flags.aligned
    assert not np.shares_memory(a, b)
    assert a.ctypes.data % 64 == 0
    a[0, 0] = 42  # writable: the array is the caller's


def test_open_errors(tmp_path):
    with pytest.raises(ckpt.NotFoundError) as e:
        ckpt.open(tmp_path / "missing" / "ckpt-1")
    assert "missing" in str(e.value)
    with pytest.raises(ckpt.NotFoundError):
        ckpt.open(tmp_path)  # a directory without checkpoints
