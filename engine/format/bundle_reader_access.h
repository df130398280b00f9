#pragma once
// What engine modules need of a BundleReader beyond its public API: opening
// it over an index file already open (verify), the open shard files (compare/, surgery/ and convert/ read regions
// themselves), the bundle header parser (checkpoint_step reads only the
// header) and the coverage check of a partitioned tensor's slices (verify).

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "ckpt/bundle_reader.h"
#include "ckpt/status.h"
#include "ckpt/tensor_info.h"
#include "storage/files.h"

namespace ckpt::format {

// The header from the value of the index's "" key; 'indexPath' names the
// file in messages.
Result<BundleHeader> parseBundleHeader(std::string_view value, const std::string& indexPath);

struct BundleReaderAccess {
    // BundleReader::open over the index file already open as 'index' (verify
    // checks its footer first; a remote index is then fetched once).
    static Result<std::unique_ptr<BundleReader>> openWithIndex(std::string_view prefix, const storage::RandomAccessFile& index);
    // A reader of the data files only, for a caller that decodes the index
    // entries itself and keeps few of them (diff by key streams two
    // indexes): tensors() is empty and find() finds nothing, while reads of
    // the TensorInfos the caller holds work as with open().
    static std::unique_ptr<BundleReader> dataReader(std::string_view prefix, const BundleHeader& header);
    // A shard's data file, opened on first use and kept open by the reader.
    // Errors name the file.
    static Result<const storage::RandomAccessFile*> shardFile(const BundleReader& reader, int32_t shardId);
};

inline Result<const storage::RandomAccessFile*> shardFile(const BundleReader& reader, int32_t shardId) {
    return BundleReaderAccess::shardFile(reader, shardId);
}

// Checks that a partitioned tensor's slices lie inside their data files
// and cover its whole shape, reading no values; the shape is bounded by
// the bytes stored before anything is allocated per element. read() does
// this first; verify uses it on its own.
Status checkSliceCoverage(const BundleReader& reader, const TensorInfo& info);

}  // namespace ckpt::format
