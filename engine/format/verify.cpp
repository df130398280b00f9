#include "ckpt/verify.h"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <thread>

#include "ckpt/bundle_reader.h"
#include "ckpt/object_graph.h"
#include "format/index_table.h"
#include "format/ordered_code.h"
#include "platform/crc32c.h"
#include "platform/file.h"

namespace ckpt {
namespace {

constexpr size_t kChunkBytes = 4u << 20;   // pread unit when a region cannot be mapped
constexpr size_t kWindowBytes = 64u << 20; // mapping unit: bounds address space per thread

struct RegionJob {
    std::string key;  // for messages
    DataType dtype;
    int64_t numElements;
    StoredRegion region;
};

// Streams a fixed-size region through the crc; other dtypes are read whole
// (they need decoding and are small in practice). Fixed-size regions are
// mapped window by window and checksummed in place: pread's copy out of the
// page cache alone costs about as much as `cat`, so with it verify could not
// keep up with cat (issue 2 asks for >= 0.8x). pread remains the fallback.
Status checkRegion(const BundleReader& reader, const platform::RandomAccessFile& file, const RegionJob& job,
                   std::vector<uint8_t>& buffer) {
    if (!isFixedSize(job.dtype)) return reader.readRegion(job.region, job.dtype, job.numElements, job.key).status();
    const std::string what = format::printableKey(job.key) + " in " + platform::baseName(file.path());
    const auto offset = static_cast<uint64_t>(job.region.offset);
    const auto size = static_cast<uint64_t>(job.region.size);
    if (offset > file.size() || size > file.size() - offset)
        return dataLoss("entry " + what + " points past the end of the file (offset " + std::to_string(offset) + " + size " +
                        std::to_string(size) + " > " + std::to_string(file.size()) + " bytes)");
    file.adviseSequential(offset, size);
    uint32_t crc = 0;
    for (uint64_t done = 0; done < size;) {
        size_t n = static_cast<size_t>(std::min<uint64_t>(kWindowBytes, size - done));
        if (auto view = file.mapSequential(offset + done, n)) {
            crc = platform::crc32cExtend(crc, view->data(), n);
        } else {
            n = std::min(n, kChunkBytes);
            buffer.resize(std::max(buffer.size(), n));
            CKPT_RETURN_IF_ERROR(file.readExact(offset + done, n, buffer.data()));
            crc = platform::crc32cExtend(crc, buffer.data(), n);
        }
        done += n;
    }
    if (platform::crc32cMask(crc) != job.region.maskedCrc32c) {
        char buf[96];
        std::snprintf(buf, sizeof buf, " (stored 0x%08x, computed 0x%08x)", job.region.maskedCrc32c, platform::crc32cMask(crc));
        return dataLoss("checksum mismatch for " + what + buf);
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

    // Tensors, largest first so threads finish together.
    std::sort(jobs.begin(), jobs.end(), [](const RegionJob& a, const RegionJob& b) { return a.region.size > b.region.size; });
    int64_t totalBytes = 0;
    for (const RegionJob& j : jobs) totalBytes += j.region.size;
    std::atomic<size_t> next{0};
    std::atomic<int64_t> bytesDone{0};
    std::mutex problemsMutex;
    std::vector<std::pair<std::string, VerifyProblem>> tensorProblems;  // Guarded by problemsMutex.
    std::atomic<bool> wasCancelled{false};
    auto worker = [&] {
        std::vector<uint8_t> buffer;
        for (size_t i; (i = next.fetch_add(1)) < jobs.size();) {
            if (options.cancel && options.cancel->isCancelled()) {
                wasCancelled = true;
                return;
            }
            const RegionJob& job = jobs[i];
            const platform::RandomAccessFile* file = files[static_cast<size_t>(job.region.shardId)];
            if (!file) continue;  // reported above
            Status s = checkRegion(reader, *file, job, buffer);
            if (!s.isOk()) {
                std::lock_guard lock(problemsMutex);
                tensorProblems.push_back({job.key, {platform::baseName(file->path()), job.key, s.toString()}});
            }
            const int64_t done = bytesDone.fetch_add(job.region.size) + job.region.size;
            if (options.progress) options.progress(done, totalBytes, "verifying tensors");
        }
    };
    int threads = options.threads > 0 ? options.threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    threads = static_cast<int>(std::min<size_t>(static_cast<size_t>(threads), std::max<size_t>(1, jobs.size())));
    std::vector<std::jthread> pool;
    for (int t = 1; t < threads; ++t) pool.emplace_back(worker);
    worker();
    pool.clear();
    if (wasCancelled) return cancelled("verification of " + report.prefix + " was cancelled");
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
