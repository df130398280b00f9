#pragma once
// Who is writing a checkpoint where there is no rename (an object store):
// there a save writes its data files at their final names, so two savers
// of one prefix would write over each other's shards before either index
// could refuse the other. A claim, "<prefix>.save-claim", is created only
// if absent (If-None-Match: *) before any byte of the checkpoint and
// removed once its index is committed or its files abandoned. A second
// saver of the prefix then fails at once with a clear error, and the
// first one's files are never touched. A claim whose writer is gone (its
// owner token names this boot and a process that ended) or that is older
// than kStaleClaimSeconds (another machine's) is taken over by a
// compare-and-swap on its generation, so of several takers exactly one
// wins (docs/remote.md, "Writing"). Reentrant on the thread that holds it
// (a staged checkpoint claims its prefix, and the save inside it claims it
// again); other threads and processes are refused. A claim is released on
// the thread that took it (a scoped local). Engine-internal.
//   CKPT_ASSIGN_OR_RETURN(auto claim, SaveClaim::acquire(prefix));
//   ... data files, then the index (create-only) ...
//   claim->release();

#include <memory>
#include <string>
#include <string_view>

#include "ckpt/status.h"

namespace ckpt::pipeline {

inline constexpr std::string_view kSaveClaimSuffix = ".save-claim";
// Longer than any save should take: a claim of another machine's writer
// is trusted this long.
inline constexpr double kStaleClaimSeconds = 6 * 3600.0;
inline constexpr size_t kMaxClaimBytes = 4096;

class SaveClaim {
public:
    // AlreadyExists naming the holder (host, process, since when) when a
    // live writer holds the claim.
    static Result<std::unique_ptr<SaveClaim>> acquire(const std::string& prefix);
    // acquire(), then AlreadyExists when a checkpoint is committed at
    // 'prefix' already: written in place, a save would change its files
    // under its index, so it is never replaced (the one home of that rule).
    static Result<std::unique_ptr<SaveClaim>> acquireForNew(const std::string& prefix);
    // Releases the claim if release() was not called (best effort: a claim
    // left behind is stale once this process ends).
    ~SaveClaim();
    SaveClaim(const SaveClaim&) = delete;
    SaveClaim& operator=(const SaveClaim&) = delete;

    Status release();

private:
    explicit SaveClaim(std::string location) : m_location(std::move(location)) {}
    std::string m_location;
    bool m_released = false;
    // Registers a claim this thread now holds (or holds again).
    static std::unique_ptr<SaveClaim> held(const std::string& location);
};

// What a claim's bytes say of its holder, for a taker and for `ckpt gc`.
// One that is not a claim this tool wrote is stale (nothing else writes
// that name).
struct ClaimHolder {
    bool stale = false;       // its save can no longer be running
    std::string why;          // why it is stale ("its writer (pid 7 on this machine) has ended")
    std::string description;  // "a writer on HOST (pid N), claimed S s ago"
};
ClaimHolder judgeClaim(std::string_view bytes, const std::string& location);

// The claim's location for 'prefix'.
std::string saveClaimLocation(std::string_view prefix);

}  // namespace ckpt::pipeline
