#include "ckpt/reshard.h"

#include "ckpt/surgery.h"

namespace ckpt {

Result<SaveStats> reshardCheckpoint(const std::string& source, const std::string& dstPrefix, const ReshardOptions& options) {
    SurgeryOptions surgery;
    surgery.save = options.save;
    surgery.overwrite = options.overwrite;
    surgery.metadata = options.metadata;
    CKPT_ASSIGN_OR_RETURN(SurgeryResult result, saveCheckpointAs(source, dstPrefix, surgery));
    return result.stats;
}

Result<SaveStats> reshardCheckpoint(const std::string& source, const std::string& dstPrefix, const SaveOptions& options) {
    return reshardCheckpoint(source, dstPrefix, ReshardOptions{.save = options});
}

}  // namespace ckpt
