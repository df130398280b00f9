#include "ckpt/reshard.h"

#include "ckpt/surgery.h"

namespace ckpt {

Result<SaveStats> reshardCheckpoint(const std::string& source, const std::string& dstPrefix, const SaveOptions& options) {
    SurgeryOptions surgery;
    surgery.save = options;
    surgery.overwrite = true;  // reshard has always replaced what it writes over
    CKPT_ASSIGN_OR_RETURN(SurgeryResult result, saveCheckpointAs(source, dstPrefix, surgery));
    return result.stats;
}

}  // namespace ckpt
