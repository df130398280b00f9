#pragma once
// The git-like parts of a diff: values that moved (same bytes under another
// path) become renames, and an object whose whole subtree came, went or
// moved together is reported once, as one Object row above its values.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ckpt/checkpoint_diff.h"
#include "compare/comparable.h"

namespace ckpt::compare {

// What only some rows need, kept out of the row so that 100,000 unchanged
// rows stay small.
struct WorkingExtra {
    std::vector<std::string> locationA, locationB;  // filled on first use
    std::optional<DiffEntry> objectRow;             // set for Object rows, which have no values
};

struct WorkingEntry {
    DiffStatus status = DiffStatus::Unchanged;
    const ComparableValue* valueA = nullptr;
    const ComparableValue* valueB = nullptr;
    int32_t pair = -1;    // its values' comparison (index into the value pairs)
    int32_t object = -1;  // the collapsed Object row it belongs to (index into entries)
    bool merged = false;  // an addition folded into a rename: drop it
    std::unique_ptr<WorkingExtra> extra;

    WorkingExtra& more() {
        if (!extra) extra = std::make_unique<WorkingExtra>();
        return *extra;
    }
};

// The sides' values, for locations on demand.
struct ComparedSides {
    const ComparableValues& a;
    const ComparableValues& b;
    bool byPath = false;  // object paths read "(root).a.b", else "a/b"
};

// Turns a Deleted and an Added entry with the same dtype, shape, size and
// stored crc32c into one Renamed entry: pairs unique on both sides first,
// then ambiguous ones (zero-initialized values alike) where a rename already
// found maps the one's parent object onto the other's.
void detectRenames(std::vector<WorkingEntry>& entries, const ComparedSides& sides);

// Appends an Object row for each highest object whose values (at least two)
// were all deleted, all added, or all renamed by one object rename, and
// points the values' 'object' at it. 'entries' need not hold every value:
// objects are counted over forEachValue (fails only where a streamed side's
// index cannot be read again).
Status collapseSubtrees(std::vector<WorkingEntry>& entries, const ComparedSides& sides);

}  // namespace ckpt::compare
