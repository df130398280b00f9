// diffCheckpoints: pair the two sides' values, find renames and collapsed
// subtrees, compare the values of each pair, and order the rows.

#include "ckpt/checkpoint_diff.h"

#include <algorithm>

#include "compare/comparable.h"
#include "compare/renames.h"
#include "compare/value_pairs.h"

namespace ckpt {
namespace {

using compare::ComparableValue;
using compare::WorkingEntry;

DiffSide sideOf(const ComparableValue& v) {
    const TensorInfo& t = *v.tensor;
    return {v.path, t.key, t.dtype, t.shape, t.storedBytes(), t.isPartitioned() ? 0u : t.region.maskedCrc32c, t.isPartitioned()};
}

WorkingEntry entryFor(const ComparableValue* a, const ComparableValue* b) {
    WorkingEntry w;
    w.valueA = a;
    w.valueB = b;
    const ComparableValue& v = b ? *b : *a;
    w.entry.role = v.role;
    w.entry.location = v.location;
    w.entry.slotOf = v.slotOf;
    w.entry.optimizer = v.optimizer;
    w.entry.slotName = v.slotName;
    if (a) w.entry.a = sideOf(*a);
    if (b) w.entry.b = sideOf(*b);
    if (a && b) {
        const bool sameType = a->tensor->dtype == b->tensor->dtype && a->tensor->shape == b->tensor->shape;
        w.entry.status = sameType ? DiffStatus::Unchanged : DiffStatus::TypeChanged;
    } else {
        w.entry.status = a ? DiffStatus::Deleted : DiffStatus::Added;
    }
    return w;
}

void count(DiffCounts& c, DiffStatus s) {
    switch (s) {
    case DiffStatus::Added: ++c.added; break;
    case DiffStatus::Deleted: ++c.deleted; break;
    case DiffStatus::Modified: ++c.modified; break;
    case DiffStatus::TypeChanged: ++c.typeChanged; break;
    case DiffStatus::Renamed: ++c.renamed; break;
    case DiffStatus::Unchanged: ++c.unchanged; break;
    }
}

std::string sideLabel(char side, std::string_view path) { return std::string(1, side) + " (" + std::string(path) + ")"; }

}  // namespace

char diffStatusLetter(DiffStatus status) {
    switch (status) {
    case DiffStatus::Unchanged: return ' ';
    case DiffStatus::Added: return 'A';
    case DiffStatus::Deleted: return 'D';
    case DiffStatus::Modified: return 'M';
    case DiffStatus::TypeChanged: return 'T';
    case DiffStatus::Renamed: return 'R';
    }
    return '?';
}

std::string_view diffStatusName(DiffStatus status) {
    switch (status) {
    case DiffStatus::Unchanged: return "unchanged";
    case DiffStatus::Added: return "added";
    case DiffStatus::Deleted: return "deleted";
    case DiffStatus::Modified: return "modified";
    case DiffStatus::TypeChanged: return "type_changed";
    case DiffStatus::Renamed: return "renamed";
    }
    return "unknown";
}

std::string_view diffRoleName(DiffRole role) {
    switch (role) {
    case DiffRole::Variable: return "variable";
    case DiffRole::SlotVariable: return "slot";
    case DiffRole::Attribute: return "attribute";
    case DiffRole::Object: return "object";
    }
    return "unknown";
}

Result<CheckpointDiff> diffCheckpoints(std::string_view pathA, std::string_view pathB, const DiffOptions& options) {
    auto a = Checkpoint::open(pathA);
    if (!a) return a.status().withContext(sideLabel('A', pathA));
    auto b = Checkpoint::open(pathB);
    if (!b) return b.status().withContext(sideLabel('B', pathB));
    return diffCheckpoints(**a, **b, options);
}

Result<CheckpointDiff> diffCheckpoints(const Checkpoint& a, const Checkpoint& b, const DiffOptions& options) {
    CheckpointDiff diff;
    diff.prefixA = a.prefix();
    diff.prefixB = b.prefix();
    diff.styleA = a.style();
    diff.styleB = b.style();
    diff.pairedByPath = a.style() == CheckpointStyle::ObjectBased && b.style() == CheckpointStyle::ObjectBased;
    const compare::ValueFilter filter{options.weightsOnly, options.includes, options.excludes};
    const compare::ComparableValues valuesA = compare::comparableValues(a, diff.pairedByPath, filter);
    const compare::ComparableValues valuesB = compare::comparableValues(b, diff.pairedByPath, filter);
    diff.excluded = valuesA.excluded + valuesB.excluded;

    // Both lists are sorted by path: one merge pairs them.
    std::vector<WorkingEntry> work;
    const auto& va = valuesA.values;
    const auto& vb = valuesB.values;
    for (size_t i = 0, j = 0; i < va.size() || j < vb.size();) {
        if (j == vb.size() || (i < va.size() && va[i].path < vb[j].path)) work.push_back(entryFor(&va[i++], nullptr));
        else if (i == va.size() || vb[j].path < va[i].path) work.push_back(entryFor(nullptr, &vb[j++]));
        else work.push_back(entryFor(&va[i++], &vb[j++]));
    }
    compare::detectRenames(work);

    // Values of pairs with one dtype and shape.
    std::vector<compare::ValuePair> pairs;
    std::vector<size_t> pairOf;
    for (size_t i = 0; i < work.size(); ++i) {
        const WorkingEntry& w = work[i];
        if (w.merged || w.entry.status != DiffStatus::Unchanged) continue;
        pairs.push_back({w.valueA->tensor, w.valueB->tensor, std::nullopt, false});
        pairOf.push_back(i);
    }
    CKPT_ASSIGN_OR_RETURN(
        compare::ValuePairsStats stats,
        compare::compareValuePairs(a, b, pairs, options, sideLabel('A', diff.prefixA), sideLabel('B', diff.prefixB)));
    diff.bytesRead = stats.bytesRead;
    diff.fromChecksums = stats.fromChecksums;
    for (size_t p = 0; p < pairs.size(); ++p) {
        DiffEntry& e = work[pairOf[p]].entry;
        e.values = std::move(pairs[p].result);
        e.status = pairs[p].equal ? DiffStatus::Unchanged : DiffStatus::Modified;
    }

    compare::collapseSubtrees(work, va, vb, diff.pairedByPath);

    // Rows in tree order; collapsed values right after their object row.
    std::vector<size_t> order;
    for (size_t i = 0; i < work.size(); ++i)
        if (!work[i].merged) order.push_back(i);
    std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) {
        const DiffEntry& ex = work[x].entry;
        const DiffEntry& ey = work[y].entry;
        if (ex.location != ey.location) return ex.location < ey.location;
        return (ex.role == DiffRole::Object) > (ey.role == DiffRole::Object);
    });
    std::vector<int32_t> newIndex(work.size(), -1);
    for (size_t k = 0; k < order.size(); ++k) newIndex[order[k]] = static_cast<int32_t>(k);
    diff.entries.reserve(order.size());
    for (size_t k : order) {
        WorkingEntry& w = work[k];
        if (w.object >= 0) w.entry.collapsedInto = newIndex[static_cast<size_t>(w.object)];
        else count(diff.counts, w.entry.status);
        diff.entries.push_back(std::move(w.entry));
    }
    return diff;
}

}  // namespace ckpt
