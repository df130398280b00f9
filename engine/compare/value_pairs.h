#pragma once
// Numeric comparison of paired values for `ckpt diff`: the checksum
// shortcut, the streamed scan of stored regions (format/region_scan.h's
// pair scan feeding the pair kernel) and whole reads for what cannot be
// streamed (strings, partitioned tensors). Errors name the side.

#include <optional>
#include <string>
#include <vector>

#include "ckpt/bundle_reader.h"
#include "ckpt/checkpoint_diff.h"

namespace ckpt::compare {

struct ValuePair {
    const TensorInfo* a = nullptr;
    const TensorInfo* b = nullptr;     // same dtype and shape as a
    std::optional<TensorDiff> result;  // filled by compareValuePairs; none for undecodable dtypes that differ
    bool equal = false;
};

struct ValuePairsStats {
    int64_t bytesRead = 0;
    int64_t fromChecksums = 0;
    int64_t fromCache = 0;  // pairs whose figures DiffOptions::figures had
};

// Bytes identical by stored checksum and size (every slice alike for
// partitioned tensors): equal without reading. The diff's shortcut, and
// history's "unchanged".
bool sameStoredBytes(const TensorInfo& a, const TensorInfo& b);

// Fills every pair's result and equality; the pairs' tensors are read
// through the bundles 'a' and 'b' (any reader of their data files: the
// TensorInfos need not be the readers' own). 'labelA'/'labelB' prefix
// errors ("A (runs/x/ckpt-1)").
Result<ValuePairsStats> compareValuePairs(const BundleReader& a, const BundleReader& b, std::vector<ValuePair>& pairs,
                                          const DiffOptions& options, const std::string& labelA, const std::string& labelB);

}  // namespace ckpt::compare
