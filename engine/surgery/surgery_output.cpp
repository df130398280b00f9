#include "surgery/surgery_output.h"

#include <algorithm>

#include "ckpt/checkpoint_metadata.h"
#include "ckpt/destination.h"
#include "ckpt/verify.h"
#include "pipeline/staged_checkpoint.h"
#include "platform/file.h"
#include "surgery/graph_edit.h"

namespace ckpt {
namespace surgery {

Result<std::vector<Source>> openSources(const std::vector<std::string>& arguments) {
    std::vector<Source> out;
    out.reserve(arguments.size());
    for (const std::string& argument : arguments) {
        CKPT_ASSIGN_OR_RETURN(ResolvedCheckpoint resolved, resolveCheckpoint(argument));
        CKPT_ASSIGN_OR_RETURN(auto reader, BundleReader::open(resolved.prefix));
        out.push_back({argument, resolved.prefix, std::move(reader)});
    }
    return out;
}

Result<SaveTensor> storedTensorForSave(const BundleReader& reader, const TensorInfo& info, std::string key) {
    SaveTensor st;
    st.key = std::move(key);
    st.fullShape = info.shape;
    if (isDecodable(info.dtype)) {
        CKPT_ASSIGN_OR_RETURN(st.value, reader.read(info));
    } else if (!info.isPartitioned() && info.dtype == DataType::Variant) {
        // Variants are copied as encoded regions (BundleWriter re-checksums them).
        st.value.dtype = info.dtype;
        st.value.shape = info.shape;
        CKPT_ASSIGN_OR_RETURN(st.value.bytes, reader.readRegion(info.region, info.dtype, *info.shape.numElements(), info.key));
    } else {
        return unimplemented("cannot copy " + std::string(dataTypeName(info.dtype)) + " tensor \"" + info.key + "\" of " +
                             reader.indexPath());
    }
    return st;
}

std::vector<const TensorInfo*> inDataOrder(const BundleReader& reader) {
    std::vector<const TensorInfo*> order;
    order.reserve(reader.tensors().size());
    for (const TensorInfo& t : reader.tensors()) order.push_back(&t);
    auto place = [](const TensorInfo* t) {
        const StoredRegion& r = t->isPartitioned() ? t->slices[0].region : t->region;
        return std::pair(r.shardId, r.offset);
    };
    std::stable_sort(order.begin(), order.end(), [&](const TensorInfo* a, const TensorInfo* b) {
        const bool ga = a->key == kObjectGraphKey, gb = b->key == kObjectGraphKey;
        if (ga != gb) return gb;
        return place(a) < place(b);
    });
    return order;
}

Status checkCancelled(const SurgeryOptions& options) {
    if (options.cancel && options.cancel->isCancelled()) return cancelled("cancelled; nothing was written");
    return okStatus();
}

SaveTensor graphTensor(std::string serialized) {
    SaveTensor st;
    st.key = std::string(kObjectGraphKey);
    st.value.dtype = DataType::String;
    st.value.strings.push_back(std::move(serialized));
    return st;
}

Result<std::string> checkedDestination(const std::string& dst, const std::vector<std::string>& sources,
                                       const SurgeryOptions& options) {
    const DestinationCheck check =
        checkDestination({.path = dst, .sources = sources, .open = options.open, .overwrite = options.overwrite});
    CKPT_RETURN_IF_ERROR(check.status());
    return check.path;
}

Result<SurgeryResult> writeVerified(const std::string& dst, std::vector<SaveTensor> tensors, const SurgeryOptions& options,
                                    std::vector<std::string> notes, const std::vector<std::string>& missingBefore) {
    CKPT_RETURN_IF_ERROR(checkCancelled(options));
    uint64_t bytes = 0;
    for (const SaveTensor& t : tensors) bytes += t.data().bytes.size();
    if (options.progress) options.progress(0, static_cast<int64_t>(bytes), "write");
    // Everything below happens beside 'dst'; whatever fails leaves 'dst' as it was.
    CKPT_ASSIGN_OR_RETURN(auto staged, pipeline::StagedCheckpoint::begin(dst, options.overwrite));
    const std::string& written = staged->stagingPrefix();
    if (options.metadata) CKPT_RETURN_IF_ERROR(writeCheckpointMetadata(written, *options.metadata));
    SurgeryResult result;
    // The save itself is cancellable up to its commit point, and reports
    // its bytes as this operation's "write" phase.
    SaveOptions save = options.save;
    if (!save.cancel) save.cancel = options.cancel;
    if (!save.progress && options.progress)
        save.progress = [&options](int64_t done, int64_t total, std::string_view) { options.progress(done, total, "write"); };
    CKPT_ASSIGN_OR_RETURN(result.stats, writeTensors(written, std::move(tensors), save));
    result.stats.prefix = dst;
    VerifyOptions verify;
    // surgery.h's phase for it is "verify", whatever verifyBundle calls its own.
    if (options.progress)
        verify.progress = [&options](int64_t done, int64_t total, std::string_view) { options.progress(done, total, "verify"); };
    verify.cancel = options.cancel;
    CKPT_ASSIGN_OR_RETURN(VerifyReport report, verifyBundle(written, verify));
    if (!report.ok())
        return dataLoss("the result written for " + dst +
                        " does not verify, so it was discarded: " + report.problems.front().message);
    result.verify = std::move(report);
    result.verify.prefix = dst;
    // The written graph must name only stored keys (beyond what the source lacked).
    {
        CKPT_ASSIGN_OR_RETURN(auto checkpoint, Checkpoint::open(written));
        if (const ObjectGraph* graph = checkpoint->objectGraph()) {
            std::vector<std::string> keys;
            for (const TensorInfo& t : checkpoint->bundle().tensors()) keys.push_back(t.key);
            for (const std::string& key : missingAttributeKeys(*graph, keys))
                if (std::find(missingBefore.begin(), missingBefore.end(), key) == missingBefore.end())
                    return failedPrecondition("the object graph written for " + dst + " names key \"" + key +
                                              "\" that no tensor holds, so the result was discarded");
        }
    }
    CKPT_RETURN_IF_ERROR(checkCancelled(options));
    CKPT_RETURN_IF_ERROR(staged->commit());
    result.replaced = staged->replaced();
    result.notes = std::move(notes);
    return result;
}

}  // namespace surgery
}  // namespace ckpt
