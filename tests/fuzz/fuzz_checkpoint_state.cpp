// The text-format `checkpoint` state file: parsed from a directory, the
// latest checkpoint resolved through it, and a parsed state written back
// and read again unchanged.

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "ckpt/checkpoint.h"
#include "ckpt/checkpoint_state.h"
#include "fuzz_support.h"
#include "storage/dispatch.h"
#include "platform/file.h"

namespace {

bool sameNumber(double a, double b) { return a == b || (std::isnan(a) && std::isnan(b)); }

bool sameState(const ckpt::CheckpointState& a, const ckpt::CheckpointState& b) {
    if (a.modelCheckpointPath != b.modelCheckpointPath || a.allModelCheckpointPaths != b.allModelCheckpointPaths ||
        !sameNumber(a.lastPreservedTimestamp, b.lastPreservedTimestamp) ||
        a.allModelCheckpointTimestamps.size() != b.allModelCheckpointTimestamps.size())
        return false;
    for (size_t i = 0; i < a.allModelCheckpointTimestamps.size(); ++i)
        if (!sameNumber(a.allModelCheckpointTimestamps[i], b.allModelCheckpointTimestamps[i])) return false;
    return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static const std::string dir = ckpt::platform::joinPath(ckpt::fuzz::scratchDir(), "state");
    static const std::string rewritten = ckpt::platform::joinPath(ckpt::fuzz::scratchDir(), "state-rewritten");
    static const bool made = ckpt::storage::createDirectories(dir).isOk() && ckpt::storage::createDirectories(rewritten).isOk();
    ckpt::fuzz::require(made, "cannot create the state directories");
    ckpt::fuzz::writeInput(ckpt::platform::joinPath(dir, ckpt::kCheckpointStateFile),
                           std::string_view(reinterpret_cast<const char*>(data), size));

    (void)ckpt::latestCheckpoint(dir);
    (void)ckpt::resolveCheckpoint(dir);
    auto state = ckpt::readCheckpointState(dir);
    if (!state) return 0;
    ckpt::fuzz::require(state->has_value(), "an existing state file read as absent");
    ckpt::fuzz::require(ckpt::writeCheckpointState(rewritten, **state).isOk(), "cannot write a parsed state back");
    auto again = ckpt::readCheckpointState(rewritten);
    ckpt::fuzz::require(again.ok() && again->has_value() && sameState(**state, **again),
                        "a state file does not survive write + read");
    return 0;
}
