// computeHistory: every variable's trajectory over N checkpoints, one
// variable per worker, with workers admitted while their tensors fit the
// memory budget.

#include "ckpt/checkpoint_history.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <condition_variable>
#include <limits>
#include <map>
#include <mutex>

#include "ckpt/checkpoint.h"
#include "ckpt/checkpoint_listing.h"
#include "ckpt/checkpoint_step.h"
#include "ckpt/preview.h"
#include "ckpt/tensor_diff.h"
#include "compare/comparable.h"
#include "compare/value_pairs.h"
#include "format/region_scan.h"
#include "platform/file.h"
#include "platform/parallel.h"
#include "format/bundle_reader_access.h"
#include "storage/dispatch.h"

namespace ckpt {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr int64_t kBudgetSlack = int64_t{128} << 20;

// Admits work while its bytes fit; one piece of work is always admitted,
// however large, so nothing waits forever.
class MemoryBudget {
public:
    explicit MemoryBudget(int64_t limit) : m_limit(limit) {}
    void acquire(int64_t bytes) {
        std::unique_lock lock(m_mutex);
        m_freed.wait(lock, [&] { return m_used == 0 || m_used + bytes <= m_limit; });
        m_used += bytes;
    }
    void release(int64_t bytes) {
        {
            std::lock_guard lock(m_mutex);
            m_used -= bytes;
        }
        m_freed.notify_all();
    }

private:
    std::mutex m_mutex;
    std::condition_variable m_freed;
    int64_t m_limit;
    int64_t m_used = 0;
};

Result<std::vector<std::string>> checkpointPrefixes(const std::vector<std::string>& paths, std::vector<std::string>& skipped) {
    for (const std::string& p : paths) CKPT_RETURN_IF_ERROR(storage::checkLocation(p));
    if (paths.size() == 1 && storage::isDirectory(paths[0]) && !isSavedModelDirectory(paths[0])) {
        CKPT_ASSIGN_OR_RETURN(CheckpointListing listing, listCheckpoints(checkpointDirectoryFor(paths[0])));
        std::vector<std::string> prefixes;
        for (const CheckpointListEntry& c : listing.checkpoints) {
            if (c.error.isOk()) prefixes.push_back(c.prefix);
            else skipped.push_back(c.prefix + ": " + c.error.toString());
        }
        if (prefixes.size() < 2)
            return invalidArgument(paths[0] + " holds " + std::to_string(prefixes.size()) + " readable checkpoint" +
                                   (prefixes.size() == 1 ? "" : "s") + "; a history needs two or more");
        return prefixes;
    }
    if (paths.size() < 2)
        return invalidArgument("a history needs a directory of checkpoints or two or more checkpoints, got " +
                               (paths.empty() ? std::string("none") : paths[0]));
    return paths;
}

struct Tracked {
    VariableHistory history;
    std::vector<const TensorInfo*> tensors;  // per checkpoint; null where absent
    int64_t largestBytes = 0;
};

// A tensor's values held while a worker uses them: mapped in place from
// the page cache where the system allows (no copy, no fresh memory), else
// read into a buffer the worker keeps reusing.
struct HeldTensor {
    storage::MappedView mapped;
    Tensor owned;
    TensorView view;

    Status hold(const Checkpoint& checkpoint, const TensorInfo& info) {
        mapped = {};
        if (!info.isPartitioned() && isFixedSize(info.dtype) && isDecodable(info.dtype) && info.region.size > 0) {
            auto file = format::shardFile(checkpoint.bundle(), info.region.shardId);
            if (!file) return file.status();
            auto region = format::mapVerifiedRegion({*file, info.key, info.region, nullptr, {}});
            if (region) {
                mapped = std::move(*region);
                view = {info.dtype, info.shape, {mapped.data(), mapped.size()}, {}};
                return okStatus();
            }
            if (region.status().code() != StatusCode::FailedPrecondition) return region.status();
        }
        CKPT_RETURN_IF_ERROR(checkpoint.bundle().readInto(info, owned));
        view = TensorView::of(owned);
        return okStatus();
    }
};

struct WorkerBuffers {
    HeldTensor previous, current;
};

// One variable across every checkpoint, holding at most two tensors.
Status trackVariable(const std::vector<std::shared_ptr<const Checkpoint>>& checkpoints, Tracked& t, const HistoryOptions& options,
                     int tensorThreads, WorkerBuffers& buffers, std::atomic<int64_t>& bytesRead,
                     const std::function<void(int64_t)>& report) {
    bool havePrevious = false;
    const TensorInfo* previousInfo = nullptr;
    for (size_t c = 0; c < checkpoints.size(); ++c) {
        if (options.cancel && options.cancel->isCancelled()) return cancelled("history cancelled");
        HistoryPoint& point = t.history.points[c];
        const TensorInfo* info = t.tensors[c];
        if (!info) {
            havePrevious = false;
            previousInfo = nullptr;
            continue;
        }
        point.present = true;
        point.relChange = kNaN;
        if (previousInfo && compare::sameStoredBytes(*previousInfo, *info)) {
            point = t.history.points[c - 1];
            point.unchanged = true;
            point.relChange = 0;
            report(info->storedBytes());
            continue;
        }
        if (Status s = buffers.current.hold(*checkpoints[c], *info); !s.isOk()) return s.withContext(checkpoints[c]->prefix());
        const TensorView& tensor = buffers.current.view;
        bytesRead += info->storedBytes();
        report(info->storedBytes());
        PreviewOptions preview;
        preview.device = PreviewDevice::Cpu;
        preview.cpuThreads = tensorThreads;
        if (auto stats = computeStats(tensor, preview); stats && !stats->stringLengths) {
            point.numeric = true;
            point.count = stats->count;
            point.mean = stats->mean;
            point.std = stats->std;
            point.min = stats->min;
            point.max = stats->max;
            point.nans = stats->nans;
            point.infs = stats->posInfs + stats->negInfs;
            const double n = static_cast<double>(stats->finiteCount);
            point.norm = stats->finiteCount > 0 ? std::sqrt(n * (stats->std * stats->std + stats->mean * stats->mean)) : 0.0;
        } else {
            point.count = tensor.numElements();
        }
        if (havePrevious && point.numeric) {
            TensorDiffOptions opt;
            opt.maxListed = 0;
            opt.cpuThreads = preview.cpuThreads;
            if (auto d = diffTensors(buffers.previous.view, tensor, opt); d && d->normA > 0) point.relChange = d->relL2;
        }
        std::swap(buffers.previous, buffers.current);
        havePrevious = true;
        previousInfo = info;
    }
    return okStatus();
}

void summarize(CheckpointHistory& h) {
    const size_t n = h.checkpoints.size();
    HistorySummary& s = h.summary;
    std::vector<double> sq(n, 0), sqPrev(n, 0), sqDiff(n, 0);
    for (size_t v = 0; v < h.variables.size(); ++v) {
        VariableHistory& var = h.variables[v];
        // Counters and flags (step, iterations) are not weights: they stay
        // out of the run's norm and ranking.
        const bool weight = isFloating(var.dtype) || isComplex(var.dtype);
        for (size_t c = 0; c < n; ++c) {
            const HistoryPoint& p = var.points[c];
            if (!p.present || !p.numeric) continue;
            if (std::isfinite(p.relChange)) var.totalRelChange += p.relChange;
            if (weight) {
                sq[c] += p.norm * p.norm;
                if (std::isfinite(p.relChange)) {
                    const double prevNorm = var.points[c - 1].norm;
                    sqPrev[c] += prevNorm * prevNorm;
                    sqDiff[c] += (p.relChange * prevNorm) * (p.relChange * prevNorm);
                }
            }
            if (!var.firstNonFinite && p.nans + p.infs > 0) var.firstNonFinite = static_cast<int>(c);
        }
        if (var.firstNonFinite && (!s.firstNonFinite || *var.firstNonFinite < *s.firstNonFinite)) {
            s.firstNonFinite = var.firstNonFinite;
            s.firstNonFiniteVariable = var.path;
        }
    }
    for (size_t c = 0; c < n; ++c) {
        s.globalNorm.push_back(std::sqrt(sq[c]));
        s.globalRelChange.push_back(sqPrev[c] > 0 ? std::sqrt(sqDiff[c] / sqPrev[c]) : kNaN);
    }
    for (size_t v = 0; v < h.variables.size(); ++v)
        if (isFloating(h.variables[v].dtype) || isComplex(h.variables[v].dtype)) s.movedMost.push_back(static_cast<int32_t>(v));
    std::stable_sort(s.movedMost.begin(), s.movedMost.end(), [&](int32_t x, int32_t y) {
        return h.variables[static_cast<size_t>(x)].totalRelChange > h.variables[static_cast<size_t>(y)].totalRelChange;
    });
}

}  // namespace

Result<CheckpointHistory> computeHistory(const std::vector<std::string>& paths, const HistoryOptions& options) {
    CheckpointHistory history;
    CKPT_ASSIGN_OR_RETURN(std::vector<std::string> prefixes, checkpointPrefixes(paths, history.skipped));
    std::vector<std::shared_ptr<const Checkpoint>> checkpoints;
    bool allObjectBased = true;
    for (const std::string& p : prefixes) {
        auto c = Checkpoint::open(p);
        if (!c) return c.status().withContext(p);
        allObjectBased = allObjectBased && (*c)->style() == CheckpointStyle::ObjectBased;
        history.checkpoints.push_back(
            {(*c)->prefix(), platform::baseName((*c)->prefix()), checkpointStep((*c)->prefix(), &(*c)->bundle()).step});
        checkpoints.push_back(std::move(*c));
    }

    // Variables by path, in the first checkpoint's dtype and shape.
    const compare::ValueFilter filter{options.weightsOnly, options.includes, options.excludes};
    std::map<std::string, Tracked, std::less<>> byPath;
    for (size_t c = 0; c < checkpoints.size(); ++c) {
        const compare::ComparableValues values(*checkpoints[c], allObjectBased, filter);
        for (const compare::ComparableValue& v : values.values()) {
            auto it = byPath.find(v.path);
            const bool inserted = it == byPath.end();
            if (inserted) it = byPath.try_emplace(std::string(v.path)).first;
            Tracked& t = it->second;
            if (inserted) {
                t.history.path = std::string(v.path);
                t.history.key = v.tensor->key;
                t.history.dtype = v.tensor->dtype;
                t.history.shape = v.tensor->shape;
                t.history.points.resize(checkpoints.size());
                t.tensors.resize(checkpoints.size(), nullptr);
            }
            if (v.tensor->dtype != t.history.dtype || v.tensor->shape != t.history.shape) continue;
            t.tensors[c] = v.tensor;
            t.largestBytes = std::max(t.largestBytes, v.tensor->storedBytes());
        }
    }
    std::vector<Tracked*> tracked;
    int64_t largest = 0, total = 0;
    for (auto& [path, t] : byPath) {
        tracked.push_back(&t);
        largest = std::max(largest, t.largestBytes);
        for (const TensorInfo* info : t.tensors) total += info ? info->storedBytes() : 0;
    }

    MemoryBudget budget(options.memoryBudgetBytes > 0 ? options.memoryBudgetBytes : 2 * largest + kBudgetSlack);
    std::atomic<int64_t> bytesRead{0}, done{0};
    auto report = [&](int64_t bytes) {
        const int64_t now = done.fetch_add(bytes) + bytes;
        if (options.progress) options.progress(now, total, "history");
    };
    std::vector<Status> failures(tracked.size());
    // Variables side by side, one thread each; a run of fewer variables than
    // threads splits each tensor's work instead.
    const size_t threads = platform::threadsOrDefault(options.threads);
    const size_t workers = std::min(threads, std::max<size_t>(1, tracked.size()));
    const int tensorThreads = static_cast<int>(std::max<size_t>(1, threads / workers));
    std::vector<WorkerBuffers> buffers(workers);
    CKPT_RETURN_IF_ERROR(platform::forEachItem(tracked.size(), workers, [&](size_t worker, size_t i) {
        const int64_t need = 2 * tracked[i]->largestBytes;
        budget.acquire(need);
        // Kept buffers are reused only while they fit what the budget
        // admitted for this variable: memory stays within the budget.
        WorkerBuffers& mine = buffers[worker];
        if (static_cast<int64_t>(mine.previous.owned.bytes.capacity() + mine.current.owned.bytes.capacity()) > need) mine = {};
        failures[i] = trackVariable(checkpoints, *tracked[i], options, tensorThreads, mine, bytesRead, report);
        budget.release(need);
    }));
    for (const Status& s : failures)
        if (!s.isOk()) return s;
    for (Tracked* t : tracked) history.variables.push_back(std::move(t->history));
    history.bytesRead = bytesRead.load();
    summarize(history);
    return history;
}

}  // namespace ckpt
