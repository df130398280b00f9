#include "ckpt/reshard.h"

#include <algorithm>

#include "ckpt/checkpoint.h"
#include "ckpt/object_graph.h"
#include "ckpt/verify.h"
#include "platform/file.h"

namespace ckpt {

Result<SaveStats> reshardCheckpoint(const std::string& source, const std::string& dstPrefix, const SaveOptions& options) {
    CKPT_ASSIGN_OR_RETURN(ResolvedCheckpoint resolved, resolveCheckpoint(source));
    if (resolved.prefix == dstPrefix) return invalidArgument("reshard destination " + dstPrefix + " is the source itself");
    CKPT_ASSIGN_OR_RETURN(auto reader, BundleReader::open(resolved.prefix));
    // Keep the source's data order (TF2: object-graph order), the graph last.
    std::vector<const TensorInfo*> order;
    for (const TensorInfo& t : reader->tensors()) order.push_back(&t);
    std::stable_sort(order.begin(), order.end(), [](const TensorInfo* a, const TensorInfo* b) {
        const bool ga = a->key == kObjectGraphKey, gb = b->key == kObjectGraphKey;
        if (ga != gb) return gb;
        const auto pa = a->isPartitioned() ? std::pair(a->slices[0].region.shardId, a->slices[0].region.offset)
                                           : std::pair(a->region.shardId, a->region.offset);
        const auto pb = b->isPartitioned() ? std::pair(b->slices[0].region.shardId, b->slices[0].region.offset)
                                           : std::pair(b->region.shardId, b->region.offset);
        return pa < pb;
    });
    std::vector<SaveTensor> tensors;
    tensors.reserve(order.size());
    for (const TensorInfo* t : order) {
        SaveTensor st;
        st.key = t->key;
        st.fullShape = t->shape;
        if (isDecodable(t->dtype)) {
            CKPT_ASSIGN_OR_RETURN(st.value, reader->read(*t));
        } else if (!t->isPartitioned() && t->dtype == DataType::Variant) {
            // Variants are copied as encoded regions (BundleWriter re-checksums them).
            st.value.dtype = t->dtype;
            st.value.shape = t->shape;
            CKPT_ASSIGN_OR_RETURN(st.value.bytes, reader->readRegion(t->region, t->dtype, *t->shape.numElements(), t->key));
        } else {
            return unimplemented("cannot reshard " + std::string(dataTypeName(t->dtype)) + " tensor \"" + t->key + "\" in " +
                                 reader->indexPath());
        }
        tensors.push_back(std::move(st));
    }
    CKPT_ASSIGN_OR_RETURN(SaveStats stats, writeTensors(dstPrefix, std::move(tensors), options));
    CKPT_ASSIGN_OR_RETURN(VerifyReport report, verifyBundle(dstPrefix, VerifyOptions{}));
    if (!report.ok())
        return dataLoss("resharded checkpoint " + dstPrefix + " does not verify: " + report.problems.front().message);
    return stats;
}

}  // namespace ckpt
