#pragma once
// Which tensors of a checkpoint an export writes, under which names, with
// which crc32c, and the metadata that goes with them (docs/convert.md).
// Reads only the index and the object graph. Internal to the engine.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "ckpt/checkpoint.h"
#include "ckpt/convert.h"

namespace ckpt::convert {

struct PlannedArray {
    const TensorInfo* info = nullptr;
    std::string name;
    // crc32c (unmasked) of the value bytes: the index's own for ordinary
    // tensors; for partitioned ones computed from a checked read.
    uint32_t crc32c = 0;
};

struct ExportPlan {
    std::vector<PlannedArray> arrays;  // in the source's data order
    std::map<std::string, std::string> metadata;
    std::vector<std::string> notes;
    uint64_t dataBytes = 0;
};

// Fails as exportCheckpoint documents (unsupported dtypes, shared names).
Result<ExportPlan> planExport(const Checkpoint& checkpoint, const ExportOptions& options);

}  // namespace ckpt::convert
