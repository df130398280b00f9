// Writes the text-format `checkpoint` state file atomically, and updates it
// by compare-and-swap (docs/format.md, "The `checkpoint` file";
// docs/reliability.md, "Guarantees").

#include <google/protobuf/text_format.h>

#include <algorithm>
#include <chrono>
#include <random>
#include <thread>

#include "ckpt/bundle_naming.h"
#include "ckpt/checkpoint_state.h"
#include "checkpoint_state.pb.h"
#include "pipeline/state_commit.h"
#include "storage/directory_lock.h"
#include "storage/dispatch.h"
#include "platform/file.h"

namespace ckpt {
namespace {

Result<std::string> formatCheckpointState(const std::string& dir, const CheckpointState& state) {
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
    return text;
}

// The state without entries whose index is gone (commitCheckpointState's
// rule); nullopt when nothing is left.
std::optional<CheckpointState> withoutGoneEntries(const std::string& dir, CheckpointState state) {
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
    if (state.modelCheckpointPath.empty() && state.allModelCheckpointPaths.empty()) return std::nullopt;
    return state;
}

// Between attempts: a few milliseconds, growing, jittered so that writers
// that collided do not collide again in step.
void backOff(int attempt) {
    thread_local std::minstd_rand random{std::random_device{}()};
    const int ceilingMs = std::min(2 << attempt, 200);
    std::this_thread::sleep_for(std::chrono::milliseconds(1 + static_cast<int>(random() % static_cast<unsigned>(ceilingMs))));
}

}  // namespace

Status writeCheckpointState(const std::string& dir, const CheckpointState& state) {
    CKPT_ASSIGN_OR_RETURN(const std::string text, formatCheckpointState(dir, state));
    return storage::writeObject(platform::joinPath(dir, kCheckpointStateFile), text).status();
}

Status updateCheckpointState(const std::string& dir, const CheckpointStateChange& change) {
    CKPT_ASSIGN_OR_RETURN(auto lock, storage::DirectoryLock::acquire(dir.empty() ? "." : dir));
    return pipeline::updateCheckpointStateLocked(dir, change);
}

Status recordLatestCheckpoint(const std::string& dir, const std::string& name, double savedAt) {
    return updateCheckpointState(dir, [&](const std::optional<CheckpointState>& current) {
        CheckpointState state = current.value_or(CheckpointState{});
        const bool timed = state.allModelCheckpointTimestamps.size() == state.allModelCheckpointPaths.size();
        for (size_t i = state.allModelCheckpointPaths.size(); i-- > 0;) {
            if (platform::baseName(state.allModelCheckpointPaths[i]) != name) continue;
            state.allModelCheckpointPaths.erase(state.allModelCheckpointPaths.begin() + static_cast<std::ptrdiff_t>(i));
            if (timed)
                state.allModelCheckpointTimestamps.erase(state.allModelCheckpointTimestamps.begin() +
                                                         static_cast<std::ptrdiff_t>(i));
        }
        state.modelCheckpointPath = name;
        state.allModelCheckpointPaths.push_back(name);
        if (timed) state.allModelCheckpointTimestamps.push_back(savedAt);
        return std::optional<CheckpointState>(std::move(state));
    });
}

Status commitCheckpointState(const std::string& dir, CheckpointState state) {
    return updateCheckpointState(dir, [&state](const std::optional<CheckpointState>&) { return state; });
}

namespace pipeline {

Status updateCheckpointStateLocked(const std::string& dir, const CheckpointStateChange& change) {
    const std::string path = platform::joinPath(dir, kCheckpointStateFile);
    CKPT_RETURN_IF_ERROR(storage::checkLocation(path));
    for (int attempt = 0; attempt < kStateUpdateAttempts; ++attempt) {
        if (attempt > 0) backOff(attempt);
        // A file that does not parse is shown to 'change' as none: it is
        // replaced (as TensorFlow's writers replace it), but only if it is
        // still the one that was read.
        std::optional<CheckpointState> current;
        storage::Generation read = storage::Generation::absent();
        if (auto contents = storage::readObject(path, kMaxCheckpointStateBytes); contents.ok()) {
            if (auto parsed = parseCheckpointState(contents->bytes, path); parsed.ok()) current = std::move(*parsed);
            read = contents->generation;
        } else if (contents.status().code() != StatusCode::NotFound) {
            return contents.status().withContext("cannot update the checkpoint state file");
        }
        std::optional<CheckpointState> wanted = change(current);
        if (!wanted) return okStatus();
        const std::optional<CheckpointState> next = withoutGoneEntries(dir, std::move(*wanted));
        if (!next) {
            // Nothing left to name: no state file (a store has no conditional delete to offer here).
            if (read.isAbsent()) return okStatus();
            CKPT_RETURN_IF_ERROR(storage::remove(path));
            return storage::syncDirectory(dir);
        }
        CKPT_ASSIGN_OR_RETURN(const std::string text, formatCheckpointState(dir, *next));
        auto written = storage::writeObject(path, text, storage::WriteCondition::ifMatch(read));
        if (written.ok()) return okStatus();
        if (!storage::isWriteConflict(written.status())) return written.status();
    }
    return failedPrecondition("the checkpoint state file " + path + " kept changing under " +
                              std::to_string(kStateUpdateAttempts) +
                              " attempts to update it (other writers of the directory); nothing was written");
}

Status commitCheckpointStateLocked(const std::string& dir, CheckpointState state) {
    return updateCheckpointStateLocked(dir, [&state](const std::optional<CheckpointState>&) { return state; });
}

}  // namespace pipeline
}  // namespace ckpt
