#include "ckpt/checkpoint_state.h"

#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/text_format.h>

#include "ckpt/bundle_naming.h"
#include "checkpoint_state.pb.h"
#include "platform/file.h"
#include "storage/dispatch.h"

namespace ckpt {
namespace {

// Collects the first parse error so the message can name line and column.
class FirstError final : public google::protobuf::io::ErrorCollector {
public:
    void AddError(int line, google::protobuf::io::ColumnNumber column, const std::string& message) override {
        if (text.empty()) text = "line " + std::to_string(line + 1) + ", column " + std::to_string(column + 1) + ": " + message;
    }
    void AddWarning(int, google::protobuf::io::ColumnNumber, const std::string&) override {}
    std::string text;
};

}  // namespace

std::string resolveStatePath(const std::string& dir, const std::string& path) {
    return !path.empty() && path.front() == '/' ? path : platform::joinPath(dir, path);
}

Result<std::optional<CheckpointState>> readCheckpointState(const std::string& dir) {
    const std::string path = platform::joinPath(dir, kCheckpointStateFile);
    CKPT_RETURN_IF_ERROR(storage::checkLocation(path));
    if (!storage::exists(path) || storage::isDirectory(path)) return std::optional<CheckpointState>{};
    CKPT_ASSIGN_OR_RETURN(const std::string text, storage::readSmallFile(path, 16u << 20));
    tensorflow::CheckpointState proto;
    google::protobuf::TextFormat::Parser parser;
    FirstError errors;
    parser.RecordErrorsTo(&errors);
    if (!parser.ParseFromString(text, &proto)) return dataLoss("invalid checkpoint state file " + path + ": " + errors.text);
    CheckpointState state;
    state.modelCheckpointPath = proto.model_checkpoint_path();
    state.allModelCheckpointPaths.assign(proto.all_model_checkpoint_paths().begin(), proto.all_model_checkpoint_paths().end());
    state.allModelCheckpointTimestamps.assign(proto.all_model_checkpoint_timestamps().begin(),
                                              proto.all_model_checkpoint_timestamps().end());
    state.lastPreservedTimestamp = proto.last_preserved_timestamp();
    return std::optional<CheckpointState>{std::move(state)};
}

Result<std::optional<std::string>> latestCheckpoint(const std::string& dir) {
    CKPT_ASSIGN_OR_RETURN(auto state, readCheckpointState(dir));
    if (!state) return std::optional<std::string>{};
    if (state->modelCheckpointPath.empty())
        return dataLoss("invalid checkpoint state file " + platform::joinPath(dir, kCheckpointStateFile) +
                        ": model_checkpoint_path is empty");
    std::string prefix = resolveStatePath(dir, state->modelCheckpointPath);
    if (!storage::exists(indexFileName(prefix))) return std::optional<std::string>{};
    return std::optional<std::string>{std::move(prefix)};
}

}  // namespace ckpt
