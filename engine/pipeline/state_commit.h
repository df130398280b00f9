#pragma once
// commitCheckpointState (ckpt/checkpoint_state.h) for a caller that already
// holds the directory's lock (storage/directory_lock.h): retention, which
// rewrites the state file and deletes under one lock. Engine-internal.

#include <string>

#include "ckpt/checkpoint_state.h"

namespace ckpt::pipeline {

Status commitCheckpointStateLocked(const std::string& dir, CheckpointState state);

}  // namespace ckpt::pipeline
