// Writes the text-format `checkpoint` state file atomically (docs/format.md, "The `checkpoint` file").

#include <google/protobuf/text_format.h>

#include <algorithm>

#include "ckpt/bundle_naming.h"
#include "ckpt/checkpoint_state.h"
#include "checkpoint_state.pb.h"
#include "pipeline/state_commit.h"
#include "storage/directory_lock.h"
#include "storage/dispatch.h"
#include "platform/file.h"

namespace ckpt {

Status writeCheckpointState(const std::string& dir, const CheckpointState& state) {
    const std::string path = platform::joinPath(dir, kCheckpointStateFile);
    if (resolveStatePath(dir, state.modelCheckpointPath) == path)
        return invalidArgument("save path " + state.modelCheckpointPath + " conflicts with the checkpoint state file " + path);
    tensorflow::CheckpointState proto;
    proto.set_model_checkpoint_path(state.modelCheckpointPath);
    for (const auto& p : state.allModelCheckpointPaths) proto.add_all_model_checkpoint_paths(p);
    for (double t : state.allModelCheckpointTimestamps) proto.add_all_model_checkpoint_timestamps(t);
    proto.set_last_preserved_timestamp(state.lastPreservedTimestamp);
    std::string text;
    if (!google::protobuf::TextFormat::PrintToString(proto, &text))
        return internalError("cannot format the checkpoint state for " + path);
    return storage::writeObject(path, text).status();
}

Status commitCheckpointState(const std::string& dir, CheckpointState state) {
    CKPT_ASSIGN_OR_RETURN(auto lock, storage::DirectoryLock::acquire(dir.empty() ? "." : dir));
    return pipeline::commitCheckpointStateLocked(dir, std::move(state));
}

namespace pipeline {

Status commitCheckpointStateLocked(const std::string& dir, CheckpointState state) {
    const std::vector<std::string> gone = stateEntriesWithoutIndex(dir, state);
    const auto isGone = [&](const std::string& p) { return std::find(gone.begin(), gone.end(), p) != gone.end(); };
    if (!gone.empty()) {
        const bool paired = state.allModelCheckpointTimestamps.size() == state.allModelCheckpointPaths.size();
        CheckpointState kept = state;
        kept.allModelCheckpointPaths.clear();
        if (paired) kept.allModelCheckpointTimestamps.clear();
        for (size_t i = 0; i < state.allModelCheckpointPaths.size(); ++i) {
            if (isGone(state.allModelCheckpointPaths[i])) continue;
            kept.allModelCheckpointPaths.push_back(state.allModelCheckpointPaths[i]);
            if (paired) kept.allModelCheckpointTimestamps.push_back(state.allModelCheckpointTimestamps[i]);
        }
        // TensorFlow lists the latest last: the newest that remains stands in for it.
        if (isGone(kept.modelCheckpointPath))
            kept.modelCheckpointPath = kept.allModelCheckpointPaths.empty() ? std::string() : kept.allModelCheckpointPaths.back();
        state = std::move(kept);
    }
    if (state.modelCheckpointPath.empty() && state.allModelCheckpointPaths.empty()) {
        const std::string path = platform::joinPath(dir, kCheckpointStateFile);
        CKPT_ASSIGN_OR_RETURN(auto there, storage::stat(path, /*follow=*/false));
        if (!there) return okStatus();
        CKPT_RETURN_IF_ERROR(storage::remove(path));
        return storage::syncDirectory(dir);
    }
    return writeCheckpointState(dir, state);
}

}  // namespace pipeline
}  // namespace ckpt
