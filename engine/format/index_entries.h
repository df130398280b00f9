#pragma once
// Decoding the index's entries into TensorInfo, with every check
// BundleReader::open makes (dtype, shape, shard id, region size, slices):
// one home for a reader that keeps the entries and for a listing that only
// counts them, so a million-tensor index can be counted in little memory.

#include <functional>
#include <span>
#include <string>

#include "ckpt/bundle_reader.h"
#include "ckpt/status.h"
#include "ckpt/tensor_info.h"
#include "storage/files.h"

namespace ckpt::format {

// Each tensor (not the slice entries) is handed to 'keep' in key order,
// its slices' regions not yet filled in; an error from 'keep' stops the
// decode and is returned. After the last entry 'kept' returns every
// partitioned tensor 'keep' held on to (others may be among them): their
// slices are matched with the slice entries and checked, and slice entries
// no tensor lists are errors. 'openIndex' may be null: the file at 'path'
// is opened. 'header', when set, is told the bundle header before the
// first tensor (a reader of the data files can start then).
using TensorSink = std::function<Status(TensorInfo&&)>;
using HeaderSink = std::function<void(const BundleHeader&)>;
Result<BundleHeader> decodeIndexEntries(const storage::RandomAccessFile* openIndex, const std::string& path,
                                        const TensorSink& keep, const std::function<std::span<TensorInfo>()>& kept,
                                        const HeaderSink& header = {});

// The shape of one slice of a tensor of shape 'full'.
TensorShape sliceShape(const TensorSlice& slice, const TensorShape& full);

}  // namespace ckpt::format
