// ckpt merge: bundles with disjoint keys (workers' shards) into one.

#include <algorithm>
#include <map>

#include "ckpt/surgery.h"
#include "surgery/graph_edit.h"
#include "surgery/surgery_output.h"
#include "platform/cancellation_scope.h"

namespace ckpt {
namespace {

using surgery::Source;

struct Holder {
    size_t source;
    const TensorInfo* info;
};

bool overlaps(const TensorSlice& a, const TensorSlice& b, const TensorShape& shape) {
    for (size_t d = 0; d < a.extents.size() && d < b.extents.size(); ++d) {
        const int64_t dim = shape.dims[d];
        const int64_t a0 = a.extents[d].start, a1 = a.extents[d].isFull() ? dim : a0 + a.extents[d].length;
        const int64_t b0 = b.extents[d].start, b1 = b.extents[d].isFull() ? dim : b0 + b.extents[d].length;
        if (a1 <= b0 || b1 <= a0) return false;
    }
    return true;
}

// A key several sources hold is allowed only as disjoint slices of one
// partitioned tensor that together cover it; the reason otherwise.
std::string whyConflict(const std::vector<Holder>& holders, const std::vector<Source>& sources) {
    const TensorInfo& first = *holders.front().info;
    std::string where = "in " + sources[holders[0].source].argument;
    for (size_t i = 1; i < holders.size(); ++i)
        where += (i + 1 == holders.size() ? " and " : ", ") + sources[holders[i].source].argument;
    std::vector<const StoredSlice*> slices;
    int64_t covered = 0;
    for (const Holder& h : holders) {
        const TensorInfo& t = *h.info;
        if (!t.isPartitioned()) return where;
        if (t.dtype != first.dtype || t.shape != first.shape)
            return std::string(dataTypeName(t.dtype)) + t.shape.toString() + " in " + sources[h.source].argument + " but " +
                   std::string(dataTypeName(first.dtype)) + first.shape.toString() + " in " +
                   sources[holders.front().source].argument;
        if (!isFixedSize(t.dtype)) return "slices of " + std::string(dataTypeName(t.dtype)) + " tensors cannot be combined";
        for (const StoredSlice& s : t.slices) {
            for (const StoredSlice* other : slices)
                if (overlaps(s.slice, other->slice, t.shape))
                    return "slice " + s.slice.toString() + " overlaps slice " + other->slice.toString();
            slices.push_back(&s);
            covered += s.shape.numElements().value_or(0);
        }
    }
    if (covered != first.shape.numElements().value_or(-1))
        return "the slices cover " + std::to_string(covered) + " of its " +
               std::to_string(first.shape.numElements().value_or(0)) + " elements";
    return {};
}

}  // namespace

Result<SurgeryResult> mergeCheckpoints(const std::vector<std::string>& arguments, const std::string& dst,
                                       const SurgeryOptions& options) {
    const platform::CancellationScope scope(options.cancel);  // stops object-store transfers in flight
    if (arguments.size() < 2) return invalidArgument("merge needs at least two sources");
    CKPT_ASSIGN_OR_RETURN(const std::string target, surgery::checkedDestination(dst, arguments, options));
    CKPT_ASSIGN_OR_RETURN(std::vector<Source> sources, surgery::openSources(arguments));

    std::map<std::string, std::vector<Holder>> byKey;
    std::vector<std::pair<std::string, std::string>> graphs;
    int64_t totalBytes = 0;
    for (size_t i = 0; i < sources.size(); ++i) {
        for (const TensorInfo& t : sources[i].reader->tensors()) {
            if (t.key == kObjectGraphKey) {
                CKPT_ASSIGN_OR_RETURN(Tensor graph, sources[i].reader->read(t));
                if (graph.strings.size() != 1)
                    return dataLoss(std::string(kObjectGraphKey) + " in " + sources[i].reader->indexPath() +
                                    " is not a scalar string");
                graphs.emplace_back(sources[i].argument, std::move(graph.strings[0]));
                continue;
            }
            byKey[t.key].push_back({i, &t});
            totalBytes += t.storedBytes();
        }
    }
    std::vector<std::string> conflicts;
    for (const auto& [key, holders] : byKey) {
        if (holders.size() < 2) continue;
        if (std::string why = whyConflict(holders, sources); !why.empty()) conflicts.push_back("\"" + key + "\" (" + why + ")");
    }
    if (!conflicts.empty()) {
        std::string list;
        for (size_t i = 0; i < conflicts.size() && i < 10; ++i) list += (i ? ", " : "") + conflicts[i];
        if (conflicts.size() > 10) list += " and " + std::to_string(conflicts.size() - 10) + " more";
        return invalidArgument(std::to_string(conflicts.size()) + " key(s) are in more than one source: " + list);
    }

    std::vector<std::string> notes;
    std::vector<SaveTensor> tensors;
    int64_t done = 0;
    for (size_t i = 0; i < sources.size(); ++i) {
        const BundleReader& reader = *sources[i].reader;
        for (const TensorInfo* t : surgery::inDataOrder(reader)) {
            if (t->key == kObjectGraphKey) continue;
            CKPT_RETURN_IF_ERROR(surgery::checkCancelled(options));
            if (byKey[t->key].size() == 1) {
                CKPT_ASSIGN_OR_RETURN(SaveTensor st, surgery::storedTensorForSave(reader, *t, t->key));
                tensors.push_back(std::move(st));
            } else {
                // One slice per stored slice; the writer assembles the entry.
                for (const StoredSlice& s : t->slices) {
                    SaveTensor st;
                    st.key = t->key;
                    st.fullShape = t->shape;
                    st.slice = s.slice;
                    st.value.dtype = t->dtype;
                    st.value.shape = s.shape;
                    CKPT_ASSIGN_OR_RETURN(st.value.bytes,
                                          reader.readRegion(s.region, t->dtype, s.shape.numElements().value_or(0), t->key));
                    tensors.push_back(std::move(st));
                }
            }
            done += t->storedBytes();
            if (options.progress) options.progress(done, totalBytes, "read");
        }
    }
    const size_t combined =
        static_cast<size_t>(std::count_if(byKey.begin(), byKey.end(), [](const auto& kv) { return kv.second.size() > 1; }));
    if (combined > 0)
        notes.push_back(std::to_string(combined) + " partitioned tensor(s) combined from slices in several sources");

    if (graphs.size() == 1) {
        notes.push_back("object graph from " + graphs[0].first);
        tensors.push_back(surgery::graphTensor(std::move(graphs[0].second)));
    } else if (graphs.size() > 1) {
        const bool identical =
            std::all_of(graphs.begin(), graphs.end(), [&](const auto& g) { return g.second == graphs[0].second; });
        if (identical) {
            notes.push_back("object graph identical in " + std::to_string(graphs.size()) + " sources, kept once");
            tensors.push_back(surgery::graphTensor(std::move(graphs[0].second)));
        } else {
            CKPT_ASSIGN_OR_RETURN(std::string merged, surgery::mergeObjectGraphs(graphs, notes));
            notes.push_back("object graphs of " + std::to_string(graphs.size()) + " sources combined by object path");
            tensors.push_back(surgery::graphTensor(std::move(merged)));
        }
    }
    return surgery::writeVerified(target, std::move(tensors), options, std::move(notes));
}

}  // namespace ckpt
