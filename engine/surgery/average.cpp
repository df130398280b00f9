// ckpt merge --average: same-structure checkpoints combined in float64.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <mutex>

#include "ckpt/checkpoint_listing.h"
#include "ckpt/checkpoint_step.h"
#include "ckpt/surgery.h"
#include "format/region_scan.h"
#include "platform/cancellation_scope.h"
#include "platform/file.h"
#include "platform/parallel.h"
#include "surgery/graph_edit.h"
#include "surgery/surgery_output.h"
#include "format/bundle_reader_access.h"
#include "storage/dispatch.h"

namespace ckpt {
namespace {

using surgery::Source;

// The types averaged; other floating types (float8, float4) have no
// encoder here and are taken from the first source like integers.
bool averaged(DataType t) {
    switch (t) {
    case DataType::Half:
    case DataType::BFloat16:
    case DataType::Float:
    case DataType::Double:
    case DataType::Complex64:
    case DataType::Complex128: return true;
    default: return false;
    }
}

// Element i of stored bytes. Regions start at any offset of their data
// file (and so of a mapping): loads go through memcpy, which compiles to
// plain unaligned loads.
template <typename T>
T loadAt(const uint8_t* bytes, size_t i) {
    T v;
    std::memcpy(&v, bytes + i * sizeof(T), sizeof(T));
    return v;
}

template <typename T>
void storeAt(uint8_t* bytes, size_t i, T v) {
    std::memcpy(bytes + i * sizeof(T), &v, sizeof(T));
}

// Components [begin, begin + n) of stored bytes as doubles added, scaled,
// to acc[0, n) (complex: real and imaginary parts interleaved).
void addScaled(const uint8_t* bytes, DataType dtype, size_t begin, size_t n, double weight, double* acc) {
    switch (dtype) {
    case DataType::Float:
    case DataType::Complex64:
        for (size_t i = 0; i < n; ++i) acc[i] += weight * static_cast<double>(loadAt<float>(bytes, begin + i));
        break;
    case DataType::Double:
    case DataType::Complex128:
        for (size_t i = 0; i < n; ++i) acc[i] += weight * loadAt<double>(bytes, begin + i);
        break;
    case DataType::Half:
    case DataType::BFloat16: {
        const bool half = dtype == DataType::Half;
        for (size_t i = 0; i < n; ++i) {
            const auto bits = loadAt<uint16_t>(bytes, begin + i);
            acc[i] += weight * static_cast<double>(half ? halfToFloat(bits) : bfloat16ToFloat(bits));
        }
        break;
    }
    default: break;
    }
}

size_t componentCount(DataType dtype, int64_t elements) {
    const auto n = static_cast<size_t>(elements);
    return dtype == DataType::Complex64 || dtype == DataType::Complex128 ? 2 * n : n;
}

// acc[0, n) stored as components [begin, begin + n) of 'out' in its dtype.
void store(const double* acc, size_t begin, size_t n, DataType dtype, uint8_t* out) {
    switch (dtype) {
    case DataType::Float:
    case DataType::Complex64:
        for (size_t i = 0; i < n; ++i) storeAt(out, begin + i, static_cast<float>(acc[i]));
        break;
    case DataType::Double:
    case DataType::Complex128: std::memcpy(out + begin * sizeof(double), acc, n * sizeof(double)); break;
    case DataType::Half:
    case DataType::BFloat16: {
        // Through float, as tf.cast rounds float64 to the 16-bit types.
        const bool half = dtype == DataType::Half;
        for (size_t i = 0; i < n; ++i) {
            const auto f = static_cast<float>(acc[i]);
            storeAt(out, begin + i, half ? floatToHalf(f) : floatToBfloat16(f));
        }
        break;
    }
    default: break;
    }
}

// The weighted sum of the sources' values, a cache-sized block at a time:
// each source's bytes are read once, the accumulator never leaves the cache.
void weightedSum(const std::vector<const uint8_t*>& values, const std::vector<double>& weights, DataType dtype, size_t components,
                 uint8_t* out) {
    constexpr size_t kBlock = 4096;
    double acc[kBlock];
    for (size_t begin = 0; begin < components; begin += kBlock) {
        const size_t n = std::min(kBlock, components - begin);
        std::fill_n(acc, n, 0.0);
        for (size_t s = 0; s < values.size(); ++s) addScaled(values[s], dtype, begin, n, weights[s], acc);
        store(acc, begin, n, dtype, out);
    }
}

// One source's values of a tensor, checksum verified: mapped in place from
// the page cache where the system allows it, else read into memory.
class StoredValues {
public:
    Status load(const BundleReader& reader, const TensorInfo& info) {
        if (!info.isPartitioned() && info.region.size > 0) {
            auto file = format::shardFile(reader, info.region.shardId);
            if (!file.ok()) return file.status();
            auto view = format::mapVerifiedRegion({*file, info.key, info.region, nullptr, {}});
            if (view.ok() && view->size() == static_cast<size_t>(info.storedBytes())) {
                m_view = std::move(*view);
                m_data = m_view.data();
                return okStatus();
            }
            if (!view.ok() && view.status().code() != StatusCode::FailedPrecondition) return view.status();
        }
        CKPT_RETURN_IF_ERROR(reader.readInto(info, m_read));
        m_data = m_read.bytes.data();
        return okStatus();
    }
    const uint8_t* data() const { return m_data; }

private:
    storage::MappedView m_view;
    Tensor m_read;
    const uint8_t* m_data = nullptr;
};

// Spherical interpolation of two flattened tensors, as model-merging tools
// do: along the arc between them, or the straight line when they are
// (nearly) parallel or one is zero.
std::vector<double> slerp(const Tensor& a, const Tensor& b, double t) {
    std::vector<double> x(componentCount(a.dtype, a.numElements()), 0.0), y(x.size(), 0.0);
    addScaled(a.bytes.data(), a.dtype, 0, x.size(), 1.0, x.data());
    addScaled(b.bytes.data(), b.dtype, 0, y.size(), 1.0, y.data());
    double dot = 0, nx = 0, ny = 0;
    for (size_t i = 0; i < x.size(); ++i) dot += x[i] * y[i], nx += x[i] * x[i], ny += y[i] * y[i];
    double wa = 1 - t, wb = t;
    if (nx > 0 && ny > 0) {
        const double cosine = std::clamp(dot / std::sqrt(nx * ny), -1.0, 1.0);
        if (std::abs(cosine) < 0.9995) {
            const double theta = std::acos(cosine), s = std::sin(theta);
            wa = std::sin((1 - t) * theta) / s;
            wb = std::sin(t * theta) / s;
        }
    }
    for (size_t i = 0; i < x.size(); ++i) x[i] = wa * x[i] + wb * y[i];
    return x;
}

// Normalized weights for Mean and Ema.
std::vector<double> weightsFor(const AverageSpec& spec, size_t n) {
    std::vector<double> w(n, 1.0);
    if (spec.method == AverageMethod::Mean && !spec.weights.empty()) w = spec.weights;
    if (spec.method == AverageMethod::Ema) {
        // e_1 = x_1, e_k = d e_{k-1} + (1 - d) x_k unrolled.
        const double d = spec.emaDecay;
        for (size_t k = 0; k < n; ++k) w[k] = (k == 0 ? 1.0 : 1 - d) * std::pow(d, static_cast<double>(n - 1 - k));
    }
    double sum = 0;
    for (double x : w) sum += x;
    for (double& x : w) x /= sum;
    return w;
}

// Every key, dtype and shape of the first source in every other; the
// differences named.
Status checkSameStructure(const std::vector<Source>& sources) {
    std::vector<std::string> problems;
    const BundleReader& first = *sources[0].reader;
    for (size_t i = 1; i < sources.size(); ++i) {
        const BundleReader& other = *sources[i].reader;
        for (const TensorInfo& t : first.tensors()) {
            if (t.key == kObjectGraphKey) continue;
            const TensorInfo* o = other.find(t.key);
            if (!o) problems.push_back("\"" + t.key + "\" is in " + sources[0].argument + " but not in " + sources[i].argument);
            else if (o->dtype != t.dtype || o->shape != t.shape)
                problems.push_back("\"" + t.key + "\" is " + std::string(dataTypeName(t.dtype)) + t.shape.toString() + " in " +
                                   sources[0].argument + " but " + std::string(dataTypeName(o->dtype)) + o->shape.toString() +
                                   " in " + sources[i].argument);
        }
        for (const TensorInfo& o : other.tensors())
            if (o.key != kObjectGraphKey && !first.find(o.key))
                problems.push_back("\"" + o.key + "\" is in " + sources[i].argument + " but not in " + sources[0].argument);
    }
    if (problems.empty()) return okStatus();
    std::string list;
    for (size_t i = 0; i < problems.size() && i < 10; ++i) list += (i ? "; " : "") + problems[i];
    if (problems.size() > 10) list += "; and " + std::to_string(problems.size() - 10) + " more";
    return invalidArgument("the checkpoints do not have the same structure: " + list);
}

std::string methodText(const AverageSpec& spec, const std::vector<double>& w) {
    if (spec.method == AverageMethod::Slerp) return "slerp at t=" + std::to_string(spec.slerpT);
    char decay[32];
    std::snprintf(decay, sizeof decay, "%g", spec.emaDecay);
    std::string text = spec.method == AverageMethod::Ema ? "EMA (decay " + std::string(decay) + ")" : "mean";
    text += ", weights";
    for (size_t i = 0; i < w.size(); ++i) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%s%.4g", i ? "," : " ", w[i]);
        text += buf;
    }
    return text;
}

// The source whose step the result carries: the highest stored step
// (checkpoint_step.h's rule, else the checkpoint number), the last given
// among equals. TensorFlow users resume or evaluate an average at the step
// of the newest checkpoint that went into it (as OpenNMT-tf's checkpoint
// averaging saves it), so its step counters, other
// tensors that are not floating point, and object graph are the result's.
struct LatestSource {
    size_t index = 0;
    CheckpointStep step;
};

LatestSource latestSource(const std::vector<Source>& sources) {
    LatestSource latest;
    std::optional<int64_t> best;
    for (size_t i = 0; i < sources.size(); ++i) {
        CheckpointStep step = checkpointStep(sources[i].prefix, sources[i].reader.get());
        if (!best || (step.step && *step.step >= *best)) {
            if (step.step) best = step.step;
            latest = {i, std::move(step)};
        }
    }
    return latest;
}

std::string latestNote(const LatestSource& latest, const std::string& argument) {
    const std::string keeps = ": the result keeps its step, its object graph and its tensors that are not floating point";
    if (!latest.step.step) return "no source stores a step or is numbered; base " + argument + ", the last given" + keeps;
    const std::string where =
        latest.step.source == "checkpoint number" ? "its checkpoint number" : "stored in " + latest.step.source;
    return "step " + std::to_string(*latest.step.step) + " from " + argument + ", the latest source (" + where + ")" + keeps;
}

}  // namespace

Result<std::vector<std::string>> expandAverageSources(const std::vector<std::string>& arguments, int lastK,
                                                      AverageMethod method) {
    struct Found {
        std::string prefix;
        int64_t step;
    };
    std::vector<Found> found;
    for (const std::string& argument : arguments) {
        if (storage::isDirectory(argument) && !isSavedModelDirectory(argument)) {
            CheckpointListOptions listOptions;
            listOptions.countTensors = false;
            CKPT_ASSIGN_OR_RETURN(CheckpointListing listing, listCheckpoints(argument, listOptions));
            if (listing.checkpoints.empty()) return notFound("no checkpoints in directory " + argument);
            for (const CheckpointListEntry& c : listing.checkpoints)
                found.push_back({c.prefix, c.step.step.value_or(c.step.number.value_or(-1))});
            continue;
        }
        CKPT_ASSIGN_OR_RETURN(ResolvedCheckpoint resolved, resolveCheckpoint(argument));
        CKPT_ASSIGN_OR_RETURN(CheckpointStep step, readCheckpointStep(resolved.prefix));
        found.push_back({resolved.prefix, step.step.value_or(step.number.value_or(-1))});
    }
    if (method == AverageMethod::Ema || lastK > 0)
        std::stable_sort(found.begin(), found.end(), [](const Found& a, const Found& b) { return a.step < b.step; });
    if (lastK > 0 && static_cast<size_t>(lastK) < found.size()) found.erase(found.begin(), found.end() - lastK);
    std::vector<std::string> out;
    for (Found& f : found) out.push_back(std::move(f.prefix));
    return out;
}

Status checkAverageSpec(const AverageSpec& spec, size_t sources) {
    if (sources < 2) return invalidArgument("averaging needs at least two checkpoints, got " + std::to_string(sources));
    switch (spec.method) {
    case AverageMethod::Mean: {
        if (!spec.weights.empty() && spec.weights.size() != sources)
            return invalidArgument(std::to_string(spec.weights.size()) + " weight(s) for " + std::to_string(sources) +
                                   " checkpoints; give one per checkpoint");
        double sum = 0;
        for (double w : spec.weights) {
            if (!std::isfinite(w)) return invalidArgument("weights must be finite numbers");
            sum += w;
        }
        if (!spec.weights.empty() && !(sum > 0)) return invalidArgument("the weights must add up to more than 0");
        return okStatus();
    }
    case AverageMethod::Ema:
        if (!(spec.emaDecay > 0 && spec.emaDecay < 1))
            return invalidArgument("the EMA decay must lie between 0 and 1 (exclusive), got " + std::to_string(spec.emaDecay));
        return okStatus();
    case AverageMethod::Slerp:
        if (sources != 2)
            return invalidArgument("slerp interpolates between exactly two checkpoints, got " + std::to_string(sources));
        if (!(spec.slerpT >= 0 && spec.slerpT <= 1))
            return invalidArgument("the slerp position must lie in [0, 1], got " + std::to_string(spec.slerpT));
        return okStatus();
    }
    return okStatus();
}

Status checkAverageSources(const std::vector<std::string>& arguments) {
    CKPT_ASSIGN_OR_RETURN(std::vector<Source> sources, surgery::openSources(arguments));
    return checkSameStructure(sources);
}

Result<SurgeryResult> averageCheckpoints(const std::vector<std::string>& arguments, const std::string& dst,
                                         const AverageSpec& spec, const SurgeryOptions& options) {
    const platform::CancellationScope scope(options.cancel);  // stops object-store transfers in flight
    CKPT_RETURN_IF_ERROR(checkAverageSpec(spec, arguments.size()));
    CKPT_ASSIGN_OR_RETURN(const std::string target, surgery::checkedDestination(dst, arguments, options));
    CKPT_ASSIGN_OR_RETURN(std::vector<Source> sources, surgery::openSources(arguments));
    CKPT_RETURN_IF_ERROR(checkSameStructure(sources));
    const LatestSource latest = latestSource(sources);
    const Source& baseSource = sources[latest.index];
    const BundleReader& base = *baseSource.reader;
    const std::vector<double> weights = weightsFor(spec, sources.size());
    std::vector<std::string> notes{"combined " + std::to_string(sources.size()) + " checkpoints: " + methodText(spec, weights)};
    for (size_t i = 0; i < sources.size(); ++i)
        for (size_t j = 0; j < i; ++j)
            if (sources[i].prefix == sources[j].prefix)
                notes.push_back(sources[i].argument + " is given more than once and counts each time");

    // The latest source's graph, without the optimizer for --weights-only.
    std::optional<std::string> graph;
    std::map<std::string, std::optional<std::string>> keys;  // stored key -> result key (nullopt: dropped)
    for (const TensorInfo& t : base.tensors()) keys.emplace(t.key, t.key);
    if (const TensorInfo* g = base.find(kObjectGraphKey)) {
        CKPT_ASSIGN_OR_RETURN(Tensor stored, base.read(*g));
        if (stored.strings.size() != 1)
            return dataLoss(std::string(kObjectGraphKey) + " in " + base.indexPath() + " is not a scalar string");
        graph = std::move(stored.strings[0]);
        if (spec.weightsOnly) {
            CKPT_ASSIGN_OR_RETURN(surgery::GraphEdit edit, surgery::GraphEdit::parse(*graph, base.indexPath()));
            auto stripped = edit.stripOptimizers();
            if (!stripped.ok()) return stripped.status();
            CKPT_ASSIGN_OR_RETURN(surgery::GraphEdit::Finished finished, edit.finish());
            std::string names;
            for (const std::string& n : *stripped) names += (names.empty() ? "" : ", ") + n;
            notes.push_back("optimizer state dropped (" + names + ")");
            keys = surgery::mapStoredKeys(edit.original(), finished.keyMap, base.tensors());
            graph = std::move(finished.serialized);
        }
    } else if (spec.weightsOnly) {
        return failedPrecondition(
            base.indexPath() + " is a name-based checkpoint: without an object graph its optimizer state cannot be told apart");
    }

    std::vector<const TensorInfo*> order;
    for (const TensorInfo* t : surgery::inDataOrder(base))
        if (t->key != kObjectGraphKey && keys[t->key]) order.push_back(t);
    int64_t totalBytes = 0;
    for (const TensorInfo* t : order) totalBytes += t->storedBytes() * static_cast<int64_t>(sources.size());

    std::vector<SaveTensor> out(order.size());
    std::vector<std::string> copied;
    std::mutex mutex;
    Status firstError;
    std::atomic<int64_t> done{0};
    const Status ran =
        platform::forEachItem(order.size(), platform::threadsOrDefault(options.save.maxParallelShards), [&](size_t, size_t i) {
            auto fail = [&](Status s) {
                std::lock_guard lock(mutex);
                if (firstError.isOk()) firstError = std::move(s);
            };
            {
                std::lock_guard lock(mutex);
                if (!firstError.isOk()) return;
            }
            if (options.cancel && options.cancel->isCancelled()) return fail(cancelled("cancelled; nothing was written"));
            const TensorInfo& info = *order[i];
            if (!averaged(info.dtype)) {
                auto st = surgery::storedTensorForSave(base, info, *keys.at(info.key));
                if (!st.ok()) return fail(st.status());
                out[i] = std::move(*st);
                std::lock_guard lock(mutex);
                copied.push_back(info.key);
                return;
            }
            Tensor value;
            if (spec.method == AverageMethod::Slerp) {
                auto a = sources[0].reader->read(info.key);
                auto b = sources[1].reader->read(info.key);
                if (!a.ok()) return fail(a.status());
                if (!b.ok()) return fail(b.status());
                const std::vector<double> acc = slerp(*a, *b, spec.slerpT);
                value = std::move(*a);
                store(acc.data(), 0, acc.size(), value.dtype, value.bytes.data());
            } else {
                std::vector<StoredValues> stored(sources.size());
                std::vector<const uint8_t*> bytes;
                for (size_t s = 0; s < sources.size(); ++s) {
                    const BundleReader& reader = *sources[s].reader;
                    if (Status st = stored[s].load(reader, s == latest.index ? info : *reader.find(info.key)); !st.isOk())
                        return fail(st);
                    bytes.push_back(stored[s].data());
                }
                value.dtype = info.dtype;
                value.shape = info.shape;
                value.bytes.resize(static_cast<size_t>(info.storedBytes()));
                weightedSum(bytes, weights, info.dtype, componentCount(info.dtype, value.numElements()), value.bytes.data());
            }
            out[i].key = *keys.at(info.key);
            out[i].fullShape = info.shape;
            out[i].value = std::move(value);
            const int64_t now = done += info.storedBytes() * static_cast<int64_t>(sources.size());
            if (options.progress) options.progress(now, totalBytes, "read");
        });
    CKPT_RETURN_IF_ERROR(ran);
    CKPT_RETURN_IF_ERROR(firstError);
    notes.push_back(latestNote(latest, baseSource.argument));
    if (!copied.empty()) {
        std::sort(copied.begin(), copied.end());
        std::string list;
        for (size_t i = 0; i < copied.size() && i < 5; ++i) list += (i ? ", " : "") + copied[i];
        if (copied.size() > 5) list += ", ...";
        notes.push_back(std::to_string(copied.size()) + " tensor(s) that are not floating point taken from " +
                        baseSource.argument + ": " + list);
    }
    if (graph) out.push_back(surgery::graphTensor(std::move(*graph)));
    CKPT_ASSIGN_OR_RETURN(SurgeryResult result, surgery::writeVerified(target, std::move(out), options, std::move(notes)));
    result.base = AverageBase{baseSource.prefix, latest.step};
    return result;
}

}  // namespace ckpt
