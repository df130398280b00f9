// Save As / reshard: every tensor copied as it is, with another sharding.

#include "ckpt/surgery.h"
#include "surgery/graph_edit.h"
#include "surgery/surgery_output.h"
#include "platform/cancellation_scope.h"

namespace ckpt {

Result<SurgeryResult> saveCheckpointAs(const std::string& source, const std::string& dst, const SurgeryOptions& options) {
    const platform::CancellationScope scope(options.cancel);  // stops object-store transfers in flight
    CKPT_ASSIGN_OR_RETURN(const std::string target, surgery::checkedDestination(dst, {source}, options));
    CKPT_ASSIGN_OR_RETURN(auto checkpoint, Checkpoint::open(source));
    const BundleReader& reader = checkpoint->bundle();
    // Keys its graph names that it lacks stay lacking; they are not the copy's fault.
    std::vector<std::string> missing;
    if (const ObjectGraph* graph = checkpoint->objectGraph()) {
        std::vector<std::string> keys;
        for (const TensorInfo& t : reader.tensors()) keys.push_back(t.key);
        missing = surgery::missingAttributeKeys(*graph, keys);
    }
    int64_t total = 0, done = 0;
    for (const TensorInfo& t : reader.tensors()) total += t.storedBytes();
    // The source's data order (TF2: object-graph order), the graph last.
    std::vector<SaveTensor> tensors;
    for (const TensorInfo* t : surgery::inDataOrder(reader)) {
        CKPT_RETURN_IF_ERROR(surgery::checkCancelled(options));
        CKPT_ASSIGN_OR_RETURN(SaveTensor st, surgery::storedTensorForSave(reader, *t, t->key));
        tensors.push_back(std::move(st));
        done += t->storedBytes();
        if (options.progress) options.progress(done, total, "read");
    }
    std::vector<std::string> notes;
    if (options.save.policy) notes.push_back("sharding: " + options.save.policy->description());
    return surgery::writeVerified(target, std::move(tensors), options, std::move(notes), missing);
}

}  // namespace ckpt
