#include "ckpt/verify.h"

#include <algorithm>

#include "ckpt/bundle_reader.h"
#include "ckpt/object_graph.h"
#include "format/index_table.h"
#include "format/ordered_code.h"
#include "format/region_scan.h"
#include "platform/file.h"
#include "platform/parallel.h"

namespace ckpt {
namespace {

struct RegionJob {
    std::string key;  // for messages
    DataType dtype;
    int64_t numElements;
    StoredRegion region;
};

}  // namespace

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
        else add(t.key, t.shape, t.region);
    }
    for (size_t shard = 0; shard < files.size(); ++shard) {
        const std::string path = reader.dataPath(static_cast<int32_t>(shard));
        auto file = platform::RandomAccessFile::open(path);
        if (!file) {
            const bool missing = file.status().code() == StatusCode::NotFound;
            report.problems.push_back(
                {platform::baseName(path), "", missing ? "NotFound: missing data shard " + path : file.status().toString()});
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

    // Tensors, largest first so threads finish together. Fixed-size values
    // are checksummed in place; other dtypes need decoding, so the reader
    // reads them whole (they are small in practice).
    std::sort(jobs.begin(), jobs.end(), [](const RegionJob& a, const RegionJob& b) { return a.region.size > b.region.size; });
    std::vector<format::ScannedRegion> regions;
    std::vector<size_t> regionJob;  // job of each scanned region
    int64_t totalBytes = 0;
    for (size_t i = 0; i < jobs.size(); ++i) {
        const RegionJob& job = jobs[i];
        totalBytes += job.region.size;
        const platform::RandomAccessFile* file = files[static_cast<size_t>(job.region.shardId)];
        if (!file) continue;  // reported above
        format::ScannedRegion r{file, job.key, job.region, nullptr, nullptr};
        if (!isFixedSize(job.dtype))
            r.readWhole = [&reader, &job] { return reader.readRegion(job.region, job.dtype, job.numElements, job.key).status(); };
        regions.push_back(std::move(r));
        regionJob.push_back(i);
    }
    format::ScanOptions scan;
    scan.threads = platform::threadsOrDefault(options.threads);
    scan.cancel = options.cancel;
    if (options.progress) scan.progress = [&](int64_t done) { options.progress(done, totalBytes, "verifying tensors"); };
    auto scanned = format::scanRegions(regions, scan);
    if (!scanned && scanned.status().code() == StatusCode::Cancelled)
        return cancelled("verification of " + report.prefix + " was cancelled");
    if (!scanned) return scanned.status();

    std::vector<std::pair<std::string, VerifyProblem>> tensorProblems;
    for (size_t k = 0; k < regions.size(); ++k) {
        const Status& s = scanned->regions[k];
        const std::string& key = jobs[regionJob[k]].key;
        if (!s.isOk()) tensorProblems.push_back({key, {platform::baseName(regions[k].file->path()), key, s.toString()}});
    }
    std::sort(tensorProblems.begin(), tensorProblems.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (auto& [key, problem] : tensorProblems) report.problems.push_back(std::move(problem));
    report.tensorsChecked = static_cast<int64_t>(jobs.size());
    report.bytesChecked = scanned->bytesScanned;

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

}  // namespace ckpt
