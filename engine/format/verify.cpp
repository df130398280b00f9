#include "ckpt/verify.h"

#include <algorithm>
#include <deque>
#include <map>

#include "ckpt/bundle_naming.h"
#include "ckpt/bundle_reader.h"
#include "ckpt/checkpoint.h"
#include "ckpt/checkpoint_state.h"
#include "ckpt/object_graph.h"
#include "format/index_table.h"
#include "format/object_graph_entry.h"
#include "format/ordered_code.h"
#include "format/region_scan.h"
#include "platform/cancellation_scope.h"
#include "platform/file.h"
#include "platform/parallel.h"
#include "format/bundle_reader_access.h"
#include "storage/dispatch.h"

namespace ckpt {
namespace {

struct RegionJob {
    std::string_view key;  // for messages: the reader's key, or a slice's name held beside the jobs
    DataType dtype;
    int64_t numElements;
    StoredRegion region;
};

// Data files of the bundle at 'prefix' in its directory, whatever their
// -of- count: what a header's num_shards can be held against.
int64_t countDataFiles(const std::string& prefix) {
    const std::string name = platform::baseName(prefix);
    int64_t count = 0;
    storage::ListOptions options;
    options.namePrefix = name;
    (void)storage::list(platform::dirName(prefix), options, [&](const storage::ListEntry& e) {
        const auto parsed = parseDataFileName(e.name);
        count += parsed && parsed->prefix == name;
        return true;
    });
    return count;
}

// Beyond checksums: what any reader relies on to use the values. Entries of
// a dtype no reader can hold, slices that do not assemble, an object graph
// that is not one scalar string that parses, attributes naming no key.
void checkWhatReadersRelyOn(const BundleReader& reader, const std::string& indexName, VerifyReport& report) {
    auto problem = [&](const std::string& key, const std::string& message) {
        report.problems.push_back({indexName, key, "DataLoss: " + message});
    };
    for (const TensorInfo& t : reader.tensors()) {
        const std::string where = "entry " + format::printableKey(t.key) + " in " + indexName;
        if (t.storedAsReference)
            problem(t.key, where + " has reference dtype " + std::to_string(static_cast<int>(t.dtype) + 100) +
                               ", which no reader can materialise (files hold the base type)");
        else if (t.dtype == DataType::Resource) problem(t.key, where + " has dtype resource, which a checkpoint cannot hold");
        if (t.isPartitioned())
            if (Status s = format::checkSliceCoverage(reader, t); !s.isOk() && s.code() == StatusCode::DataLoss)
                report.problems.push_back({indexName, t.key, s.toString()});
    }
    const TensorInfo* info = reader.find(kObjectGraphKey);
    if (!info) return;
    if (Status s = format::checkObjectGraphEntry(reader, *info); !s.isOk()) {
        report.problems.push_back({indexName, info->key, s.toString()});
        return;
    }
    auto tensor = reader.read(*info);
    if (!tensor || tensor->strings.size() != 1) return;  // its region's problem is reported with the tensors
    auto graph = format::parseObjectGraphEntry(reader, *info, tensor->strings[0]);
    if (!graph) {
        report.problems.push_back(
            {platform::baseName(reader.dataPath(info->region.shardId)), std::string(kObjectGraphKey), graph.status().toString()});
        return;
    }
    for (const ObjectNode& n : graph->nodes())
        for (const ObjectAttribute& a : n.attributes) {
            if (reader.findKeyOrExtension(a.checkpointKey)) continue;
            const std::string what = "object " + graph->displayName(n.id) + " attribute " + a.name;
            if (a.checkpointKey.empty()) problem(a.checkpointKey, what + " has an empty checkpoint key");
            else
                problem(a.checkpointKey,
                        what + " names key " + format::printableKey(a.checkpointKey) + ", which is not in " + indexName);
        }
}

// A directory's `checkpoint` state file, which TensorFlow reads to find the
// latest checkpoint and so must parse.
void checkStateFile(std::string_view path, VerifyReport& report) {
    const std::string dir(path);
    if (!storage::isDirectory(dir)) return;
    auto state = readCheckpointState(dir);
    if (!state) {
        report.problems.push_back({std::string(kCheckpointStateFile), "", state.status().toString()});
        return;
    }
    if (!*state) return;
    // A state file naming checkpoints that are gone sends TensorFlow's
    // latest_checkpoint (and a restore) to nothing.
    const std::string file = platform::joinPath(dir, kCheckpointStateFile);
    for (const std::string& entry : stateEntriesWithoutIndex(dir, **state))
        report.problems.push_back({std::string(kCheckpointStateFile), "",
                                   dataLoss("the state file " + file + " names " + entry + ", which has no index (" +
                                            indexFileName(resolveStatePath(dir, entry)) + " is missing)")
                                       .toString()});
}

Result<VerifyReport> verifyUnderScope(std::string_view prefixView, const VerifyOptions& options) {
    VerifyReport report;
    report.prefix = std::string(prefixView);
    const std::string indexPath = indexFileName(report.prefix);
    const std::string indexName = platform::baseName(indexPath);

    // One open index for the footer check and the reader: a remote index
    // is fetched once.
    auto indexFile = storage::openRandomAccess(indexPath);
    Status footer = indexFile ? format::verifyIndexFooterAndMetaindex(**indexFile, indexPath) : indexFile.status();
    if (!footer.isOk()) {
        report.problems.push_back({indexName, "", footer.toString()});
        return report;
    }
    auto opened = format::BundleReaderAccess::openWithIndex(report.prefix, **indexFile);
    if (!opened) {
        report.problems.push_back({indexName, "", opened.status().toString()});
        return report;
    }
    const BundleReader& reader = **opened;

    // Data files: present, and large enough for every region they hold.
    // Sized by the shards the entries use, never by the header's claim.
    std::map<int32_t, const storage::RandomAccessFile*> files;
    std::vector<std::unique_ptr<storage::RandomAccessFile>> owned;
    std::map<int32_t, uint64_t> needed;
    // One job per region (a million for a million tensors): keys are views.
    std::vector<RegionJob> jobs;
    std::deque<std::string> sliceNames;  // stable addresses as it grows
    jobs.reserve(reader.tensors().size());
    for (const TensorInfo& t : reader.tensors()) {
        auto add = [&](std::string_view key, const TensorShape& shape, const StoredRegion& r) {
            jobs.push_back({key, t.dtype, *shape.numElements(), r});
            needed[r.shardId] = std::max(needed[r.shardId], static_cast<uint64_t>(r.offset + r.size));
        };
        if (t.isPartitioned())
            for (const StoredSlice& s : t.slices)
                add(sliceNames.emplace_back(t.key + " slice " + s.slice.toString()), s.shape, s.region);
        else add(t.key, t.shape, t.region);
    }
    const int32_t numShards = reader.header().numShards;
    // Only a header claiming shards no entry uses needs the directory
    // counted (a listing, a request on a store).
    const int64_t present = numShards > static_cast<int64_t>(needed.size()) ? countDataFiles(report.prefix) : 0;
    if (numShards > static_cast<int64_t>(needed.size()) + present) {
        // Checking each claimed file would be work without bound.
        report.problems.push_back({indexName, "",
                                   "DataLoss: corrupt index " + indexPath + ": num_shards is " + std::to_string(numShards) +
                                       ", but the entries use " + std::to_string(needed.size()) + " shard(s) and " +
                                       platform::baseName(platform::dirName(indexPath)) + " holds " + std::to_string(present) +
                                       " data file(s)"});
    }
    auto checkShard = [&](int32_t shard) {
        const std::string path = reader.dataPath(shard);
        auto file = storage::openRandomAccess(path);
        if (!file) {
            const bool missing = file.status().code() == StatusCode::NotFound;
            report.problems.push_back(
                {platform::baseName(path), "", missing ? "NotFound: missing data shard " + path : file.status().toString()});
            return;
        }
        ++report.dataFilesChecked;
        const uint64_t need = needed.count(shard) ? needed[shard] : 0;
        if ((*file)->size() < need)
            report.problems.push_back({platform::baseName(path), "",
                                       "DataLoss: " + path + " is " + std::to_string((*file)->size()) +
                                           " bytes but the index needs at least " + std::to_string(need) +
                                           " (truncated data file)"});
        files[shard] = file->get();
        owned.push_back(std::move(*file));
    };
    if (numShards <= static_cast<int64_t>(needed.size()) + present) {
        for (int32_t shard = 0; shard < numShards; ++shard) checkShard(shard);
    } else {
        for (const auto& [shard, need] : needed) checkShard(shard);
    }

    // Tensors, largest first so threads finish together. Fixed-size values
    // are checksummed in place; other dtypes need decoding, so the reader
    // reads them whole (they are small in practice).
    std::sort(jobs.begin(), jobs.end(), [](const RegionJob& a, const RegionJob& b) { return a.region.size > b.region.size; });
    std::vector<format::ScannedRegion> regions;
    std::vector<size_t> regionJob;  // job of each scanned region
    regions.reserve(jobs.size());
    regionJob.reserve(jobs.size());
    int64_t totalBytes = 0;
    for (size_t i = 0; i < jobs.size(); ++i) {
        const RegionJob& job = jobs[i];
        totalBytes += job.region.size;
        const auto found = files.find(job.region.shardId);
        if (found == files.end()) continue;  // reported above
        const storage::RandomAccessFile* file = found->second;
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
    if (!scanned) return scanned.status();

    std::vector<std::pair<std::string, VerifyProblem>> tensorProblems;
    for (size_t k = 0; k < regions.size(); ++k) {
        const Status& s = scanned->regions[k];
        if (s.isOk()) continue;
        const std::string key(jobs[regionJob[k]].key);
        tensorProblems.push_back({key, {platform::baseName(regions[k].file->location()), key, s.toString()}});
    }
    std::sort(tensorProblems.begin(), tensorProblems.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (auto& [key, problem] : tensorProblems) report.problems.push_back(std::move(problem));
    report.tensorsChecked = static_cast<int64_t>(jobs.size());
    report.bytesChecked = scanned->bytesScanned;

    checkWhatReadersRelyOn(reader, indexName, report);
    return report;
}

}  // namespace

Result<VerifyReport> verifyBundle(std::string_view prefix, const VerifyOptions& options) {
    // The index is fetched before the scan polls the token: the scope stops
    // that transfer too, and a request cut short is no problem of the checkpoint's.
    return platform::runCancellable(options.cancel, "verifying " + std::string(prefix),
                                    [&] { return verifyUnderScope(prefix, options); });
}

Result<VerifyReport> verifyCheckpointPath(std::string_view path, const VerifyOptions& options) {
    return platform::runCancellable(options.cancel, "verifying " + std::string(path), [&]() -> Result<VerifyReport> {
        CKPT_ASSIGN_OR_RETURN(ResolvedCheckpoint resolved, resolveCheckpoint(path));
        CKPT_ASSIGN_OR_RETURN(VerifyReport report, verifyBundle(resolved.prefix, options));
        // A path that named a checkpoint is not the directory whose state file
        // TensorFlow reads; asking would cost a store two requests.
        if (resolved.how != "prefix") checkStateFile(path, report);
        return report;
    });
}

VerifyReport verifyIndexAndState(std::string_view path, std::string_view prefix) {
    VerifyReport report;
    report.prefix = std::string(prefix);
    const std::string indexPath = indexFileName(report.prefix);
    if (Status s = format::verifyIndexFooterAndMetaindex(indexPath); !s.isOk())
        report.problems.push_back({platform::baseName(indexPath), "", s.toString()});
    checkStateFile(path, report);
    return report;
}

}  // namespace ckpt
