#pragma once
// What interrupted operations leave in a directory, found and removed:
// staged replacements (finished when they had verified, else removed),
// save shard directories, files written to a temporary name that never
// got renamed (state files, metadata, exports), indexes before their
// rename, and data files or metadata whose checkpoint has no index. `ckpt
// gc DIR` lists them (a dry run unless asked to apply), the scheduler runs
// it on its destinations, and each writer removes its own destination's
// share before it writes (docs/reliability.md, "Temporary files and
// garbage collection").
//
// Never what a running operation still uses: the engine's temporary names
// carry their writer's pid, start time and boot id, and only those whose
// writer has ended are removed at once. Names without that token
// (TensorFlow's, an older ckpt-explorer's), tokens of another boot (or
// another machine sharing the directory), and index-less data files are
// removed only once nothing in them changed for 'graceSeconds'. Symlinks
// are never followed nor removed; only entries directly in the directory
// are considered. On object storage, multipart uploads begun under the
// directory's prefix (at any depth) and never completed — what a killed
// writer leaves, invisible to listings but stored and billed — are listed
// too and aborted once they are 'graceSeconds' old (an upload names no
// owner: a running writer's is younger). Safe from any thread.
//   auto report = collectGarbage("/runs/exp1", {.apply = false});
//   for (const GarbageItem& g : report->items) show(g.path, g.bytes, g.reason);

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ckpt/status.h"

namespace ckpt {

enum class GarbageKind {
    StagedCheckpoint,  // a replacement staged beside its destination
    SaveTemp,          // a save's shard directory
    TempFile,          // a whole file written to a temporary name
    IndexTemp,         // an index written to a temporary name
    OrphanData,        // a data file or metadata with no index to belong to
    SaveClaim,         // a save's claim on its prefix, where there is no rename (an object store)
    PendingUpload,     // a store's multipart upload never completed nor aborted
    WriterParts,       // the parts area of a save by N writers (plan, partial indexes, markers)
};
std::string_view garbageKindName(GarbageKind kind);  // "staged checkpoint", "save shards", ..., "save claim", "open upload"

struct GarbageItem {
    std::string path;
    GarbageKind kind = GarbageKind::TempFile;
    std::string target;   // the checkpoint or file it was for ("ckpt-3", "checkpoint")
    uint64_t bytes = 0;   // everything in it
    double modified = 0;  // the newest mtime in it, seconds since the Unix epoch
    bool removable = false;
    // With apply: it is gone (removed, completed or aborted). A removal
    // that reported success while the item is still listed is an error
    // instead, never counted here.
    bool removed = false;
    // A staged replacement that had verified: collecting it finishes the
    // swap instead of discarding it.
    bool completes = false;
    // Why it is removable or kept: "written by pid 4242, which has ended",
    // "pid 4242 is still running", "modified 3 min ago; kept until 24 h old".
    std::string reason;
    std::string uploadId;  // PendingUpload: the store's id of the upload
};

struct GarbageOptions {
    bool apply = false;  // remove what is removable; otherwise only report
    double now = 0;      // seconds since the epoch; 0: the clock
    // How long unowned leftovers must have stood unchanged before removal.
    double graceSeconds = 24 * 3600.0;
};

struct GarbageReport {
    std::string dir;
    std::vector<GarbageItem> items;  // by path
    uint64_t removableBytes = 0;
    int removed = 0;  // with apply
    uint64_t removedBytes = 0;
    std::vector<std::string> errors;  // with apply: what could not be removed, and why
};

// NotFound / PermissionDenied naming 'dir' when it cannot be listed.
Result<GarbageReport> collectGarbage(std::string_view dir, const GarbageOptions& options = {});

}  // namespace ckpt
