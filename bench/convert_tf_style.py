#!/usr/bin/env python3
"""One TF-style conversion script (list the variables, read each, write
safetensors), run by bench_python_package.py twice: with
`import ckpt.compat as tf` and with `import tensorflow as tf`, the one line
that differs.

usage: convert_tf_style.py ckpt|tensorflow CHECKPOINT OUT.safetensors
"""

import sys

if sys.argv[1] == "ckpt":
    import ckpt.compat as tf
else:
    import tensorflow as tf
from safetensors.numpy import save_file


def main(path, output):
    reader = tf.train.load_checkpoint(path)
    tensors = {}
    for name, _shape in tf.train.list_variables(path):
        value = reader.get_tensor(name)
        if isinstance(value, bytes) or getattr(value, "dtype", None) == object:
            continue  # strings cannot go into safetensors
        tensors[name] = value
    save_file(tensors, output)


if __name__ == "__main__":
    main(sys.argv[2], sys.argv[3])
