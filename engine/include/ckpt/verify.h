#pragma once
// Full integrity check of one bundle: the index's footer and every block
// checksum, every entry, every data file's presence and size, and every
// tensor's checksum. Reads the data files in parallel, in bounded chunks.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ckpt/cancellation.h"
#include "ckpt/status.h"

namespace ckpt {

struct VerifyProblem {
    std::string file;     // the file at fault (base name)
    std::string key;      // tensor key, empty for file-level problems
    std::string message;  // one precise line, e.g. "DataLoss: checksum mismatch for ..."
};

struct VerifyReport {
    std::string prefix;
    std::vector<VerifyProblem> problems;
    int64_t tensorsChecked = 0;
    int64_t bytesChecked = 0;
    int32_t dataFilesChecked = 0;
    bool ok() const { return problems.empty(); }
};

struct VerifyOptions {
    int threads = 0;  // 0 = one per hardware thread
    ProgressSink progress;
    const CancellationToken* cancel = nullptr;
};

// Problems are findings, not failures: the Result fails only on Cancelled.
// 'prefix' is a bundle prefix (see resolveCheckpoint for user paths).
Result<VerifyReport> verifyBundle(std::string_view prefix, const VerifyOptions& options = {});

// A user's path (prefix, .index, directory or SavedModel, see
// resolveCheckpoint): the bundle it resolves to and, for a directory, its
// `checkpoint` state file, which TensorFlow reads to find the latest
// checkpoint and so must parse even when the bundle was found without it,
// and must not name checkpoints whose index is gone (one problem each).
// Fails when the path resolves to no bundle, or on Cancelled.
Result<VerifyReport> verifyCheckpointPath(std::string_view path, const VerifyOptions& options = {});

// What is cheap to know of a checkpoint another operation opened and would
// otherwise trust (ckpt diff): the checks verifyBundle runs on the index
// before any tensor (its footer and meta blocks) and, when 'path' is a
// directory, its state file, as verifyCheckpointPath words them. Reads a
// few small blocks; tensorsChecked stays 0.
VerifyReport verifyIndexAndState(std::string_view path, std::string_view prefix);

}  // namespace ckpt
