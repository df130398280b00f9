"""Fixtures for the ckpt package's tests (tests/python, run by CTest as
tst_python with PYTHONPATH at the build's python/ directory).

Checkpoints come from real TensorFlow: the real corpus
(CKPT_TESTDATA_REAL), tests/interop/make_fixtures.py's fixtures (every
dtype, strings, slots, shards, partitioned TF1 variables) written once per
session, and a `ckpt demo-train` run. TensorFlow in this interpreter is the
oracle; it is imported only by the tests that compare with it.
"""

import glob
import json
import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE_DIR = os.environ.get("CKPT_SOURCE_DIR", os.path.abspath(os.path.join(HERE, "..", "..")))
BINARY_DIR = os.environ.get("CKPT_BINARY_DIR", os.path.join(SOURCE_DIR, "build"))
CLI = os.environ.get("CKPT_CLI", os.path.join(BINARY_DIR, "app", "cli", "ckpt"))


def real_corpus_dir():
    d = os.environ.get("CKPT_TESTDATA_REAL") or os.environ.get("CKPT_TESTDATA_REAL_DEFAULT")
    if d and os.path.isdir(d):
        return d
    if os.environ.get("CKPT_REQUIRE_REAL"):
        pytest.fail(f"CKPT_REQUIRE_REAL is set but the real corpus is not at {d!r}")
    pytest.skip("real checkpoint corpus not found (CKPT_TESTDATA_REAL)")


@pytest.fixture(scope="session")
def real_prefixes():
    d = real_corpus_dir()
    prefixes = sorted(p[: -len(".index")] for p in glob.glob(os.path.join(d, "**", "*.index"), recursive=True))
    assert len(prefixes) >= 5, f"expected the real corpus in {d}"
    return prefixes


@pytest.fixture(scope="session")
def tf():
    try:
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
        import tensorflow
    except ImportError:
        if os.environ.get("CKPT_REQUIRE_PYTHON"):
            pytest.fail("CKPT_REQUIRE_PYTHON is set but TensorFlow, the oracle, cannot be imported")
        pytest.skip("TensorFlow (the oracle) is not installed")
    return tensorflow


@pytest.fixture(scope="session")
def fixtures_dir(tmp_path_factory, tf):
    out = tmp_path_factory.mktemp("tf-fixtures") / "out"
    subprocess.run([sys.executable, os.path.join(SOURCE_DIR, "tests", "interop", "make_fixtures.py"), str(out)],
                   check=True, stdout=subprocess.DEVNULL)
    return out


@pytest.fixture(scope="session")
def fixture_prefixes(fixtures_dir):
    with open(fixtures_dir / "fixtures.json", encoding="utf-8") as f:
        doc = json.load(f)
    return sorted(c["prefix"] for fx in doc["fixtures"] for c in fx["checkpoints"])


@pytest.fixture(scope="session")
def all_prefixes(real_prefixes, fixture_prefixes):
    return real_prefixes + fixture_prefixes


def run_cli(*args, check=True):
    """`ckpt ARGS`; returns the completed process (stdout as text)."""
    return subprocess.run([CLI, *map(str, args)], capture_output=True, text=True, check=check)


@pytest.fixture(scope="session")
def demo_run(tmp_path_factory):
    run = tmp_path_factory.mktemp("demo") / "exp1"
    run_cli("demo-train", run, "--owner", "exp1")
    return run
