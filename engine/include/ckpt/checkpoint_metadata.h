#pragma once
// What ckpt-explorer records beside each checkpoint it writes: a small JSON
// file <prefix>.info.json with the training step, the wall time of the save,
// metrics, tags and the owner (the run that wrote it). Retention reads it to
// order checkpoints by step, to find the best by a metric, to honour pinned
// tags and, above all, to delete only checkpoints it owns: a checkpoint
// without this file (written by TensorFlow, or by another tool) is foreign.
// TensorFlow ignores the file; the checkpoint stays byte-compatible.
// The manager writes it durably (temp file, fsync, rename) before the
// checkpoint's .index commits, so a committed checkpoint always has it; an
// .info.json without an .index is an interrupted save's and is ignored.
//   CheckpointMetadata m; m.step = 1200; m.owner = "run-a"; m.metrics["val_loss"] = 0.41;
//   CKPT_RETURN_IF_ERROR(writeCheckpointMetadata("/runs/a/ckpt-12", m));
//   auto read = readCheckpointMetadata("/runs/a/ckpt-12");   // optional<CheckpointMetadata>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ckpt/status.h"

namespace ckpt {

struct CheckpointMetadata {
    std::optional<int64_t> step;  // the training step the checkpoint holds
    double savedAt = 0;           // seconds since the Unix epoch, when the save started
    std::map<std::string, double> metrics;
    std::vector<std::string> tags;  // "pin", "best", user tags
    std::string owner;              // run id of the writer; empty = nobody's
    std::string schedule;           // the schedule that wrote it, if any
    std::string writer;             // "ckpt-explorer 0.1.0"
};

inline constexpr std::string_view kCheckpointMetadataSuffix = ".info.json";

// "<prefix>.info.json".
std::string checkpointMetadataFileName(std::string_view prefix);

// nullopt when the file does not exist; DataLoss naming the file when it is
// not valid metadata (bad JSON, a field of the wrong type, larger than 1 MiB).
Result<std::optional<CheckpointMetadata>> readCheckpointMetadata(std::string_view prefix);

// The JSON text and its parser ('source' names the file in errors).
std::string checkpointMetadataToJson(const CheckpointMetadata& metadata);
Result<CheckpointMetadata> parseCheckpointMetadata(std::string_view json, std::string_view source);

// Writes <prefix>.info.json atomically and durably (temp + fsync + rename).
Status writeCheckpointMetadata(std::string_view prefix, const CheckpointMetadata& metadata);

}  // namespace ckpt
