#include "surgery/surgery_output.h"

#include <algorithm>

#include "ckpt/bundle_naming.h"
#include "ckpt/retention.h"
#include "ckpt/verify.h"
#include "platform/file.h"
#include "surgery/graph_edit.h"
#include "storage/dispatch.h"

namespace ckpt {
Status checkSurgeryDestination(const std::string& dst, const std::vector<std::string>& sources, bool overwrite) {
    if (dst.empty() || dst.back() == '/') return invalidArgument("destination \"" + dst + "\" is not a checkpoint prefix");
    CKPT_RETURN_IF_ERROR(storage::checkLocation(dst));
    for (const std::string& source : sources) CKPT_RETURN_IF_ERROR(storage::checkLocation(source));
    if (storage::isDirectory(dst))
        return invalidArgument("destination " + dst + " is a directory; name a prefix in it, e.g. " +
                               platform::joinPath(dst, "model"));
    const std::string target = platform::canonicalPath(dst);
    for (const std::string& source : sources) {
        if (storage::isDirectory(source)) {
            if (platform::isInsideDirectory(target, platform::canonicalPath(source)))
                return invalidArgument("destination " + dst + " lies inside source directory " + source +
                                       "; write the result elsewhere");
        }
        auto resolved = resolveCheckpoint(source);
        if (resolved.ok() && platform::canonicalPath(resolved->prefix) == target)
            return invalidArgument("destination " + dst + " is source " + source + " itself; sources are never modified");
    }
    if (!overwrite && storage::exists(indexFileName(dst)))
        return {StatusCode::AlreadyExists, "a checkpoint exists at " + dst + " (pass --overwrite to replace it)"};
    return okStatus();
}

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

Result<SurgeryResult> writeVerified(const std::string& dst, std::vector<SaveTensor> tensors, const SurgeryOptions& options,
                                    std::vector<std::string> notes, const std::vector<std::string>& missingBefore) {
    CKPT_RETURN_IF_ERROR(checkCancelled(options));
    uint64_t bytes = 0;
    for (const SaveTensor& t : tensors) bytes += t.data().bytes.size();
    if (options.progress) options.progress(0, static_cast<int64_t>(bytes), "write");
    SurgeryResult result;
    // The save itself is cancellable up to its commit point, and reports
    // its bytes as this operation's "write" phase.
    SaveOptions save = options.save;
    if (!save.cancel) save.cancel = options.cancel;
    if (!save.progress && options.progress)
        save.progress = [&options](int64_t done, int64_t total, std::string_view) { options.progress(done, total, "write"); };
    auto stats = writeTensors(dst, std::move(tensors), save);
    if (!stats.ok()) {
        // The pipeline removes the destination's index before it renames the
        // new data files in: a failure after that (the disk filling while the
        // index is written) leaves data files and no index. They go, so that
        // a failed operation leaves nothing at the destination. An index that
        // is still there belongs to a checkpoint the failure did not reach
        // (--overwrite failing early), which is kept.
        if (!storage::exists(indexFileName(dst))) (void)deleteCheckpointFiles(platform::dirName(dst), platform::baseName(dst));
        return stats.status();
    }
    result.stats = std::move(*stats);
    // From here on the result exists: whatever fails removes it again.
    auto discard = [&](Status why) -> Status {
        (void)deleteCheckpointFiles(platform::dirName(dst), platform::baseName(dst));
        return why;
    };
    VerifyOptions verify;
    // surgery.h's phase for it is "verify", whatever verifyBundle calls its own.
    if (options.progress)
        verify.progress = [&options](int64_t done, int64_t total, std::string_view) { options.progress(done, total, "verify"); };
    verify.cancel = options.cancel;
    auto report = verifyBundle(dst, verify);
    if (!report.ok()) return discard(report.status());
    if (!report->ok())
        return discard(dataLoss("the result written at " + dst +
                                " does not verify, so it was removed: " + report->problems.front().message));
    result.verify = std::move(*report);
    // The written graph must name only stored keys (beyond what the source lacked).
    auto written = Checkpoint::open(dst);
    if (!written.ok()) return discard(written.status());
    if (const ObjectGraph* graph = (*written)->objectGraph()) {
        std::vector<std::string> keys;
        for (const TensorInfo& t : (*written)->bundle().tensors()) keys.push_back(t.key);
        for (const std::string& key : missingAttributeKeys(*graph, keys))
            if (std::find(missingBefore.begin(), missingBefore.end(), key) == missingBefore.end())
                return discard(failedPrecondition("the object graph written at " + dst + " names key \"" + key +
                                                  "\" that no tensor holds, so the result was removed"));
    }
    result.notes = std::move(notes);
    return result;
}

}  // namespace surgery
}  // namespace ckpt
