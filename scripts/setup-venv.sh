#!/usr/bin/env bash
# Project-local virtualenv with TensorFlow (CPU), numpy and safetensors:
# the oracle for interop tests; and nanobind, scikit-build-core and pytest
# for the Python package (docs/python.md). Re-running is cheap once installed.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
if ! .venv/bin/python -c "import tensorflow, numpy, safetensors, nanobind, scikit_build_core, pytest" 2>/dev/null; then
  .venv/bin/pip install --quiet --disable-pip-version-check --upgrade pip
  .venv/bin/pip install --quiet --disable-pip-version-check -r tests/interop/requirements.txt
fi
.venv/bin/python -c "import tensorflow as tf; print('setup-venv: TensorFlow', tf.__version__)"
