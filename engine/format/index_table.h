#pragma once
// The .index file is a LevelDB SSTable (docs/format.md, "The index file (an SSTable)").
// This wraps Debian's libleveldb Table/TableBuilder with TensorFlow's options
// and turns its errors into Status values that name the file.

#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ckpt/status.h"
#include "storage/files.h"

namespace ckpt::format {

// TensorFlow's table options (docs/format.md, "Writer options and algorithm").
constexpr size_t kIndexBlockSize = 262144;
constexpr int kIndexRestartInterval = 16;
constexpr size_t kSstableFooterSize = 48;  // two padded block handles + 8-byte magic
constexpr size_t kBlockTrailerSize = 5;    // 1-byte type + 32-bit masked crc

// Calls 'visit' for every (key, value) in key order, verifying every block
// checksum. Stops early and returns the visitor's error if it fails.
// Before handing the file to LevelDB the footer and its two block handles
// are validated, so a damaged file never triggers a huge allocation.
using IndexVisitor = std::function<Status(std::string_view key, std::string_view value)>;
Status scanIndexTable(const std::string& path, const IndexVisitor& visit);
// The same over a file already open ('path' names it in messages): a
// caller that checks the file first reads a remote index once.
Status scanIndexTable(const storage::RandomAccessFile& file, const std::string& path, const IndexVisitor& visit);

// The values of 'keys' (in their order; nullopt where the table has no such
// key), found by seeking: only the table's index block and the data blocks
// holding the keys are read, not every entry. Same checks as scanIndexTable.
Result<std::vector<std::optional<std::string>>> lookupIndexEntries(const std::string& path,
                                                                   std::span<const std::string_view> keys);

// Checks the parts LevelDB's reader does not look at: the footer's magic and
// handles and the (always empty) metaindex block's trailer checksum.
Status verifyIndexFooterAndMetaindex(const std::string& path);
Status verifyIndexFooterAndMetaindex(const storage::RandomAccessFile& file, const std::string& path);

// Writes a table with TensorFlow's options. Keys must be added in strictly
// increasing bytewise order. The file is written at 'path' directly; callers
// that need atomicity write to a temporary name and rename.
class IndexTableWriter {
public:
    // 'options' as storage::create takes them (WriteCondition::ifAbsent()
    // makes the index a create-only commit).
    static Result<std::unique_ptr<IndexTableWriter>> create(const std::string& path, const storage::CreateOptions& options = {});
    ~IndexTableWriter();
    IndexTableWriter(const IndexTableWriter&) = delete;
    IndexTableWriter& operator=(const IndexTableWriter&) = delete;

    Status add(std::string_view key, std::string_view value);
    // Writes the metaindex, index block and footer, then fsyncs and closes.
    Status finish();

private:
    struct Impl;
    explicit IndexTableWriter(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> m_impl;
};

}  // namespace ckpt::format
