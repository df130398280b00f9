#pragma once
// The values of a checkpoint as comparisons see them: each with the path it
// is paired by, its place in a merged tree and its role. One rule for
// `ckpt diff`, `ckpt history` and the explorer: object-based checkpoints by
// TensorFlow's object path, name-based ones (and mixed pairs) by key.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ckpt/checkpoint.h"
#include "ckpt/checkpoint_diff.h"

namespace ckpt::compare {

struct ComparableValue {
    std::string path;  // what pairs it
    const TensorInfo* tensor = nullptr;
    DiffRole role = DiffRole::Variable;
    std::vector<std::string> location;
    std::string slotOf, optimizer, slotName;  // slot variables
    bool optimizerState = false;              // slots, optimizer objects' values, save_counter
};

struct ValueFilter {
    bool weightsOnly = false;
    std::vector<std::string> includes;  // globs; empty: all
    std::vector<std::string> excludes;
};

struct ComparableValues {
    std::vector<ComparableValue> values;  // sorted by path
    int64_t excluded = 0;                 // left out by the filter
};

// byPath: pair by object path (object-based checkpoints only); else by key.
ComparableValues comparableValues(const Checkpoint& checkpoint, bool byPath, const ValueFilter& filter);

// fnmatch(3) without FNM_PATHNAME: '*' also crosses '/' and '.'.
bool globMatches(const std::string& pattern, std::string_view text);

// A key split on '/', for trees of name-based checkpoints.
std::vector<std::string> keyLocation(std::string_view key);

}  // namespace ckpt::compare
