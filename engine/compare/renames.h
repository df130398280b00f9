#pragma once
// The git-like parts of a diff: values that moved (same bytes under another
// path) become renames, and an object whose whole subtree came, went or
// moved together is reported once, as one Object row above its values.

#include <cstdint>
#include <string>
#include <vector>

#include "ckpt/checkpoint_diff.h"
#include "compare/comparable.h"

namespace ckpt::compare {

struct WorkingEntry {
    DiffEntry entry;
    const ComparableValue* valueA = nullptr;
    const ComparableValue* valueB = nullptr;
    bool merged = false;  // an addition folded into a rename: drop it
    int32_t object = -1;  // the collapsed Object row it belongs to (index into entries)
};

// Turns a Deleted and an Added entry with the same dtype, shape, size and
// stored crc32c into one Renamed entry: pairs unique on both sides first,
// then ambiguous ones (zero-initialized values alike) where a rename already
// found maps the one's parent object onto the other's.
void detectRenames(std::vector<WorkingEntry>& entries);

// Appends an Object row for each highest object whose values (at least two)
// were all deleted, all added, or all renamed by one object rename, and
// points the values' 'object' at it. 'byPath': object paths read
// "(root).a.b", else "a/b".
void collapseSubtrees(std::vector<WorkingEntry>& entries, const std::vector<ComparableValue>& valuesA,
                      const std::vector<ComparableValue>& valuesB, bool byPath);

}  // namespace ckpt::compare
