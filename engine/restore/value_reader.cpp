#include "restore/value_reader.h"

#include <map>
#include <mutex>
#include <unordered_set>

#include "format/region_scan.h"
#include "platform/file.h"
#include "platform/parallel.h"
#include "storage/dispatch.h"

namespace ckpt::restore {

Status ValueReader::assign(Variable& v, const TensorInfo& tensor, std::vector<int> replicas, const NamesFn& names, int32_t node,
                           size_t attribute) {
    if (tensor.dtype != v.dtype() || tensor.shape != v.shape()) {
        const auto [checkpointWhat, programWhat] = names();
        const char* what = tensor.dtype != v.dtype() ? "dtype mismatch" : "shape mismatch";
        Status mismatch =
            invalidArgument(std::string(what) + ": checkpoint value " + checkpointWhat + " is " +
                            std::string(dataTypeName(tensor.dtype)) + " " + tensor.shape.toString() + " but " + programWhat +
                            " is " + std::string(dataTypeName(v.dtype())) + " " + v.shape().toString());
        m_context.errors.push_back(mismatch);
        return mismatch;
    }
    if (!m_context.options.readValues) return okStatus();
    m_reads.push_back({v.shared_from_this(), &tensor, std::move(replicas), node, attribute});
    return okStatus();
}

void ValueReader::flush() {
    std::vector<Read> reads = std::move(m_reads);
    m_reads.clear();
    // A cancelled restore reads nothing more, deferred reads included.
    if (reads.empty() || m_context.cancelled) return;
    // Fast path: plain fixed-size tensors are read straight into the variable's
    // buffer, checksummed on the way (format/region_scan.h). Each
    // (variable, replica) is written by one read only. The other reads go
    // through BundleReader::read on the same workers.
    std::map<int32_t, std::unique_ptr<storage::RandomAccessFile>> files;
    std::vector<format::ScannedRegion> regions;
    std::vector<size_t> regionRead(reads.size());  // read of each region
    std::vector<char> direct(reads.size(), 0);
    std::unordered_set<const Tensor*> targets;
    for (size_t i = 0; i < reads.size(); ++i) {
        const Read& r = reads[i];
        const TensorInfo& t = *r.tensor;
        Variable* v = r.variable->asVariable();
        if (t.isPartitioned() || !isFixedSize(t.dtype)) continue;
        const Tensor& dst = v->value(r.replicas.front());
        if (static_cast<int64_t>(dst.bytes.size()) != t.region.size) continue;
        bool unique = true;
        for (int rep : r.replicas) unique = targets.insert(&v->value(rep)).second && unique;
        if (!unique) continue;
        if (!files.count(t.region.shardId)) {
            auto f = storage::openRandomAccess(m_context.ckpt->bundle().dataPath(t.region.shardId));
            if (!f) continue;  // the general path reports the error
            files.emplace(t.region.shardId, std::move(*f));
        }
        direct[i] = 1;
        regionRead[regions.size()] = i;
        regions.push_back(
            {files.at(t.region.shardId).get(), t.key, t.region, v->mutableValue(r.replicas.front()).bytes.data(), nullptr});
    }
    std::mutex assignMutex;
    for (size_t i = 0; i < reads.size(); ++i) {
        if (direct[i]) continue;
        Read& r = reads[i];
        regionRead[regions.size()] = i;
        format::ScannedRegion general{nullptr, r.tensor->key, r.tensor->region, nullptr, nullptr};
        general.readWhole = [&bundle = m_context.ckpt->bundle(), &r, &assignMutex]() -> Status {
            auto value = bundle.read(*r.tensor);
            if (!value) return value.status();
            Variable* v = r.variable->asVariable();
            std::lock_guard<std::mutex> lock(assignMutex);
            for (size_t k = 0; k < r.replicas.size(); ++k) {
                Tensor& dst = v->mutableValue(r.replicas[k]);
                if (k + 1 == r.replicas.size()) dst = std::move(*value);
                else dst = *value;
            }
            return okStatus();
        };
        regions.push_back(std::move(general));
    }
    int64_t bytes = 0;
    for (const Read& r : reads) bytes += r.tensor->storedBytes();
    // Small restores stay on this thread; big ones read several parts at once.
    constexpr int64_t kParallelThresholdBytes = 8 << 20;
    format::ScanOptions scan;
    scan.threads = bytes < kParallelThresholdBytes ? 1 : std::min<size_t>(platform::hardwareThreads(), 8);
    scan.cancel = m_context.options.cancel;
    if (m_context.options.progress) {
        // Parts report their own sizes; the scan's running total is per call.
        scan.progress = [this, base = m_context.bytesRead.load()](int64_t done) {
            const int64_t now = base + done;
            int64_t seen = m_context.bytesRead.load(std::memory_order_relaxed);
            while (now > seen && !m_context.bytesRead.compare_exchange_weak(seen, now, std::memory_order_relaxed)) {}
            m_context.options.progress(std::min(now, m_context.bytesTotal), m_context.bytesTotal, "reading");
        };
    }
    auto scanned = format::scanRegions(regions, scan);
    if (!scanned && scanned.status().code() == StatusCode::Cancelled) m_context.cancelled = true;
    std::vector<Status> failures(reads.size());
    for (size_t k = 0; k < regions.size(); ++k) {
        const size_t i = regionRead[k];
        failures[i] = scanned ? scanned->regions[k] : scanned.status();
        if (!direct[i] || !failures[i].isOk()) continue;
        Variable* v = reads[i].variable->asVariable();
        const std::vector<uint8_t>& out = v->value(reads[i].replicas.front()).bytes;
        for (size_t rep = 1; rep < reads[i].replicas.size(); ++rep) v->mutableValue(reads[i].replicas[rep]).bytes = out;
    }
    for (size_t i = 0; i < reads.size(); ++i) {
        if (failures[i].isOk()) continue;
        m_context.errors.push_back(failures[i]);
        m_onFailure(reads[i], failures[i]);
    }
}

}  // namespace ckpt::restore
