// computeHistory: every variable's trajectory over N checkpoints. Numbers
// stored whole are streamed (compare/history_stream.h: one pass per tensor,
// a few MiB per worker), in units of one variable over a run of consecutive
// checkpoints; other values (strings, partitioned tensors) are held one pair
// at a time per worker, workers admitted while their tensors fit the memory
// budget.

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
#include "compare/history_stream.h"
#include "compare/value_pairs.h"
#include "format/region_scan.h"
#include "platform/cancellation_scope.h"
#include "platform/file.h"
#include "platform/parallel.h"
#include "format/bundle_reader_access.h"
#include "storage/dispatch.h"

namespace ckpt {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr int64_t kBudgetSlack = int64_t{128} << 20;
// Mapped bytes a streaming worker holds at once: a chunk per tensor in flight.
constexpr int64_t kStreamBytesPerWorker = int64_t{64} << 20;
constexpr size_t kMaxStreamedTensors = 64;

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

void fillPoint(const TensorStats& stats, HistoryPoint& point) {
    point.numeric = true;
    point.count = stats.count;
    point.mean = stats.mean;
    point.std = stats.std;
    point.min = stats.min;
    point.max = stats.max;
    point.nans = stats.nans;
    point.infs = stats.posInfs + stats.negInfs;
    const double n = static_cast<double>(stats.finiteCount);
    point.norm = stats.finiteCount > 0 ? std::sqrt(n * (stats.std * stats.std + stats.mean * stats.mean)) : 0.0;
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
            fillPoint(*stats, point);
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

// What trackVariable does at each checkpoint, decided from the index
// alone, so that runs of checkpoints can be streamed apart.
enum class Step : uint8_t { Absent, Unchanged, Read };
struct VariablePlan {
    std::vector<Step> steps;
    std::vector<int> previous;  // for Read: the checkpoint read before it in an unbroken run, else -1
};

VariablePlan planVariable(const Tracked& t) {
    const size_t n = t.tensors.size();
    VariablePlan plan{std::vector<Step>(n, Step::Absent), std::vector<int>(n, -1)};
    const TensorInfo* previousInfo = nullptr;
    int lastRead = -1;
    for (size_t c = 0; c < n; ++c) {
        const TensorInfo* info = t.tensors[c];
        if (!info) {
            previousInfo = nullptr;
            lastRead = -1;
        } else if (previousInfo && compare::sameStoredBytes(*previousInfo, *info)) {
            plan.steps[c] = Step::Unchanged;
        } else {
            plan.steps[c] = Step::Read;
            plan.previous[c] = lastRead;
            previousInfo = info;
            lastRead = static_cast<int>(c);
        }
    }
    return plan;
}

bool streamable(const Tracked& t) {
    return std::all_of(t.tensors.begin(), t.tensors.end(),
                       [](const TensorInfo* info) { return !info || compare::canStream(*info); });
}

// One streamed variable over checkpoints [first, last): the reads in the
// run, plus the read before it that the run's first read is compared with.
struct StreamUnit {
    Tracked* tracked = nullptr;
    const VariablePlan* plan = nullptr;
    size_t first = 0, last = 0;
    int64_t bytes = 0;
};

Status streamUnit(const std::vector<std::shared_ptr<const Checkpoint>>& checkpoints, const StreamUnit& unit,
                  const HistoryOptions& options, std::atomic<int64_t>& bytesRead, const std::function<void(int64_t)>& report) {
    Tracked& t = *unit.tracked;
    const VariablePlan& plan = *unit.plan;
    std::vector<compare::StreamedTensor> list;
    std::vector<size_t> checkpointOf;
    std::vector<int> indexOf(checkpoints.size(), -1);
    auto add = [&](size_t c, bool figures) {
        const int previous = plan.previous[c] >= 0 ? indexOf[static_cast<size_t>(plan.previous[c])] : -1;
        indexOf[c] = static_cast<int>(list.size());
        list.push_back({checkpoints[c].get(), t.tensors[c], figures ? previous : -1, figures});
        checkpointOf.push_back(c);
    };
    for (size_t c = unit.first; c < unit.last; ++c) {
        if (plan.steps[c] == Step::Unchanged) report(t.tensors[c]->storedBytes());
        if (plan.steps[c] != Step::Read) continue;
        const int before = plan.previous[c];
        if (list.empty() && before >= 0 && static_cast<size_t>(before) < unit.first) add(static_cast<size_t>(before), false);
        add(c, true);
    }
    std::vector<compare::StreamedFigures> figures;
    CKPT_RETURN_IF_ERROR(compare::streamTensors(list, options.cancel, report, figures));
    for (size_t i = 0; i < list.size(); ++i) {
        if (!list[i].figures) continue;
        HistoryPoint& point = t.history.points[checkpointOf[i]];
        point.present = true;
        point.relChange = kNaN;
        fillPoint(figures[i].stats, point);
        if (figures[i].compared && figures[i].normPrevious > 0) point.relChange = figures[i].relChange;
        bytesRead += list[i].info->storedBytes();
    }
    return okStatus();
}

// After every unit: the points of values not read again.
void fillUnchanged(Tracked& t, const VariablePlan& plan) {
    for (size_t c = 0; c < plan.steps.size(); ++c) {
        if (plan.steps[c] != Step::Unchanged) continue;
        HistoryPoint& point = t.history.points[c];
        point = t.history.points[c - 1];
        point.unchanged = true;
        point.relChange = 0;
    }
}

// Streamed variables in runs of at most 'longest' checkpoints, split
// further while there are fewer units than threads; largest first.
std::vector<StreamUnit> streamUnits(const std::vector<Tracked*>& tracked, const std::vector<VariablePlan>& plans,
                                    size_t checkpoints, size_t threads, int64_t budget) {
    std::vector<size_t> streamed;
    for (size_t i = 0; i < tracked.size(); ++i)
        if (!plans[i].steps.empty()) streamed.push_back(i);
    std::vector<StreamUnit> units;
    if (streamed.empty()) return units;
    const size_t splits = (threads + streamed.size() - 1) / streamed.size();
    for (size_t i : streamed) {
        const int64_t chunk = std::max<int64_t>(1, std::min<int64_t>(format::kStreamChunkBytes, tracked[i]->largestBytes));
        const auto inFlight = static_cast<size_t>(std::clamp<int64_t>(budget / chunk - 1, 1, kMaxStreamedTensors));
        const size_t runs = std::max((checkpoints + inFlight - 1) / inFlight, std::min(splits, checkpoints));
        for (size_t r = 0; r < runs; ++r) {
            StreamUnit u{tracked[i], &plans[i], checkpoints * r / runs, checkpoints * (r + 1) / runs, 0};
            for (size_t c = u.first; c < u.last; ++c)
                if (plans[i].steps[c] == Step::Read) u.bytes += tracked[i]->tensors[c]->storedBytes();
            if (u.first < u.last) units.push_back(u);
        }
    }
    std::stable_sort(units.begin(), units.end(), [](const StreamUnit& a, const StreamUnit& b) { return a.bytes > b.bytes; });
    return units;
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
    const platform::CancellationScope scope(options.cancel);  // stops object-store transfers in flight
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
    int64_t total = 0;
    for (auto& [path, t] : byPath) {
        tracked.push_back(&t);
        for (const TensorInfo* info : t.tensors) total += info ? info->storedBytes() : 0;
    }

    std::atomic<int64_t> bytesRead{0}, done{0};
    auto report = [&](int64_t bytes) {
        const int64_t now = done.fetch_add(bytes) + bytes;
        if (options.progress) options.progress(now, total, "history");
    };
    const size_t threads = platform::threadsOrDefault(options.threads);

    // Numbers stored whole stream; the rest go one variable per worker.
    std::vector<VariablePlan> plans(tracked.size());
    std::vector<Tracked*> held;
    for (size_t i = 0; i < tracked.size(); ++i) {
        if (streamable(*tracked[i])) plans[i] = planVariable(*tracked[i]);
        else held.push_back(tracked[i]);
    }
    const int64_t streamBudget = options.memoryBudgetBytes > 0
                                     ? std::min(kStreamBytesPerWorker, options.memoryBudgetBytes / static_cast<int64_t>(threads))
                                     : kStreamBytesPerWorker;
    const std::vector<StreamUnit> units = streamUnits(tracked, plans, checkpoints.size(), threads, streamBudget);
    std::vector<Status> streamFailures(units.size());
    CKPT_RETURN_IF_ERROR(platform::forEachItem(units.size(), threads, [&](size_t, size_t i) {
        streamFailures[i] = streamUnit(checkpoints, units[i], options, bytesRead, report);
    }));
    for (const Status& s : streamFailures)
        if (!s.isOk()) return s;
    for (size_t i = 0; i < tracked.size(); ++i)
        if (!plans[i].steps.empty()) fillUnchanged(*tracked[i], plans[i]);

    int64_t largestHeld = 0;
    for (const Tracked* t : held) largestHeld = std::max(largestHeld, t->largestBytes);
    MemoryBudget budget(options.memoryBudgetBytes > 0 ? options.memoryBudgetBytes : 2 * largestHeld + kBudgetSlack);
    std::vector<Status> failures(held.size());
    // Variables side by side, one thread each; a run of fewer variables than
    // threads splits each tensor's work instead.
    const size_t workers = std::min(threads, std::max<size_t>(1, held.size()));
    const int tensorThreads = static_cast<int>(std::max<size_t>(1, threads / workers));
    std::vector<WorkerBuffers> buffers(workers);
    CKPT_RETURN_IF_ERROR(platform::forEachItem(held.size(), workers, [&](size_t worker, size_t i) {
        const int64_t need = 2 * held[i]->largestBytes;
        budget.acquire(need);
        // Kept buffers are reused only while they fit what the budget
        // admitted for this variable: memory stays within the budget.
        WorkerBuffers& mine = buffers[worker];
        if (static_cast<int64_t>(mine.previous.owned.bytes.capacity() + mine.current.owned.bytes.capacity()) > need) mine = {};
        failures[i] = trackVariable(checkpoints, *held[i], options, tensorThreads, mine, bytesRead, report);
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
