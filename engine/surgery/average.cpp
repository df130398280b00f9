// ckpt merge --average: same-structure checkpoints combined in float64.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <mutex>

#include "ckpt/checkpoint_listing.h"
#include "ckpt/checkpoint_step.h"
#include "ckpt/surgery.h"
#include "platform/file.h"
#include "platform/parallel.h"
#include "surgery/graph_edit.h"
#include "surgery/surgery_output.h"

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

// Components of a tensor as doubles (complex: real, imaginary interleaved).
void addScaled(const Tensor& t, double weight, std::vector<double>& acc) {
    const size_t n = acc.size();
    switch (t.dtype) {
    case DataType::Float:
    case DataType::Complex64: {
        const float* v = reinterpret_cast<const float*>(t.bytes.data());
        for (size_t i = 0; i < n; ++i) acc[i] += weight * static_cast<double>(v[i]);
        break;
    }
    case DataType::Double:
    case DataType::Complex128: {
        const double* v = reinterpret_cast<const double*>(t.bytes.data());
        for (size_t i = 0; i < n; ++i) acc[i] += weight * v[i];
        break;
    }
    case DataType::Half:
    case DataType::BFloat16: {
        const bool half = t.dtype == DataType::Half;
        for (size_t i = 0; i < n; ++i) {
            uint16_t bits = 0;
            std::memcpy(&bits, t.bytes.data() + 2 * i, 2);
            acc[i] += weight * static_cast<double>(half ? halfToFloat(bits) : bfloat16ToFloat(bits));
        }
        break;
    }
    default: break;
    }
}

size_t componentCount(const Tensor& t) {
    const auto n = static_cast<size_t>(t.numElements());
    return t.dtype == DataType::Complex64 || t.dtype == DataType::Complex128 ? 2 * n : n;
}

// The accumulated values stored back in 'out's dtype (its bytes reused).
void store(const std::vector<double>& acc, Tensor& out) {
    const size_t n = acc.size();
    switch (out.dtype) {
    case DataType::Float:
    case DataType::Complex64: {
        float* v = reinterpret_cast<float*>(out.bytes.data());
        for (size_t i = 0; i < n; ++i) v[i] = static_cast<float>(acc[i]);
        break;
    }
    case DataType::Double:
    case DataType::Complex128: std::memcpy(out.bytes.data(), acc.data(), n * sizeof(double)); break;
    case DataType::Half:
    case DataType::BFloat16: {
        const bool half = out.dtype == DataType::Half;
        for (size_t i = 0; i < n; ++i) {
            const auto f = static_cast<float>(acc[i]);
            const uint16_t bits = half ? floatToHalf(f) : floatToBfloat16(f);
            std::memcpy(out.bytes.data() + 2 * i, &bits, 2);
        }
        break;
    }
    default: break;
    }
}

// Spherical interpolation of two flattened tensors, as model-merging tools
// do: along the arc between them, or the straight line when they are
// (nearly) parallel or one is zero.
std::vector<double> slerp(const Tensor& a, const Tensor& b, double t) {
    std::vector<double> x(componentCount(a), 0.0), y(x.size(), 0.0);
    addScaled(a, 1.0, x);
    addScaled(b, 1.0, y);
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

Status checkSpec(const AverageSpec& spec, size_t sources) {
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

}  // namespace

Result<std::vector<std::string>> expandAverageSources(const std::vector<std::string>& arguments, int lastK,
                                                      AverageMethod method) {
    struct Found {
        std::string prefix;
        int64_t step;
    };
    std::vector<Found> found;
    for (const std::string& argument : arguments) {
        const bool savedModel = platform::pathExists(platform::joinPath(argument, "variables/variables.index"));
        if (platform::isDirectory(argument) && !savedModel) {
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

Result<SurgeryResult> averageCheckpoints(const std::vector<std::string>& arguments, const std::string& dst,
                                         const AverageSpec& spec, const SurgeryOptions& options) {
    CKPT_RETURN_IF_ERROR(checkSpec(spec, arguments.size()));
    CKPT_RETURN_IF_ERROR(checkSurgeryDestination(dst, arguments, options.overwrite));
    CKPT_ASSIGN_OR_RETURN(std::vector<Source> sources, surgery::openSources(arguments));
    CKPT_RETURN_IF_ERROR(checkSameStructure(sources));
    const BundleReader& first = *sources[0].reader;
    const std::vector<double> weights = weightsFor(spec, sources.size());
    std::vector<std::string> notes{"combined " + std::to_string(sources.size()) + " checkpoints: " + methodText(spec, weights)};
    for (size_t i = 0; i < sources.size(); ++i)
        for (size_t j = 0; j < i; ++j)
            if (sources[i].prefix == sources[j].prefix)
                notes.push_back(sources[i].argument + " is given more than once and counts each time");

    // The first source's graph, without the optimizer for --weights-only.
    std::optional<std::string> graph;
    std::map<std::string, std::optional<std::string>> keys;  // stored key -> result key (nullopt: dropped)
    for (const TensorInfo& t : first.tensors()) keys.emplace(t.key, t.key);
    if (const TensorInfo* g = first.find(kObjectGraphKey)) {
        CKPT_ASSIGN_OR_RETURN(Tensor stored, first.read(*g));
        if (stored.strings.size() != 1)
            return dataLoss(std::string(kObjectGraphKey) + " in " + first.indexPath() + " is not a scalar string");
        graph = std::move(stored.strings[0]);
        if (spec.weightsOnly) {
            CKPT_ASSIGN_OR_RETURN(surgery::GraphEdit edit, surgery::GraphEdit::parse(*graph, first.indexPath()));
            auto stripped = edit.stripOptimizers();
            if (!stripped.ok()) return stripped.status();
            CKPT_ASSIGN_OR_RETURN(surgery::GraphEdit::Finished finished, edit.finish());
            std::string names;
            for (const std::string& n : *stripped) names += (names.empty() ? "" : ", ") + n;
            notes.push_back("optimizer state dropped (" + names + ")");
            keys = surgery::mapStoredKeys(edit.original(), finished.keyMap, first.tensors());
            graph = std::move(finished.serialized);
        }
    } else if (spec.weightsOnly) {
        return failedPrecondition(
            first.indexPath() + " is a name-based checkpoint: without an object graph its optimizer state cannot be told apart");
    }

    std::vector<const TensorInfo*> order;
    for (const TensorInfo* t : surgery::inDataOrder(first))
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
                auto st = surgery::storedTensorForSave(first, info, *keys.at(info.key));
                if (!st.ok()) return fail(st.status());
                out[i] = std::move(*st);
                std::lock_guard lock(mutex);
                copied.push_back(info.key);
                return;
            }
            Tensor value;
            std::vector<double> acc;
            if (spec.method == AverageMethod::Slerp) {
                auto a = first.read(info);
                auto b = sources[1].reader->read(info.key);
                if (!a.ok()) return fail(a.status());
                if (!b.ok()) return fail(b.status());
                acc = slerp(*a, *b, spec.slerpT);
                value = std::move(*a);
            } else {
                for (size_t s = 0; s < sources.size(); ++s) {
                    const TensorInfo* own = s == 0 ? &info : sources[s].reader->find(info.key);
                    if (auto st = sources[s].reader->readInto(*own, value); !st.isOk()) return fail(st);
                    if (s == 0) acc.assign(componentCount(value), 0.0);
                    addScaled(value, weights[s], acc);
                }
            }
            store(acc, value);
            out[i].key = *keys.at(info.key);
            out[i].fullShape = info.shape;
            out[i].value = std::move(value);
            const int64_t now = done += info.storedBytes() * static_cast<int64_t>(sources.size());
            if (options.progress) options.progress(now, totalBytes, "read");
        });
    CKPT_RETURN_IF_ERROR(ran);
    CKPT_RETURN_IF_ERROR(firstError);
    if (!copied.empty()) {
        std::sort(copied.begin(), copied.end());
        std::string list;
        for (size_t i = 0; i < copied.size() && i < 5; ++i) list += (i ? ", " : "") + copied[i];
        if (copied.size() > 5) list += ", ...";
        notes.push_back(std::to_string(copied.size()) + " tensor(s) that are not floating point taken from " +
                        sources[0].argument + ": " + list);
    }
    if (graph) out.push_back(surgery::graphTensor(std::move(*graph)));
    return surgery::writeVerified(dst, std::move(out), options, std::move(notes));
}

}  // namespace ckpt
