"""TensorFlow's view of `checkpoint` state files ckpt-explorer wrote (tst_interop_tf).

For each directory argument prints one JSON line: what tf.train.get_checkpoint_state
parses, tf.train.latest_checkpoint's answer, and the checkpoints a
tf.train.CheckpointManager recovers from the file (it keeps the listed paths newer
than last_preserved_timestamp, in order), then saves once more through that manager
and reports the file it wrote: TensorFlow must read our files and keep writing them.
"""
import json
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import tensorflow as tf  # noqa: E402


def main(argv):
    for directory in argv[1:]:
        state = tf.train.get_checkpoint_state(directory)
        manager = tf.train.CheckpointManager(tf.train.Checkpoint(v=tf.Variable(1.0)), directory, max_to_keep=None)
        result = {
            "dir": directory,
            "model_checkpoint_path": state.model_checkpoint_path,
            "all_model_checkpoint_paths": list(state.all_model_checkpoint_paths),
            "timestamps": len(state.all_model_checkpoint_timestamps),
            "latest_checkpoint": tf.train.latest_checkpoint(directory),
            "manager_checkpoints": list(manager.checkpoints),
        }
        saved = manager.save()
        after = tf.train.get_checkpoint_state(directory)
        result["saved"] = saved
        result["after_latest"] = after.model_checkpoint_path
        print(json.dumps(result), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
