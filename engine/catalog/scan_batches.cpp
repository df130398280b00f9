// ScanBatches: see catalog/scan_batches.h.

#include "catalog/scan_batches.h"

#include <algorithm>
#include <set>
#include <unordered_map>

#include "catalog/catalog_rows.h"
#include "ckpt/bundle_naming.h"
#include "ckpt/checkpoint.h"
#include "ckpt/object_graph.h"
#include "ckpt/verify.h"
#include "platform/crc32c.h"
#include "platform/parallel.h"
#include "storage/dispatch.h"

namespace ckpt::catalog {
namespace {

// A batch is written in one transaction; its rows are held in memory
// until then, so it is bounded by checkpoints and by index bytes (an index
// entry takes at least ~16 bytes, so 8 MiB of indexes hold at most ~520,000
// tensor rows; two batches are held at once, one read while the other is
// written). Fewer, larger batches make fewer word-index segments to merge
// and fewer commits: at 2 MiB a million distinct keys (60 KiB indexes)
// took 40 batches and a third more CPU to write than 64.
constexpr size_t kBatchCheckpoints = 64;
constexpr int64_t kBatchIndexBytes = 8 << 20;

bool cancelled(const CatalogScanOptions& options) { return options.cancel && options.cancel->isCancelled(); }

// An unreadable index stamps 0: it reads as changed until it can be read.
uint32_t indexCrc(const std::string& indexPath) {
    auto file = storage::openRandomAccess(indexPath);
    if (!file.ok()) return 0;
    auto crc = storage::fileCrc32c(**file);
    return crc.ok() ? *crc : 0;
}

// Object paths by checkpoint key, from the object graph.
std::unordered_map<std::string, std::string> objectPaths(const ObjectGraph& graph) {
    std::unordered_map<std::string, std::string> paths;
    for (const ObjectNode& node : graph.nodes())
        for (const ObjectAttribute& a : node.attributes) paths.emplace(a.checkpointKey, graph.displayName(node.id));
    return paths;
}

void readCheckpoint(Scanned& s) {
    auto opened = Checkpoint::open(s.entry.prefix);
    if (!opened.ok()) {
        s.error = opened.status().message();
        return;
    }
    const Checkpoint& ckpt = **opened;
    std::unordered_map<std::string, std::string> paths;
    if (const ObjectGraph* graph = ckpt.objectGraph()) {
        s.objects = graph->size();
        paths = objectPaths(*graph);
    }
    s.tensors.reserve(ckpt.bundle().tensors().size());
    for (const TensorInfo& info : ckpt.bundle().tensors()) {
        TensorRow row;
        row.key = info.key;
        if (auto it = paths.find(info.key); it != paths.end()) row.objectPath = it->second;
        row.dtype = std::string(dataTypeShortName(info.dtype));
        row.shape = info.shape.toString();
        row.bytes = info.storedBytes();
        row.crc = info.isPartitioned() ? 0 : platform::crc32cUnmask(info.region.maskedCrc32c);
        s.tensors.push_back(std::move(row));
    }
}

void verifyCheckpoint(Scanned& s, const CancellationToken* cancel) {
    auto report = verifyBundle(s.entry.prefix, {.threads = 1, .progress = {}, .cancel = cancel});
    if (!report.ok()) return;  // cancelled: left unverified
    s.verified = true;
    s.problems = static_cast<int64_t>(report->problems.size());
    if (!report->problems.empty()) s.verifyMessage = report->problems.front().message;
}

// What changed since the database's row, and then its contents.
void readScanned(Scanned& s, const CatalogScanOptions& options) {
    const KnownRow* k = s.known;
    const bool sameIndex = k && !k->missing && k->stamp.size == s.stamp.size && k->stamp.mtimeNs == s.stamp.mtimeNs;
    // The same generation is the same index (a store's ETag; locally
    // inode, size and change time), and the same data files make
    // the same bytes: the checkpoint is not read at all, neither
    // for its step nor for the index's checksum (on a store, GETs).
    if (sameIndex && !s.stamp.generation.empty() && k->stamp.generation == s.stamp.generation &&
        static_cast<int64_t>(listedCheckpointBytes(static_cast<uint64_t>(std::max<int64_t>(s.stamp.size, 0)), s.entry.dataFiles,
                                                   k->shards)) == k->bytes) {
        s.entry.step.step = k->step;
        s.entry.shards = k->shards;
        s.entry.bytes = static_cast<uint64_t>(k->bytes);
        s.stamp.crc = k->stamp.crc;
        s.changed = false;
    } else {
        describeCheckpoint(s.entry, false);
        s.stamp.crc = indexCrc(indexFileName(s.entry.prefix));
        s.changed = !sameIndex || k->bytes != static_cast<int64_t>(s.entry.bytes) || k->stamp.crc != s.stamp.crc;
    }
    if (s.changed) readCheckpoint(s);
    const bool needsVerify = options.verify && s.error.empty() && (s.changed || !k->verified);
    if (needsVerify && !cancelled(options)) verifyCheckpoint(s, options.cancel);
}

}  // namespace

// The next batch's checkpoints, unread: the rest of the current directory
// (what the database knows of it read at its first batch), else the next
// directory's first.
Result<std::unique_ptr<ScanBatch>> ScanBatches::plan() {
    for (; m_dir < m_work.size(); ++m_dir) {
        DirectoryWork& w = m_work[m_dir];
        Directory& d = m_dirs[m_dir];
        if (!d.started) {
            d.started = true;
            CKPT_ASSIGN_OR_RETURN(d.known, m_writer.known(w.dir));
            std::set<std::string> present;
            for (const CheckpointListEntry& e : w.listing.checkpoints) present.insert(e.prefix);
            for (const auto& [prefix, row] : d.known)
                if (!row.missing && !present.count(prefix)) d.vanished.push_back(prefix);
            // Nothing listed and nothing gone: no batch at all.
            if (w.listing.checkpoints.empty() && d.vanished.empty()) continue;
        } else if (d.next >= w.listing.checkpoints.size()) {
            continue;  // its last batch was planned
        }
        auto batch = std::make_unique<ScanBatch>();
        batch->directory = m_dir;
        const auto& entries = w.listing.checkpoints;
        int64_t indexBytes = 0;
        for (; d.next < entries.size() && batch->rows.size() < kBatchCheckpoints && indexBytes < kBatchIndexBytes; ++d.next) {
            Scanned s;
            s.entry = entries[d.next];
            s.stateProblem = w.stateProblem;
            s.stamp = statIndex(indexFileName(s.entry.prefix));
            if (auto it = d.known.find(s.entry.prefix); it != d.known.end()) s.known = &it->second;
            indexBytes += std::max<int64_t>(s.stamp.size, 0);
            batch->rows.push_back(std::move(s));
        }
        if (d.next >= entries.size()) {
            batch->vanished = &d.vanished;
            d.next = entries.size();
        }
        return batch;
    }
    return std::unique_ptr<ScanBatch>();
}

Status ScanBatches::read(ScanBatch& batch) const {
    return platform::forEachItem(batch.rows.size(), platform::hardwareThreads(), [&](size_t, size_t i) {
        if (!cancelled(m_options)) readScanned(batch.rows[i], m_options);
    });
}

void ScanBatches::release(size_t directory) {
    for (; m_released < directory && m_released < m_dirs.size(); ++m_released) {
        m_dirs[m_released].known.clear();
        m_dirs[m_released].vanished.clear();
    }
}

}  // namespace ckpt::catalog
