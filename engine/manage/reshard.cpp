#include "ckpt/reshard.h"

#include "ckpt/checkpoint.h"
#include "ckpt/object_graph.h"
#include "ckpt/surgery.h"
#include "surgery/graph_edit.h"
#include "surgery/surgery_output.h"

namespace ckpt {

Result<SaveStats> reshardCheckpoint(const std::string& source, const std::string& dstPrefix, const SaveOptions& options) {
    CKPT_ASSIGN_OR_RETURN(ResolvedCheckpoint resolved, resolveCheckpoint(source));
    if (resolved.prefix == dstPrefix) return invalidArgument("reshard destination " + dstPrefix + " is the source itself");
    CKPT_ASSIGN_OR_RETURN(auto checkpoint, Checkpoint::open(resolved.prefix));
    const BundleReader* reader = &checkpoint->bundle();
    // Keys its graph names that it lacks stay lacking; they are not the rewrite's fault.
    std::vector<std::string> missing;
    if (const ObjectGraph* graph = checkpoint->objectGraph()) {
        std::vector<std::string> keys;
        for (const TensorInfo& t : reader->tensors()) keys.push_back(t.key);
        missing = surgery::missingAttributeKeys(*graph, keys);
    }
    // Keep the source's data order (TF2: object-graph order), the graph last.
    std::vector<SaveTensor> tensors;
    for (const TensorInfo* t : surgery::inDataOrder(*reader)) {
        CKPT_ASSIGN_OR_RETURN(SaveTensor st, surgery::storedTensorForSave(*reader, *t, t->key));
        tensors.push_back(std::move(st));
    }
    SurgeryOptions surgery;
    surgery.save = options;
    surgery.overwrite = true;
    CKPT_ASSIGN_OR_RETURN(SurgeryResult result, surgery::writeVerified(dstPrefix, std::move(tensors), surgery, {}, missing));
    return result.stats;
}

}  // namespace ckpt
