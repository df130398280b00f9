#pragma once
// updateCheckpointState and commitCheckpointState (ckpt/checkpoint_state.h)
// for a caller that already holds the directory's lock
// (storage/directory_lock.h): retention and the manager, which rewrite the
// state file and delete under one lock. Engine-internal.

#include <string>

#include "ckpt/checkpoint_state.h"

namespace ckpt::pipeline {

Status updateCheckpointStateLocked(const std::string& dir, const CheckpointStateChange& change);
Status commitCheckpointStateLocked(const std::string& dir, CheckpointState state);

}  // namespace ckpt::pipeline
