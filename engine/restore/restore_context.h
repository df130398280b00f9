#pragma once
// What every part of one restore shares: the checkpoint, the program root
// (held weakly: a restore never keeps a program alive), the options and the
// errors met so far, in the order they happened.

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ckpt/checkpoint.h"
#include "ckpt/restore.h"
#include "restore/program_objects.h"

namespace ckpt::restore {

struct RestoreContext {
    std::shared_ptr<const Checkpoint> ckpt;  // null: initialization only
    std::weak_ptr<Trackable> root;
    RestoreOptions options;
    std::vector<Status> errors;
    // Bytes read so far and the total RestoreOptions::progress reports
    // against (every byte the checkpoint stores: an upper bound, since a
    // restore reads only what it matches). Set while restoreCheckpoint()
    // runs; cancel and progress are cleared when it returns.
    std::atomic<int64_t> bytesRead{0};
    int64_t bytesTotal = 0;
    bool cancelled = false;

    // The program's objects as they are now (slots unless skipped).
    std::vector<ProgramObject> programObjects() const;
    // The object's path from the root, or "(unreachable object)".
    std::string programPathOf(const Trackable* object) const;
};

}  // namespace ckpt::restore
