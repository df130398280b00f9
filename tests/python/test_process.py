"""The package as a script meets it: in a Python without TensorFlow, under
Ctrl-C, over many calls (no leaks), and the conversion example end to end."""

import os
import resource
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

import ckpt
from conftest import SOURCE_DIR

EXAMPLE = os.path.join(SOURCE_DIR, "examples", "python", "convert_to_safetensors.py")


def python_without_tensorflow(tmp_path, ml_dtypes_too=True):
    """An interpreter command and environment in which TensorFlow cannot be
    imported at all: no site-packages (-S), and a path holding only the
    build's ckpt package, numpy, safetensors and (unless told) ml_dtypes."""
    import ml_dtypes
    import safetensors

    site = tmp_path / "site"
    site.mkdir()
    for module in (np, safetensors) + ((ml_dtypes,) if ml_dtypes_too else ()):
        d = os.path.dirname(module.__file__)
        os.symlink(d, site / os.path.basename(d))
        libs = d + ".libs"  # wheels' vendored shared libraries
        if os.path.isdir(libs):
            os.symlink(libs, site / os.path.basename(libs))
    build_python = os.path.dirname(os.path.dirname(ckpt.__file__))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([build_python, str(site)]), PYTHONNOUSERSITE="1")
    return [sys.executable, "-S"], env


def test_works_without_tensorflow(tmp_path, demo_run):
    cmd, env = python_without_tensorflow(tmp_path)
    probe = textwrap.dedent(
        f"""
        import importlib.util, sys
        assert importlib.util.find_spec("tensorflow") is None, "TensorFlow is importable"
        import ckpt, ckpt.compat
        with ckpt.open({str(demo_run)!r}) as c:
            assert len(c.to_dict()) == len(c.keys()) > 10
        assert ckpt.verify({str(demo_run)!r}).ok
        assert ckpt.compat.list_variables({str(demo_run)!r})
        assert "tensorflow" not in sys.modules
        print("ok without tensorflow")
        """
    )
    p = subprocess.run(cmd + ["-c", probe], env=env, capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert "ok without tensorflow" in p.stdout


def test_bfloat16_without_ml_dtypes(tmp_path, tf, fixtures_dir):
    # Without ml_dtypes, types numpy lacks come as their raw bit patterns.
    cmd, env = python_without_tensorflow(tmp_path, ml_dtypes_too=False)
    probe = textwrap.dedent(
        f"""
        import importlib.util, sys
        assert importlib.util.find_spec("ml_dtypes") is None
        import ckpt
        with ckpt.open({str(fixtures_dir / "dtypes" / "dtypes")!r}) as c:
            v = c["values.bf16"]
        assert v.dtype.name == "uint16", v.dtype
        sys.stdout.buffer.write(v.tobytes())
        """
    )
    p = subprocess.run(cmd + ["-c", probe], env=env, capture_output=True)
    assert p.returncode == 0, p.stderr.decode()
    theirs = tf.train.load_variable(str(fixtures_dir / "dtypes" / "dtypes"), "values/bf16/.ATTRIBUTES/VARIABLE_VALUE")
    assert p.stdout == np.asarray(theirs).view(np.uint16).tobytes()


def test_example_converts_bit_exact_without_tensorflow(tf, tmp_path, demo_run, real_prefixes):
    from safetensors.numpy import load_file

    cmd, env = python_without_tensorflow(tmp_path)
    sources = [str(demo_run)] + [p for p in real_prefixes if "tfx_keras_adam" in p or "t2t_transformer" in p]
    assert len(sources) == 3
    for i, source in enumerate(sources):
        out = tmp_path / f"model{i}.safetensors"
        p = subprocess.run(cmd + [EXAMPLE, source, str(out), "--all", "--keep-names"], env=env,
                           capture_output=True, text=True)
        assert p.returncode == 0, p.stderr
        written = load_file(str(out))
        reader = tf.train.load_checkpoint(source if os.path.exists(source + ".index") else
                                          tf.train.latest_checkpoint(source))
        with ckpt.open(source) as c:
            expected = {n: c.info(n).key for n in c.keys() if c.info(n).dtype != "string"}
        assert set(written) == set(expected)
        for name, key in expected.items():
            theirs = np.asarray(reader.get_tensor(key))
            assert written[name].dtype == theirs.dtype and written[name].shape == theirs.shape
            assert written[name].tobytes() == theirs.tobytes(), name
    # The PyTorch-style mapping: names and transposed dense kernels.
    out = tmp_path / "torch.safetensors"
    p = subprocess.run(cmd + [EXAMPLE, str(demo_run), str(out)], env=env, capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    torch_style = load_file(str(out))
    kernel = tf.train.load_variable(str(demo_run), "model/layer_with_weights-0/kernel/.ATTRIBUTES/VARIABLE_VALUE")
    assert torch_style["model.layer_with_weights-0.weight"].tobytes() == np.ascontiguousarray(kernel.T).tobytes()
    assert not any(k.startswith("optimizer") for k in torch_style)


CANCEL_CHILD = textwrap.dedent(
    """
    import signal, sys, time
    import ckpt
    noticed = []
    def on_sigint(signum, frame):  # runs when the waiting call polls for signals
        noticed.append(time.monotonic())
        raise KeyboardInterrupt
    signal.signal(signal.SIGINT, on_sigint)
    started = []
    def progress(done, total, phase):
        if not started:
            started.append(1)
            print("started", flush=True)
        time.sleep(0.12)  # > the 100 ms progress throttle: called after every part, the call runs ~6 s
    try:
        ckpt.verify(sys.argv[1], threads=1, progress=progress)
        print("finished", flush=True)
    except KeyboardInterrupt:
        print("interrupted", time.monotonic() - noticed[0], flush=True)
    """
)


@pytest.fixture(scope="module")
def big_checkpoint(tmp_path_factory, tf):
    # 48 tensors of 1 MiB: verify reports progress after each.
    d = tmp_path_factory.mktemp("big")
    script = (
        "import sys, numpy as np, tensorflow as tf\n"
        "vs = [tf.Variable(np.full((1 << 18,), i, np.float32)) for i in range(48)]\n"
        "tf.train.Checkpoint(vs=vs).write(sys.argv[1])\n"
    )
    subprocess.run([sys.executable, "-c", script, str(d / "big")], check=True,
                   env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3"))
    return d / "big"


def test_ctrl_c_cancels_within_half_a_second(big_checkpoint):
    child = subprocess.Popen([sys.executable, "-c", CANCEL_CHILD, str(big_checkpoint)],
                             stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline().strip() == "started"
        time.sleep(0.3)
        sent = time.monotonic()
        child.send_signal(signal.SIGINT)
        out = child.stdout.readline().split()
        elapsed = time.monotonic() - sent
        child.wait(timeout=10)
    finally:
        if child.poll() is None:
            child.kill()
    assert out[0] == "interrupted"
    # From SIGINT to the KeyboardInterrupt raised from the call, as the
    # parent sees it; and the engine's share, from the handler (run by the
    # 50 ms signal poll) to the raise, as the child measured it.
    assert elapsed < 0.5, f"the call took {elapsed:.2f} s to stop after SIGINT"
    assert float(out[1]) < 0.25, f"the engine took {float(out[1]):.2f} s to stop after its token was cancelled"


def test_progress_callback_errors_propagate(big_checkpoint):
    def progress(done, total, phase):
        raise RuntimeError("stop here")

    with pytest.raises(RuntimeError, match="stop here"):
        ckpt.verify(big_checkpoint, progress=progress)
    seen = []
    ckpt.verify(big_checkpoint, progress=lambda d, t, p: seen.append((d, t, p)))
    assert seen and seen[-1][0] == seen[-1][1] >= 48 << 20
    assert {p for _, _, p in seen} == {"verifying tensors"}
    assert [d for d, _, _ in seen] == sorted(d for d, _, _ in seen)


def rss_mib():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * resource.getpagesize() / (1 << 20)


def test_no_leaks(big_checkpoint, demo_run):
    def work():
        with ckpt.open(big_checkpoint) as c:
            values = c.to_dict()
            assert len(values) == 48
        with ckpt.open(demo_run) as c:
            c.tree()
            c.keys()
            c["model.layer_with_weights-0.kernel"]
        ckpt.verify(demo_run)
        ckpt.diff(demo_run / "ckpt-4", demo_run / "ckpt-5")
        try:
            ckpt.open(demo_run / "missing")
        except ckpt.NotFoundError:
            pass

    for _ in range(3):
        work()
    before = rss_mib()
    for _ in range(30):
        work()
    grown = rss_mib() - before
    # 30 rounds read 30 x 48 MiB: a leaked buffer would show as hundreds of MiB.
    assert grown < 24, f"RSS grew by {grown:.1f} MiB over 30 rounds"
