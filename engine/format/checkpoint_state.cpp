#include "ckpt/checkpoint_state.h"

#include <algorithm>

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

Result<CheckpointState> parseCheckpointState(std::string_view text, const std::string& path) {
    tensorflow::CheckpointState proto;
    google::protobuf::TextFormat::Parser parser;
    FirstError errors;
    parser.RecordErrorsTo(&errors);
    if (!parser.ParseFromString(std::string(text), &proto))
        return dataLoss("invalid checkpoint state file " + path + ": " + errors.text);
    CheckpointState state;
    state.modelCheckpointPath = proto.model_checkpoint_path();
    state.allModelCheckpointPaths.assign(proto.all_model_checkpoint_paths().begin(), proto.all_model_checkpoint_paths().end());
    state.allModelCheckpointTimestamps.assign(proto.all_model_checkpoint_timestamps().begin(),
                                              proto.all_model_checkpoint_timestamps().end());
    state.lastPreservedTimestamp = proto.last_preserved_timestamp();
    return state;
}

Result<std::optional<CheckpointState>> readCheckpointState(const std::string& dir) {
    const std::string path = platform::joinPath(dir, kCheckpointStateFile);
    CKPT_RETURN_IF_ERROR(storage::checkLocation(path));
    // Read at once, not probed first: on a store that is one GET instead of
    // a HEAD and a GET. Absent, or a directory of that name: no state file.
    auto read = storage::readSmallFile(path, kMaxCheckpointStateBytes);
    if (!read) {
        if (read.status().code() == StatusCode::NotFound || storage::isDirectory(path)) return std::optional<CheckpointState>{};
        return read.status();
    }
    CKPT_ASSIGN_OR_RETURN(CheckpointState state, parseCheckpointState(*read, path));
    return std::optional<CheckpointState>{std::move(state)};
}

std::vector<std::string> stateEntriesWithoutIndex(const std::string& dir, const CheckpointState& state) {
    std::vector<std::string> out;
    const auto gone = [&](const std::string& p) { return !storage::exists(indexFileName(resolveStatePath(dir, p))); };
    if (!state.modelCheckpointPath.empty() && gone(state.modelCheckpointPath)) out.push_back(state.modelCheckpointPath);
    for (const std::string& p : state.allModelCheckpointPaths)
        if (p != state.modelCheckpointPath && std::find(out.begin(), out.end(), p) == out.end() && gone(p)) out.push_back(p);
    return out;
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
