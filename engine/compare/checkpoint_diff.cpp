// diffCheckpoints: pair the two sides' values, find renames and collapsed
// subtrees, compare the values of each pair, and order the rows.

#include "ckpt/checkpoint_diff.h"

#include <algorithm>
#include <tuple>
#include <unordered_map>

#include "compare/comparable.h"
#include "compare/renames.h"
#include "compare/value_pairs.h"
#include "format/region_scan.h"
#include "platform/cancellation_scope.h"
#include "platform/file.h"
#include "platform/parallel.h"
#include "format/bundle_reader_access.h"
#include "storage/dispatch.h"

namespace ckpt {
namespace {

using compare::ComparableValue;
using compare::WorkingEntry;

DiffSide sideOf(const ComparableValue& v) {
    const TensorInfo& t = *v.tensor;
    return {std::string(v.path), t.key, t.dtype, t.shape, t.storedBytes(), t.isPartitioned() ? 0u : t.region.maskedCrc32c,
            t.isPartitioned()};
}

WorkingEntry pairOf(const ComparableValue* a, const ComparableValue* b) {
    WorkingEntry w;
    w.valueA = a;
    w.valueB = b;
    if (a && b) {
        const bool sameType = a->tensor->dtype == b->tensor->dtype && a->tensor->shape == b->tensor->shape;
        w.status = sameType ? DiffStatus::Unchanged : DiffStatus::TypeChanged;
    } else {
        w.status = a ? DiffStatus::Deleted : DiffStatus::Added;
    }
    return w;
}

// The row users see, built only for rows that are kept, in place in the
// rows' array (a row is ~650 bytes: not built and then moved).
void fillEntry(DiffEntry& e, WorkingEntry& w, const compare::ComparedSides& sides, std::vector<compare::ValuePair>& pairs) {
    if (w.extra && w.extra->objectRow) {
        e = std::move(*w.extra->objectRow);
        return;
    }
    e.status = w.status;
    const bool onB = w.valueB != nullptr;
    const ComparableValue& v = onB ? *w.valueB : *w.valueA;
    const compare::ComparableValues& values = onB ? sides.b : sides.a;
    e.role = v.role;
    std::vector<std::string>* cached = w.extra ? (onB ? &w.extra->locationB : &w.extra->locationA) : nullptr;
    e.location = cached && !cached->empty() ? std::move(*cached) : values.location(v);
    compare::SlotNames slot = values.slotNames(v);
    e.slotOf = std::move(slot.variable);
    e.optimizer = std::move(slot.optimizer);
    e.slotName = std::move(slot.slot);
    if (w.valueA) e.a = sideOf(*w.valueA);
    if (w.valueB) e.b = sideOf(*w.valueB);
    if (w.pair >= 0) e.values = std::move(pairs[static_cast<size_t>(w.pair)].result);
}

// Two saves of one model often list the same paths in the same, sorted
// order (an index lists its keys sorted): then they pair index by index,
// one comparison each, where a hash join of 1,000,000 paths costs a cache
// miss per lookup. Strictly increasing paths are distinct, so the pairs
// are the hash join's.
bool sameOrder(const std::vector<ComparableValue>& va, const std::vector<ComparableValue>& vb) {
    if (va.size() != vb.size()) return false;
    for (size_t i = 0; i < va.size(); ++i)
        if (va[i].path != vb[i].path || (i > 0 && !(va[i - 1].path < va[i].path))) return false;
    return true;
}

// Any other pair of sides: a hash join (sorting 2 x 100,000 long, alike
// paths costs more). A's values in its order, then B's unpaired ones.
void hashJoin(const std::vector<ComparableValue>& va, const std::vector<ComparableValue>& vb, std::vector<WorkingEntry>& work) {
    std::unordered_map<std::string_view, size_t> onB;
    onB.reserve(vb.size());
    for (size_t j = 0; j < vb.size(); ++j) onB.emplace(vb[j].path, j);
    std::vector<bool> pairedB(vb.size(), false);
    for (const ComparableValue& v : va) {
        auto it = onB.find(v.path);
        if (it == onB.end()) {
            work.push_back(pairOf(&v, nullptr));
            continue;
        }
        pairedB[it->second] = true;
        work.push_back(pairOf(&v, &vb[it->second]));
    }
    for (size_t j = 0; j < vb.size(); ++j)
        if (!pairedB[j]) work.push_back(pairOf(nullptr, &vb[j]));
}

// Every data file present and long enough for the regions the index puts
// in it: a side missing a shard is an error even where the checksum
// shortcut would not read it.
Status checkDataFiles(const Checkpoint& c) {
    const BundleReader& bundle = c.bundle();
    for (int32_t shard = 0; shard < bundle.header().numShards; ++shard)
        CKPT_RETURN_IF_ERROR(format::shardFile(bundle, shard).status());
    for (const TensorInfo& t : bundle.tensors()) {
        auto check = [&](const StoredRegion& region) -> Status {
            CKPT_ASSIGN_OR_RETURN(const storage::RandomAccessFile* file, format::shardFile(bundle, region.shardId));
            return format::checkBounds({file, t.key, region, nullptr, {}});
        };
        if (t.isPartitioned()) {
            for (const StoredSlice& s : t.slices) CKPT_RETURN_IF_ERROR(check(s.region));
        } else {
            CKPT_RETURN_IF_ERROR(check(t.region));
        }
    }
    return okStatus();
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

std::string sideLabel(char side, std::string_view path) { return std::string(1, side) + " (" + std::string(path) + ")"; }

}  // namespace

void DiffCounts::count(DiffStatus status) {
    switch (status) {
    case DiffStatus::Added: ++added; break;
    case DiffStatus::Deleted: ++deleted; break;
    case DiffStatus::Modified: ++modified; break;
    case DiffStatus::TypeChanged: ++typeChanged; break;
    case DiffStatus::Renamed: ++renamed; break;
    case DiffStatus::Unchanged: ++unchanged; break;
    }
}

DiffCounts& DiffCounts::operator+=(const DiffCounts& other) {
    added += other.added;
    deleted += other.deleted;
    modified += other.modified;
    typeChanged += other.typeChanged;
    renamed += other.renamed;
    unchanged += other.unchanged;
    return *this;
}

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

char diffStatusCode(DiffStatus status) { return status == DiffStatus::Unchanged ? '=' : diffStatusLetter(status); }

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

Result<CheckpointPair> openCheckpointPair(std::string_view pathA, std::string_view pathB) {
    std::optional<Result<std::shared_ptr<const Checkpoint>>> a, b;
    CKPT_RETURN_IF_ERROR(platform::runWorkers(2, [&](size_t side) {
        if (side == 0) a.emplace(Checkpoint::open(pathA));
        else b.emplace(Checkpoint::open(pathB));
    }));
    if (!*a) return a->status().withContext(sideLabel('A', pathA));
    if (!*b) return b->status().withContext(sideLabel('B', pathB));
    return CheckpointPair{std::move(**a), std::move(**b)};
}

Result<CheckpointDiff> diffCheckpoints(std::string_view pathA, std::string_view pathB, const DiffOptions& options) {
    const platform::CancellationScope scope(options.cancel);  // stops object-store transfers in flight
    CKPT_ASSIGN_OR_RETURN(CheckpointPair pair, openCheckpointPair(pathA, pathB));
    CKPT_ASSIGN_OR_RETURN(CheckpointDiff diff, diffCheckpoints(*pair.a, *pair.b, options));
    // With the user's paths, a directory's state file is checked too.
    const VerifyOptions full{.threads = options.values.cpuThreads, .progress = {}, .cancel = options.cancel};
    for (auto [path, prefix, check] :
         {std::tuple(pathA, diff.prefixA, &diff.checkA), std::tuple(pathB, diff.prefixB, &diff.checkB)}) {
        if (!options.verify) {
            // The index was checked above; a path that named more than the
            // prefix (a directory) adds its state file.
            if (std::string_view(prefix) != path) check->problems = verifyIndexAndState(path, prefix).problems;
            continue;
        }
        CKPT_ASSIGN_OR_RETURN(VerifyReport report, verifyCheckpointPath(path, full));
        check->full = true;
        check->problems = std::move(report.problems);
    }
    return diff;
}

Result<CheckpointDiff> diffCheckpoints(const Checkpoint& a, const Checkpoint& b, const DiffOptions& options) {
    const platform::CancellationScope scope(options.cancel);  // stops object-store transfers in flight
    CheckpointDiff diff;
    diff.prefixA = a.prefix();
    diff.prefixB = b.prefix();
    diff.styleA = a.style();
    diff.styleB = b.style();
    diff.pairedByPath = a.style() == CheckpointStyle::ObjectBased && b.style() == CheckpointStyle::ObjectBased;
    if (Status s = checkDataFiles(a); !s.isOk()) return s.withContext(sideLabel('A', diff.prefixA));
    if (Status s = checkDataFiles(b); !s.isOk()) return s.withContext(sideLabel('B', diff.prefixB));
    diff.checkA.problems = verifyIndexAndState({}, diff.prefixA).problems;
    diff.checkB.problems = verifyIndexAndState({}, diff.prefixB).problems;
    const compare::ValueFilter filter{options.weightsOnly, options.includes, options.excludes};
    // Each side's values on its own thread (a pass over its whole graph).
    std::optional<compare::ComparableValues> sideA, sideB;
    CKPT_RETURN_IF_ERROR(platform::runWorkers(2, [&](size_t side) {
        if (side == 0) sideA.emplace(a, diff.pairedByPath, filter);
        else sideB.emplace(b, diff.pairedByPath, filter);
    }));
    const compare::ComparableValues& valuesA = *sideA;
    const compare::ComparableValues& valuesB = *sideB;
    const compare::ComparedSides sides{valuesA, valuesB, diff.pairedByPath};
    diff.excluded = valuesA.excluded() + valuesB.excluded();

    // Pair by path; rows are put in tree order at the end.
    std::vector<WorkingEntry> work;
    const auto& va = valuesA.values();
    const auto& vb = valuesB.values();
    work.reserve(std::max(va.size(), vb.size()));
    if (sameOrder(va, vb)) {
        for (size_t i = 0; i < va.size(); ++i) work.push_back(pairOf(&va[i], &vb[i]));
    } else {
        hashJoin(va, vb, work);
    }
    compare::detectRenames(work, sides);

    // Values of pairs with one dtype and shape.
    std::vector<compare::ValuePair> pairs;
    std::vector<size_t> pairIndex;
    pairs.reserve(work.size());
    pairIndex.reserve(work.size());
    for (size_t i = 0; i < work.size(); ++i) {
        const WorkingEntry& w = work[i];
        if (w.merged || w.status != DiffStatus::Unchanged) continue;
        pairs.push_back({w.valueA->tensor, w.valueB->tensor, std::nullopt, false});
        pairIndex.push_back(i);
    }
    CKPT_ASSIGN_OR_RETURN(
        compare::ValuePairsStats stats,
        compare::compareValuePairs(a, b, pairs, options, sideLabel('A', diff.prefixA), sideLabel('B', diff.prefixB)));
    diff.bytesRead = stats.bytesRead;
    diff.fromChecksums = stats.fromChecksums;
    diff.fromCache = stats.fromCache;
    for (size_t p = 0; p < pairs.size(); ++p) {
        WorkingEntry& w = work[pairIndex[p]];
        w.pair = static_cast<int32_t>(p);
        w.status = pairs[p].equal ? DiffStatus::Unchanged : DiffStatus::Modified;
    }

    compare::collapseSubtrees(work, sides);

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
    return diff;
}

}  // namespace ckpt
