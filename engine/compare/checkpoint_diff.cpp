// diffCheckpoints: pair the two sides' values, find renames and collapsed
// subtrees, compare the values of each pair, and order the rows.

#include "ckpt/checkpoint_diff.h"

#include <algorithm>
#include <tuple>
#include <unordered_map>

#include "compare/comparable.h"
#include "compare/diff_assembly.h"
#include "compare/diff_by_key.h"
#include "compare/renames.h"
#include "compare/value_pairs.h"
#include "platform/cancellation_scope.h"
#include "platform/parallel.h"

namespace ckpt {
namespace {

using compare::ComparableValue;
using compare::pairOf;
using compare::sideLabel;
using compare::WorkingEntry;

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
// in it (the rule in compare/diff_assembly.h).
Status checkDataFiles(const Checkpoint& c) {
    CKPT_ASSIGN_OR_RETURN(const compare::ShardFiles shards, compare::openShardFiles(c.bundle()));
    for (const TensorInfo& t : c.bundle().tensors()) CKPT_RETURN_IF_ERROR(compare::checkTensorData(shards, t));
    return okStatus();
}

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
    // Two name-based sides are streamed by key (compare/diff_by_key.h).
    // Object-based sides, paired by object path through their graphs, and
    // mixed pairs (an object-based side's values named by their TF1 names,
    // out of key order) are opened whole.
    std::optional<Result<CheckpointDiff>> compared = compare::diffByKey(pathA, pathB, options);
    if (!compared) {
        CKPT_ASSIGN_OR_RETURN(CheckpointPair pair, openCheckpointPair(pathA, pathB));
        compared.emplace(diffCheckpoints(*pair.a, *pair.b, options));
    }
    CKPT_ASSIGN_OR_RETURN(CheckpointDiff diff, std::move(*compared));
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
    CKPT_ASSIGN_OR_RETURN(compare::ValuePairsStats stats,
                          compare::compareValuePairs(a.bundle(), b.bundle(), pairs, options, sideLabel('A', diff.prefixA),
                                                     sideLabel('B', diff.prefixB)));
    diff.bytesRead = stats.bytesRead;
    diff.fromChecksums = stats.fromChecksums;
    diff.fromCache = stats.fromCache;
    for (size_t p = 0; p < pairs.size(); ++p) {
        WorkingEntry& w = work[pairIndex[p]];
        w.pair = static_cast<int32_t>(p);
        w.status = pairs[p].equal ? DiffStatus::Unchanged : DiffStatus::Modified;
    }

    CKPT_RETURN_IF_ERROR(compare::assembleRows(work, sides, pairs, options, diff));
    return diff;
}

}  // namespace ckpt
