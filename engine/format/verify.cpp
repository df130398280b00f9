#include "ckpt/verify.h"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <thread>

#include "ckpt/bundle_reader.h"
#include "ckpt/object_graph.h"
#include "format/index_table.h"
#include "format/ordered_code.h"
#include "format/region_read.h"
#include "platform/crc32c.h"
#include "platform/file.h"

namespace ckpt {
namespace {

struct RegionJob {
    std::string key;  // for messages
    DataType dtype;
    int64_t numElements;
    StoredRegion region;
};

// A piece of one region. Fixed-size regions larger than kRegionPartBytes are split
// so one huge tensor (an embedding table) still uses every thread; the
// parts' CRCs are joined with crc32cCombine. Other dtypes are one part read
// whole (they need decoding and are small in practice).
struct PartJob {
    size_t region;    // index into the region jobs
    uint64_t begin;   // offset inside the region
    uint64_t length;
};

struct PartResult {
    uint32_t crc = 0;  // unmasked crc32c of the part (fixed-size dtypes)
    Status status;
};

std::string regionName(const RegionJob& job, const platform::RandomAccessFile& file) {
    return format::printableKey(job.key) + " in " + platform::baseName(file.path());
}

// Checksums a part in place (format::readRegionPart reads mapped page-cache
// pages without a copy). Other dtypes are read whole and decoded.
PartResult checkPart(const BundleReader& reader, const platform::RandomAccessFile& file, const RegionJob& job,
                     const PartJob& part, std::vector<uint8_t>& buffer) {
    PartResult r;
    if (!isFixedSize(job.dtype)) {
        r.status = reader.readRegion(job.region, job.dtype, job.numElements, job.key).status();
        return r;
    }
    auto crc = format::readRegionPart(file, static_cast<uint64_t>(job.region.offset) + part.begin, part.length, nullptr, buffer);
    if (crc) r.crc = *crc;
    else r.status = crc.status();
    return r;
}

// Joins a fixed-size region's parts and compares with the stored checksum.
Status finishRegion(const RegionJob& job, const platform::RandomAccessFile& file, const std::vector<PartJob>& parts,
                    const std::vector<PartResult>& results, size_t first, size_t count) {
    for (size_t i = first; i < first + count; ++i)
        if (!results[i].status.isOk()) return results[i].status;
    if (!isFixedSize(job.dtype)) return Status::ok();
    std::vector<format::RegionPart> pieces;
    std::vector<uint32_t> crcs;
    for (size_t i = first; i < first + count; ++i) {
        pieces.push_back({parts[i].begin, parts[i].length});
        crcs.push_back(results[i].crc);
    }
    const uint32_t crc = format::combinePartCrcs(pieces, crcs);
    if (platform::crc32cMask(crc) != job.region.maskedCrc32c) {
        char buf[96];
        std::snprintf(buf, sizeof buf, " (stored 0x%08x, computed 0x%08x)", job.region.maskedCrc32c, platform::crc32cMask(crc));
        return dataLoss("checksum mismatch for " + regionName(job, file) + buf);
    }
    return Status::ok();
}

} // namespace

Result<VerifyReport> verifyBundle(std::string_view prefixView, const VerifyOptions& options) {
    VerifyReport report;
    report.prefix = std::string(prefixView);
    const std::string indexPath = report.prefix + ".index";
    const std::string indexName = platform::baseName(indexPath);

    if (Status s = format::verifyIndexFooterAndMetaindex(indexPath); !s.isOk()) {
        report.problems.push_back({indexName, "", s.toString()});
        return report;
    }
    auto opened = BundleReader::open(report.prefix);
    if (!opened) {
        report.problems.push_back({indexName, "", opened.status().toString()});
        return report;
    }
    const BundleReader& reader = **opened;

    // Data files: present, and large enough for every region they hold.
    std::vector<const platform::RandomAccessFile*> files(static_cast<size_t>(reader.header().numShards), nullptr);
    std::vector<std::unique_ptr<platform::RandomAccessFile>> owned;
    std::vector<uint64_t> needed(files.size(), 0);
    std::vector<RegionJob> jobs;
    for (const TensorInfo& t : reader.tensors()) {
        auto add = [&](const std::string& key, const TensorShape& shape, const StoredRegion& r) {
            jobs.push_back({key, t.dtype, *shape.numElements(), r});
            needed[static_cast<size_t>(r.shardId)] =
                std::max(needed[static_cast<size_t>(r.shardId)], static_cast<uint64_t>(r.offset + r.size));
        };
        if (t.isPartitioned())
            for (const StoredSlice& s : t.slices) add(t.key + " slice " + s.slice.toString(), s.shape, s.region);
        else
            add(t.key, t.shape, t.region);
    }
    for (size_t shard = 0; shard < files.size(); ++shard) {
        const std::string path = reader.dataPath(static_cast<int32_t>(shard));
        auto file = platform::RandomAccessFile::open(path);
        if (!file) {
            const bool missing = file.status().code() == StatusCode::NotFound;
            report.problems.push_back({platform::baseName(path), "",
                                       missing ? "NotFound: missing data shard " + path : file.status().toString()});
            continue;
        }
        ++report.dataFilesChecked;
        if ((*file)->size() < needed[shard])
            report.problems.push_back({platform::baseName(path), "",
                                       "DataLoss: " + path + " is " + std::to_string((*file)->size()) +
                                           " bytes but the index needs at least " + std::to_string(needed[shard]) +
                                           " (truncated data file)"});
        files[shard] = file->get();
        owned.push_back(std::move(*file));
    }

    // Tensors, largest first so threads finish together; each region becomes
    // one or more parts, kept contiguous so finishRegion can join them.
    std::sort(jobs.begin(), jobs.end(), [](const RegionJob& a, const RegionJob& b) { return a.region.size > b.region.size; });
    std::vector<PartJob> parts;
    std::vector<std::pair<size_t, size_t>> regionParts(jobs.size(), {0, 0});  // first part, count
    std::vector<Status> regionStatus(jobs.size());
    int64_t totalBytes = 0;
    for (size_t i = 0; i < jobs.size(); ++i) {
        const RegionJob& job = jobs[i];
        totalBytes += job.region.size;
        const platform::RandomAccessFile* file = files[static_cast<size_t>(job.region.shardId)];
        if (!file) continue;  // reported above
        const auto offset = static_cast<uint64_t>(job.region.offset);
        const auto size = static_cast<uint64_t>(job.region.size);
        if (isFixedSize(job.dtype) && (offset > file->size() || size > file->size() - offset)) {
            regionStatus[i] = dataLoss("entry " + regionName(job, *file) + " points past the end of the file (offset " +
                                       std::to_string(offset) + " + size " + std::to_string(size) + " > " +
                                       std::to_string(file->size()) + " bytes)");
            continue;
        }
        regionParts[i].first = parts.size();
        if (!isFixedSize(job.dtype)) {
            parts.push_back({i, 0, size});
        } else {
            for (const format::RegionPart& p : format::splitRegion(size)) parts.push_back({i, p.begin, p.length});
        }
        regionParts[i].second = parts.size() - regionParts[i].first;
    }
    std::vector<PartResult> results(parts.size());
    std::atomic<size_t> next{0};
    std::atomic<int64_t> bytesDone{0};
    std::atomic<bool> wasCancelled{false};
    auto worker = [&] {
        std::vector<uint8_t> buffer;
        for (size_t i; (i = next.fetch_add(1)) < parts.size();) {
            if (options.cancel && options.cancel->isCancelled()) {
                wasCancelled = true;
                return;
            }
            const PartJob& part = parts[i];
            const RegionJob& job = jobs[part.region];
            results[i] = checkPart(reader, *files[static_cast<size_t>(job.region.shardId)], job, part, buffer);
            const auto length = static_cast<int64_t>(part.length);
            const int64_t done = bytesDone.fetch_add(length) + length;
            if (options.progress) options.progress(done, totalBytes, "verifying tensors");
        }
    };
    int threads = options.threads > 0 ? options.threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    threads = static_cast<int>(std::min<size_t>(static_cast<size_t>(threads), std::max<size_t>(1, parts.size())));
    std::vector<std::jthread> pool;
    for (int t = 1; t < threads; ++t) pool.emplace_back(worker);
    worker();
    pool.clear();
    if (wasCancelled) return cancelled("verification of " + report.prefix + " was cancelled");

    std::vector<std::pair<std::string, VerifyProblem>> tensorProblems;
    for (size_t i = 0; i < jobs.size(); ++i) {
        const RegionJob& job = jobs[i];
        const platform::RandomAccessFile* file = files[static_cast<size_t>(job.region.shardId)];
        if (!file) continue;
        Status s = regionStatus[i];
        if (s.isOk()) s = finishRegion(job, *file, parts, results, regionParts[i].first, regionParts[i].second);
        if (!s.isOk()) tensorProblems.push_back({job.key, {platform::baseName(file->path()), job.key, s.toString()}});
    }
    std::sort(tensorProblems.begin(), tensorProblems.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (auto& [key, problem] : tensorProblems) report.problems.push_back(std::move(problem));
    report.tensorsChecked = static_cast<int64_t>(jobs.size());
    report.bytesChecked = bytesDone.load();

    // The object graph must parse and its attributes must name stored keys.
    if (const TensorInfo* info = reader.find(kObjectGraphKey); info && info->dtype == DataType::String) {
        auto tensor = reader.read(*info);
        if (tensor && tensor->strings.size() == 1) {
            auto graph = ObjectGraph::parse(tensor->strings[0], indexName);
            if (!graph) {
                report.problems.push_back({indexName, std::string(kObjectGraphKey), graph.status().toString()});
            } else {
                for (const ObjectNode& n : graph->nodes())
                    for (const ObjectAttribute& a : n.attributes) {
                        if (!reader.findKeyOrExtension(a.checkpointKey))
                            report.problems.push_back({indexName, a.checkpointKey,
                                                       "DataLoss: object " + graph->displayName(n.id) + " attribute " + a.name +
                                                           " names key " + format::printableKey(a.checkpointKey) +
                                                           ", which is not in " + indexName});
                    }
            }
        }
    }
    return report;
}

} // namespace ckpt
