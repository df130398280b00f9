"""Damaged and hostile checkpoints raise the engine's clear errors as
exceptions (naming the file and the problem); nothing crashes, hangs or
returns unverified bytes."""

import os
import shutil

import pytest

import ckpt


@pytest.fixture()
def run(demo_run, tmp_path):
    dst = tmp_path / "run"
    shutil.copytree(demo_run, dst)
    return dst


def data_file(prefix):
    return str(prefix) + ".data-00000-of-00001"


def test_flipped_data_byte(run):
    prefix = run / "ckpt-5"
    with ckpt.open(prefix) as c:
        info = c.info("model.layer_with_weights-0.kernel")
    with open(data_file(prefix), "r+b") as f:
        f.seek(info.offset + 5)
        b = f.read(1)
        f.seek(info.offset + 5)
        f.write(bytes([b[0] ^ 0x40]))
    with ckpt.open(prefix) as c:
        with pytest.raises(ckpt.DataLossError) as e:
            c["model.layer_with_weights-0.kernel"]
        assert "checksum mismatch" in str(e.value) and "ckpt-5.data-00000-of-00001" in str(e.value)
        with pytest.raises(ckpt.DataLossError):
            c.to_dict()
        # Other tensors still read; the partial row read is bounds-checked only.
        assert c["model.layer_with_weights-1.bias"].shape == (1,)
        assert c.slice("model.layer_with_weights-0.kernel")[0:1].shape == (1, 32)
    report = ckpt.verify(prefix)
    assert not report.ok and "checksum mismatch" in report.problems[0].message


def test_truncated_data_file(run):
    # The object graph is stored last: decoding it (for names) finds it cut;
    # the index alone still lists and reads what is intact.
    prefix = run / "ckpt-5"
    size = os.path.getsize(data_file(prefix))
    os.truncate(data_file(prefix), size // 2)
    with ckpt.open(prefix) as c:
        assert "model/layer_with_weights-0/kernel/.ATTRIBUTES/VARIABLE_VALUE" in c.keys(raw=True)
        with pytest.raises(ckpt.DataLossError) as e:
            c.keys()
        assert "past the end" in str(e.value) and "ckpt-5.data-00000-of-00001" in str(e.value)
        with pytest.raises(ckpt.DataLossError, match="past the end"):
            c.to_dict(raw=True)


def test_truncated_name_based(fixtures_dir, tmp_path):
    # No object graph to read at open: each read finds the damage.
    # (The copy's state file names the original by its absolute path: open
    # the copied prefix itself, never the directory.)
    shutil.copytree(fixtures_dir / "tf1_saver", tmp_path / "tf1")
    prefix = str(sorted((tmp_path / "tf1").glob("model.ckpt-*.index"))[-1])[: -len(".index")]
    with ckpt.open(prefix) as c:
        info = c.info("encoder/weights")
    os.truncate(data_file(prefix), info.offset + 4)
    with ckpt.open(prefix) as c:
        with pytest.raises(ckpt.DataLossError, match="past the end"):
            c["encoder/weights"]
        with pytest.raises(ckpt.DataLossError, match="past the end"):
            c.slice("encoder/weights")[3:5]
        with pytest.raises(ckpt.DataLossError, match="past the end"):
            c.to_dict()


def test_missing_data_file(run):
    os.remove(data_file(run / "ckpt-5"))
    with ckpt.open(run / "ckpt-5") as c:
        with pytest.raises(ckpt.NotFoundError, match="missing data shard"):
            c["model/layer_with_weights-0/kernel/.ATTRIBUTES/VARIABLE_VALUE"]
        with pytest.raises(ckpt.NotFoundError, match="missing data shard"):
            c.tree()


@pytest.mark.parametrize("damage", ["garbage", "truncate", "empty"])
def test_damaged_index(run, damage):
    index = str(run / "ckpt-5") + ".index"
    if damage == "garbage":
        with open(index, "r+b") as f:
            f.seek(10)
            f.write(os.urandom(64))
    elif damage == "truncate":
        os.truncate(index, os.path.getsize(index) // 3)
    else:
        open(index, "wb").close()
    with pytest.raises(ckpt.DataLossError) as e:
        ckpt.open(run / "ckpt-5")
    assert "ckpt-5.index" in str(e.value)


def test_not_a_regular_file(tmp_path):
    os.mkfifo(tmp_path / "ckpt-1.index")
    with pytest.raises(ckpt.OpError) as e:
        ckpt.open(tmp_path / "ckpt-1")
    assert "ckpt-1.index" in str(e.value)


def test_careless_use(demo_run):
    with ckpt.open(demo_run) as c:
        with pytest.raises(TypeError):
            c[3]
        with pytest.raises(ckpt.NotFoundError):
            c[""]
        with pytest.raises(TypeError):
            c.slice("model.layer_with_weights-0.kernel")["a"]
        assert c.slice("model.layer_with_weights-0.kernel")[5:2].shape == (0, 32)
        with pytest.raises(ckpt.InvalidArgumentError):
            c._reader.read_rows(0, 0, 10**12)
        with pytest.raises(ckpt.OutOfRangeError):
            c._reader.read(10**6)
        graph = c["_CHECKPOINTABLE_OBJECT_GRAPH"]  # a string scalar: bytes
        assert isinstance(graph[()], bytes)
    with pytest.raises(ckpt.InvalidArgumentError):
        ckpt.export(demo_run, "out.unknown-format")
    with pytest.raises(ckpt.InvalidArgumentError):
        ckpt.diff(demo_run, demo_run, slice="not a slice")


def test_threads_and_close(demo_run):
    # Reads run without the GIL; closing meanwhile from another thread must
    # give results or FailedPreconditionError, never a crash.
    import threading

    for _ in range(20):
        c = ckpt.open(demo_run)
        errors = []

        def work():
            try:
                for _ in range(20):
                    c.to_dict()
                    c.keys()
                    c.tree()
            except ckpt.FailedPreconditionError as e:
                assert "closed" in str(e)
            except Exception as e:  # noqa: BLE001 - anything else is the failure
                errors.append(e)

        threads = [threading.Thread(target=work) for _ in range(4)]
        for t in threads:
            t.start()
        c.close()
        for t in threads:
            t.join()
        assert not errors, errors
