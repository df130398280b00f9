#include "compare/diff_by_key.h"

#include <algorithm>
#include <span>
#include <unordered_map>

#include "ckpt/bundle_naming.h"
#include "ckpt/object_graph.h"
#include "compare/comparable.h"
#include "compare/diff_assembly.h"
#include "format/bundle_reader_access.h"
#include "format/index_entries.h"
#include "format/index_stream.h"
#include "format/index_table.h"

namespace ckpt::compare {
namespace {

// Pairs compared together: their tensors (~0.4 KB a pair with keys and
// shapes) stay near 3 MB, and a batch answered by checksums costs one
// call of compareValuePairs per 8,192 pairs.
constexpr size_t kPairBatch = 8192;

// The prefix of the name-based checkpoint 'path' names; nullopt for an
// object-based one or where resolving or seeking in the index fails (the
// whole path then reports what is wrong, in its words).
std::optional<std::string> nameBasedPrefix(std::string_view path) {
    auto resolved = resolveCheckpoint(path);
    if (!resolved.ok()) return std::nullopt;
    const std::string_view graphKey = kObjectGraphKey;
    auto found = format::lookupIndexEntries(indexFileName(resolved->prefix), std::span(&graphKey, 1));
    if (!found.ok() || (*found)[0].has_value()) return std::nullopt;
    return resolved->prefix;
}

// A streamed side's every value, for the collapse's counts: its index
// decoded again, the filter applied.
ValueSource everyValue(const std::string& prefix, const ValueFilter& filter) {
    return [index = indexFileName(prefix), filter](const ValueVisitor& visit) -> Status {
        std::vector<TensorInfo> partitioned;  // kept for the decoder's slice checks
        return format::decodeIndexEntries(
                   nullptr, index,
                   [&](TensorInfo&& t) -> Status {
                       const ComparableValue v = nameBasedValue(t);
                       if (!filter.excludesValue(v)) visit(v);
                       if (t.isPartitioned()) partitioned.push_back(std::move(t));
                       return okStatus();
                   },
                   [&] { return std::span<TensorInfo>(partitioned); })
            .status();
    };
}

struct Side {
    Side(char side, std::string_view userPath, std::string bundlePrefix, const ValueFilter& filter,
         const CancellationToken* cancel)
        : label(side), path(userPath), prefix(std::move(bundlePrefix)),
          stream(format::IndexStream::start(indexFileName(prefix), cancel)), values(everyValue(prefix, filter)) {}

    // The first data-file problem in key order, as checkDataFiles finds
    // it; a missing shard comes before any tensor's.
    void noteDataError(Status s, std::string_view key, bool missingShard = false) {
        if (!dataError.isOk() && (dataErrorShards || dataErrorKey <= key)) return;
        dataError = std::move(s);
        dataErrorKey = std::string(key);
        dataErrorShards = missingShard;
    }

    char label;
    std::string path, prefix;
    std::unique_ptr<format::IndexStream> stream;
    std::unique_ptr<BundleReader> data;  // reads, no entries
    ShardFiles shards;                   // its open data files, for the bounds
    ComparableValues values;             // held values only
    Status openError;                    // the index could not be decoded
    bool ended = false;
    Status dataError;
    std::string dataErrorKey;
    bool dataErrorShards = false;
    int64_t excluded = 0;
};

class KeyMerge {
public:
    KeyMerge(Side& a, Side& b, const DiffOptions& options, const ValueFilter& filter)
        : m_a(a), m_b(b), m_options(options), m_filter(filter) {
        m_batch.reserve(kPairBatch);
    }

    Result<CheckpointDiff> run();

private:
    struct Batched {
        TensorInfo a, b;
        uint64_t seq = 0;
    };

    // The side's next tensor that is not partitioned and passes the
    // filter, its data checked; nullptr at the end.
    TensorInfo* next(Side& side);
    // A side's index error, after draining A's stream: A's comes first.
    Status openError(Side& failed);
    bool stopped() const { return !m_a.dataError.isOk() || !m_b.dataError.isOk() || !m_compareError.isOk(); }
    void paired(TensorInfo&& a, TensorInfo&& b);
    void unpaired(Side& side, TensorInfo&& t);
    void add(WorkingEntry w, uint64_t seq);
    void flush();
    void pairPartitioned();

    Side& m_a;
    Side& m_b;
    const DiffOptions& m_options;
    const ValueFilter& m_filter;
    std::vector<Batched> m_batch;
    std::vector<WorkingEntry> m_work;
    std::vector<bool> m_gone;  // paired at the end with a partitioned tensor
    // Where each entry's values came in the merge (key order on each side);
    // entries of partitioned tensors come after all ('m_late').
    std::vector<uint64_t> m_seq;
    uint64_t m_next = 0;
    bool m_late = false;
    std::vector<ValuePair> m_pairs;
    int64_t m_droppedUnchanged = 0;
    ValuePairsStats m_stats;
    Status m_compareError;
};

TensorInfo* KeyMerge::next(Side& side) {
    for (TensorInfo* t = side.stream->peek(); t; t = side.stream->peek()) {
        if (!side.dataErrorShards)
            if (Status s = checkTensorData(side.shards, *t); !s.isOk()) side.noteDataError(std::move(s), t->key);
        if (m_filter.keepsAll() || !m_filter.excludesValue(nameBasedValue(*t))) return t;
        ++side.excluded;
        side.stream->pop();
    }
    side.ended = true;
    side.openError = side.stream->status();
    return nullptr;
}

Status KeyMerge::openError(Side& failed) {
    if (&failed == &m_b) {
        while (m_a.stream->peek()) m_a.stream->pop();
        if (Status s = m_a.stream->status(); !s.isOk()) return s.withContext(sideLabel('A', m_a.path));
    }
    Status s = failed.ended ? failed.openError : failed.stream->status();
    return s.withContext(sideLabel(failed.label, failed.path));
}

void KeyMerge::add(WorkingEntry w, uint64_t seq) {
    m_work.push_back(std::move(w));
    m_gone.push_back(false);
    m_seq.push_back(seq);
}

void KeyMerge::unpaired(Side& side, TensorInfo&& t) {
    if (stopped()) return;  // the diff fails: nothing more to keep
    const ComparableValue* v = side.values.hold(std::move(t));
    add(&side == &m_a ? pairOf(v, nullptr) : pairOf(nullptr, v), m_next++);
}

void KeyMerge::paired(TensorInfo&& a, TensorInfo&& b) {
    if (stopped()) return;
    if (!sameType(a, b)) {
        add(pairOf(m_a.values.hold(std::move(a)), m_b.values.hold(std::move(b))), m_next++);
        return;
    }
    m_batch.push_back({std::move(a), std::move(b), m_next++});
    if (m_batch.size() == kPairBatch) flush();
}

void KeyMerge::flush() {
    if (m_batch.empty() || stopped()) {
        m_batch.clear();
        return;
    }
    std::vector<ValuePair> pairs;
    pairs.reserve(m_batch.size());
    for (Batched& p : m_batch) pairs.push_back({&p.a, &p.b, std::nullopt, false});
    // Progress across batches: each batch counts from the bytes compared
    // before it (the whole total is not known until the streams end).
    DiffOptions batch = m_options;
    if (m_options.progress)
        batch.progress = [this](int64_t done, int64_t total, std::string_view phase) {
            m_options.progress(m_stats.bytesRead + done, m_stats.bytesRead + total, phase);
        };
    auto stats = compareValuePairs(*m_a.data, *m_b.data, pairs, batch, sideLabel('A', m_a.prefix), sideLabel('B', m_b.prefix));
    if (!stats.ok()) {
        m_compareError = stats.status();
        m_batch.clear();
        return;
    }
    m_stats.bytesRead += stats->bytesRead;
    m_stats.fromChecksums += stats->fromChecksums;
    m_stats.fromCache += stats->fromCache;
    for (size_t i = 0; i < pairs.size(); ++i) {
        ValuePair& p = pairs[i];
        if (p.equal && !m_options.keepUnchanged) {
            ++m_droppedUnchanged;  // a row nobody asked for: counted only
            continue;
        }
        WorkingEntry w = pairOf(m_a.values.hold(std::move(m_batch[i].a)), m_b.values.hold(std::move(m_batch[i].b)));
        w.status = p.equal ? DiffStatus::Unchanged : DiffStatus::Modified;
        w.pair = static_cast<int32_t>(m_pairs.size());
        p.a = w.valueA->tensor;
        p.b = w.valueB->tensor;
        m_pairs.push_back(std::move(p));
        add(std::move(w), m_batch[i].seq);
    }
    m_batch.clear();
}

// Partitioned tensors come after the streams (their slice entries sort
// elsewhere): they pair with each other or with a value the merge left
// unpaired, whose entry then goes.
void KeyMerge::pairPartitioned() {
    std::vector<TensorInfo> partitioned[2];
    for (Side* side : {&m_a, &m_b}) {
        for (TensorInfo& t : side->stream->partitioned()) {
            if (!side->dataErrorShards)
                if (Status s = checkTensorData(side->shards, t); !s.isOk()) side->noteDataError(std::move(s), t.key);
            if (m_filter.excludesValue(nameBasedValue(t))) ++side->excluded;
            else partitioned[side == &m_b ? 1 : 0].push_back(std::move(t));
        }
    }
    if ((partitioned[0].empty() && partitioned[1].empty()) || stopped()) return;
    m_late = true;
    std::unordered_map<std::string_view, size_t> unpairedOn[2];
    for (size_t i = 0; i < m_work.size(); ++i) {
        const WorkingEntry& w = m_work[i];
        if (w.status == DiffStatus::Deleted) unpairedOn[0].emplace(w.valueA->tensor->key, i);
        if (w.status == DiffStatus::Added) unpairedOn[1].emplace(w.valueB->tensor->key, i);
    }
    // The other side's value of 'key' (partitioned or not), moved out of
    // where it waits; nullopt where there is none.
    std::unordered_map<std::string_view, size_t> partitionedB;
    for (size_t j = 0; j < partitioned[1].size(); ++j) partitionedB.emplace(partitioned[1][j].key, j);
    std::vector<bool> takenB(partitioned[1].size(), false);
    auto unpairedValue = [&](int side, const std::string& key) -> std::optional<TensorInfo> {
        auto it = unpairedOn[side].find(key);
        if (it == unpairedOn[side].end()) return std::nullopt;
        m_gone[it->second] = true;
        const WorkingEntry& w = m_work[it->second];
        return *(side == 0 ? w.valueA : w.valueB)->tensor;  // a copy: held values stay where they are
    };
    for (TensorInfo& a : partitioned[0]) {
        if (auto it = partitionedB.find(a.key); it != partitionedB.end()) {
            takenB[it->second] = true;
            paired(std::move(a), std::move(partitioned[1][it->second]));
        } else if (auto b = unpairedValue(1, a.key)) {
            paired(std::move(a), std::move(*b));
        } else {
            unpaired(m_a, std::move(a));
        }
    }
    for (size_t j = 0; j < partitioned[1].size(); ++j) {
        if (takenB[j]) continue;
        TensorInfo& b = partitioned[1][j];
        if (auto a = unpairedValue(0, b.key)) paired(std::move(*a), std::move(b));
        else unpaired(m_b, std::move(b));
    }
}

Result<CheckpointDiff> KeyMerge::run() {
    auto headerA = m_a.stream->header();
    if (!headerA.ok()) return headerA.status().withContext(sideLabel('A', m_a.path));
    auto headerB = m_b.stream->header();
    if (!headerB.ok()) return openError(m_b);
    for (auto [side, header] : {std::pair(&m_a, &*headerA), std::pair(&m_b, &*headerB)}) {
        side->data = format::BundleReaderAccess::dataReader(side->prefix, *header);
        if (auto shards = openShardFiles(*side->data); shards.ok()) side->shards = std::move(*shards);
        else side->noteDataError(shards.status(), "", true);
    }

    TensorInfo* a = next(m_a);
    TensorInfo* b = next(m_b);
    for (;;) {
        if (!a && !m_a.openError.isOk()) return openError(m_a);
        if (!b && !m_b.openError.isOk()) return openError(m_b);
        if (!a && !b) break;
        const int order = !a ? 1 : !b ? -1 : a->key.compare(b->key);
        if (order <= 0) {
            if (order < 0) unpaired(m_a, std::move(*a));
            else paired(std::move(*a), std::move(*b));
            m_a.stream->pop();
            a = next(m_a);
        }
        if (order >= 0) {
            if (order > 0) unpaired(m_b, std::move(*b));
            m_b.stream->pop();
            b = next(m_b);
        }
    }
    pairPartitioned();
    flush();
    for (Side* side : {&m_a, &m_b})
        if (!side->dataError.isOk()) return side->dataError.withContext(sideLabel(side->label, side->prefix));
    CKPT_RETURN_IF_ERROR(m_compareError);

    // The order of the whole path's entries: A's values in key order, then
    // B's unpaired ones in key order (ties in tree order keep it). The
    // merge met each side's values in key order (integers to sort);
    // partitioned tensors, paired last, need the keys compared.
    std::vector<size_t> order;
    order.reserve(m_work.size());
    for (int group = 0; group < 2; ++group)
        for (size_t i = 0; i < m_work.size(); ++i)
            if (!m_gone[i] && (m_work[i].valueA ? 0 : 1) == group) order.push_back(i);
    if (m_late) {
        auto place = [&](size_t i) {
            const WorkingEntry& w = m_work[i];
            return w.valueA ? std::pair(0, std::string_view(w.valueA->tensor->key))
                            : std::pair(1, std::string_view(w.valueB->tensor->key));
        };
        std::sort(order.begin(), order.end(), [&](size_t x, size_t y) { return place(x) < place(y); });
    } else {
        auto before = [&](size_t x, size_t y) {
            return std::pair(m_work[x].valueA ? 0 : 1, m_seq[x]) < std::pair(m_work[y].valueA ? 0 : 1, m_seq[y]);
        };
        if (!std::is_sorted(order.begin(), order.end(), before)) std::sort(order.begin(), order.end(), before);
    }
    std::vector<WorkingEntry> work;
    work.reserve(order.size());
    for (size_t i : order) work.push_back(std::move(m_work[i]));
    m_work.clear();

    CheckpointDiff diff;
    diff.prefixA = m_a.prefix;
    diff.prefixB = m_b.prefix;
    diff.styleA = diff.styleB = CheckpointStyle::NameBased;
    diff.pairedByPath = false;
    diff.checkA.problems = verifyIndexAndState({}, diff.prefixA).problems;
    diff.checkB.problems = verifyIndexAndState({}, diff.prefixB).problems;
    diff.excluded = m_a.excluded + m_b.excluded;
    diff.bytesRead = m_stats.bytesRead;
    diff.fromChecksums = m_stats.fromChecksums;
    diff.fromCache = m_stats.fromCache;
    const ComparedSides sides{m_a.values, m_b.values, false};
    detectRenames(work, sides);
    CKPT_RETURN_IF_ERROR(assembleRows(work, sides, m_pairs, m_options, diff));
    diff.counts.unchanged += m_droppedUnchanged;
    return diff;
}

}  // namespace

std::optional<Result<CheckpointDiff>> diffByKey(std::string_view pathA, std::string_view pathB, const DiffOptions& options) {
    std::optional<std::string> prefixA = nameBasedPrefix(pathA);
    if (!prefixA) return std::nullopt;
    std::optional<std::string> prefixB = nameBasedPrefix(pathB);
    if (!prefixB) return std::nullopt;
    const ValueFilter filter{options.weightsOnly, options.includes, options.excludes};
    Side a('A', pathA, std::move(*prefixA), filter, options.cancel);
    Side b('B', pathB, std::move(*prefixB), filter, options.cancel);
    return KeyMerge(a, b, options, filter).run();
}

}  // namespace ckpt::compare
