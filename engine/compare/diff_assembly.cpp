#include "compare/diff_assembly.h"

#include <algorithm>

#include "format/bundle_reader_access.h"
#include "format/region_scan.h"

namespace ckpt::compare {
namespace {

DiffSide sideOf(const ComparableValue& v) {
    const TensorInfo& t = *v.tensor;
    return {std::string(v.path), t.key, t.dtype, t.shape, t.storedBytes(), t.isPartitioned() ? 0u : t.region.maskedCrc32c,
            t.isPartitioned()};
}

// The row users see, built only for rows that are kept, in place in the
// rows' array (a row is ~650 bytes: not built and then moved).
void fillEntry(DiffEntry& e, WorkingEntry& w, const ComparedSides& sides, std::vector<ValuePair>& pairs) {
    if (w.extra && w.extra->objectRow) {
        e = std::move(*w.extra->objectRow);
        return;
    }
    e.status = w.status;
    const bool onB = w.valueB != nullptr;
    const ComparableValue& v = onB ? *w.valueB : *w.valueA;
    const ComparableValues& values = onB ? sides.b : sides.a;
    e.role = v.role;
    std::vector<std::string>* cached = w.extra ? (onB ? &w.extra->locationB : &w.extra->locationA) : nullptr;
    e.location = cached && !cached->empty() ? std::move(*cached) : values.location(v);
    SlotNames slot = values.slotNames(v);
    e.slotOf = std::move(slot.variable);
    e.optimizer = std::move(slot.optimizer);
    e.slotName = std::move(slot.slot);
    if (w.valueA) e.a = sideOf(*w.valueA);
    if (w.valueB) e.b = sideOf(*w.valueB);
    if (w.pair >= 0) e.values = std::move(pairs[static_cast<size_t>(w.pair)].result);
}

// rows[k] becomes the row that was at order[k], following each cycle of
// the permutation once: every row moves once, in place.
void placeInOrder(std::vector<DiffEntry>& rows, const std::vector<size_t>& order) {
    std::vector<bool> placed(rows.size(), false);
    for (size_t start = 0; start < rows.size(); ++start) {
        if (placed[start] || order[start] == start) continue;
        DiffEntry held = std::move(rows[start]);
        size_t k = start;
        while (order[k] != start) {
            rows[k] = std::move(rows[order[k]]);
            placed[k] = true;
            k = order[k];
        }
        rows[k] = std::move(held);
        placed[k] = true;
    }
}

}  // namespace

bool sameType(const TensorInfo& a, const TensorInfo& b) { return a.dtype == b.dtype && a.shape == b.shape; }

WorkingEntry pairOf(const ComparableValue* a, const ComparableValue* b) {
    WorkingEntry w;
    w.valueA = a;
    w.valueB = b;
    if (a && b) {
        w.status = sameType(*a->tensor, *b->tensor) ? DiffStatus::Unchanged : DiffStatus::TypeChanged;
    } else {
        w.status = a ? DiffStatus::Deleted : DiffStatus::Added;
    }
    return w;
}

Result<ShardFiles> openShardFiles(const BundleReader& bundle) {
    ShardFiles files;
    for (int32_t shard = 0; shard < bundle.header().numShards; ++shard) {
        CKPT_ASSIGN_OR_RETURN(const storage::RandomAccessFile* file, format::shardFile(bundle, shard));
        files.push_back(file);
    }
    return files;
}

// Shard ids are below num_shards: the index decoder checked them.
Status checkTensorData(const ShardFiles& shards, const TensorInfo& t) {
    auto check = [&](const StoredRegion& region) {
        return format::checkBounds({shards[static_cast<size_t>(region.shardId)], t.key, region, nullptr, {}});
    };
    if (!t.isPartitioned()) return check(t.region);
    for (const StoredSlice& s : t.slices) CKPT_RETURN_IF_ERROR(check(s.region));
    return okStatus();
}

std::string sideLabel(char side, std::string_view path) { return std::string(1, side) + " (" + std::string(path) + ")"; }

Status assembleRows(std::vector<WorkingEntry>& work, const ComparedSides& sides, std::vector<ValuePair>& pairs,
                    const DiffOptions& options, CheckpointDiff& diff) {
    CKPT_RETURN_IF_ERROR(collapseSubtrees(work, sides));

    // Kept rows in tree order; collapsed values right after their object row.
    std::vector<int32_t> newIndex(work.size(), -1);
    std::vector<size_t> kept;
    for (size_t i = 0; i < work.size(); ++i) {
        WorkingEntry& w = work[i];
        if (w.merged) continue;
        if (w.object < 0) diff.counts.count(w.status);
        if (w.status == DiffStatus::Unchanged && !options.keepUnchanged) continue;
        kept.push_back(i);
    }
    // The rows are built in 'entries' and ordered there: one array of rows,
    // not two (at 1,000,000 rows each array is ~650 MB).
    std::vector<DiffEntry>& rows = diff.entries;
    rows.reserve(kept.size());
    for (size_t i : kept) fillEntry(rows.emplace_back(), work[i], sides, pairs);
    pairs = {};  // their figures are in the rows now
    auto before = [](const DiffEntry& ex, const DiffEntry& ey) {
        if (ex.location != ey.location) return ex.location < ey.location;
        return (ex.role == DiffRole::Object) > (ey.role == DiffRole::Object);
    };
    std::vector<size_t> order(kept.size());
    for (size_t k = 0; k < order.size(); ++k) order[k] = k;
    // Rows often come in tree order already: n comparisons instead of a
    // sort's n log n (a stable sort leaves ordered rows where they are).
    if (!std::is_sorted(rows.begin(), rows.end(), before))
        std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) { return before(rows[x], rows[y]); });
    for (size_t k = 0; k < order.size(); ++k) newIndex[kept[order[k]]] = static_cast<int32_t>(k);
    for (size_t k = 0; k < rows.size(); ++k) {
        const WorkingEntry& w = work[kept[k]];
        if (w.object >= 0) rows[k].collapsedInto = newIndex[static_cast<size_t>(w.object)];
    }
    placeInOrder(rows, order);
    return okStatus();
}

}  // namespace ckpt::compare
