#include "format/object_graph_entry.h"

#include "ckpt/dtype.h"
#include "platform/file.h"

namespace ckpt::format {

Status checkObjectGraphEntry(const BundleReader& bundle, const TensorInfo& info) {
    if (info.dtype == DataType::String && info.shape.rank() == 0) return okStatus();
    return dataLoss(std::string(kObjectGraphKey) + " in " + bundle.indexPath() + " is " + std::string(dataTypeName(info.dtype)) +
                    " " + info.shape.toString() + ", expected a scalar DT_STRING");
}

Result<ObjectGraph> parseObjectGraphEntry(const BundleReader& bundle, const TensorInfo& info, const std::string& bytes) {
    return ObjectGraph::parse(bytes, platform::baseName(bundle.dataPath(info.region.shardId)));
}

}  // namespace ckpt::format
