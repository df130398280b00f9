// Writes the text-format `checkpoint` state file atomically (docs/format.md, "The `checkpoint` file").

#include <google/protobuf/text_format.h>

#include "ckpt/checkpoint_state.h"
#include "checkpoint_state.pb.h"
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

}  // namespace ckpt
