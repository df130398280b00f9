#pragma once
// Byte- and entry-level edits the corruption zoo applies to copies of
// checkpoints: bit flips and truncation at known places in an .index file
// (its blocks are found from the footer, docs/format.md, "Metaindex, index block, footer"), index entries
// rewritten through the engine's own table writer, and damaged blocks
// re-checksummed so that only the intended field is wrong.
// Test code: failures are reported as Status naming the file.

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "ckpt/status.h"
#include "tensor_bundle.pb.h"

namespace ckpt::zoo {

// Where an SSTable's parts are (from its 48-byte footer). The zoo's tables
// have one data block, from byte 0 up to the metaindex block's trailer.
struct TableLayout {
    uint64_t fileSize = 0;
    uint64_t dataBlockSize = 0;  // without its 5-byte trailer
    uint64_t metaindexOffset = 0, metaindexSize = 0;
    uint64_t indexOffset = 0, indexSize = 0;
    uint64_t footerOffset = 0;
};
Result<TableLayout> readTableLayout(const std::string& indexPath);

Status flipBit(const std::string& path, uint64_t offset, uint8_t mask = 0x10);
Status truncateFile(const std::string& path, uint64_t size);
Status overwrite(const std::string& path, uint64_t offset, const std::string& bytes);
Status writeFile(const std::string& path, const std::string& bytes);
Result<std::string> readFile(const std::string& path);

// Every (key, value) of a table, in order.
using IndexEntries = std::vector<std::pair<std::string, std::string>>;
Result<IndexEntries> readIndex(const std::string& indexPath);
// Writes 'entries' as a fresh table (keys must be strictly increasing).
Status writeIndex(const std::string& indexPath, const IndexEntries& entries);
// Reads, edits and rewrites a table.
Status editIndex(const std::string& indexPath, const std::function<Status(IndexEntries&)>& edit);
// Edits one entry's BundleEntryProto ('key' must exist).
Status editEntry(const std::string& indexPath, const std::string& key,
                 const std::function<void(tensorflow::BundleEntryProto&)>& edit);
// Edits the header (the value of the "" key).
Status editHeader(const std::string& indexPath, const std::function<void(tensorflow::BundleHeaderProto&)>& edit);

// Replaces 'from' by 'to' (same length, first occurrence) inside the data
// block and stores a fresh block checksum: a table whose blocks are intact
// but whose keys say something LevelDB's writer would never write.
Status patchDataBlock(const std::string& indexPath, const std::string& from, const std::string& to);

// Serialized protos for hand-made indexes.
std::string headerBytes(int32_t shards = 1);
std::string entryBytes(int dtype, const std::vector<int64_t>& dims, int64_t size, int32_t shard = 0, int64_t offset = 0,
                       uint32_t crc = 0);

}  // namespace ckpt::zoo
