// Writes <prefix>.info.json (ckpt/checkpoint_metadata.h) the way every
// small file beside a checkpoint is written: temp file, fsync, rename.

#include "ckpt/checkpoint_metadata.h"
#include "storage/dispatch.h"

namespace ckpt {

Status writeCheckpointMetadata(std::string_view prefix, const CheckpointMetadata& metadata) {
    return storage::writeObject(checkpointMetadataFileName(prefix), checkpointMetadataToJson(metadata)).status();
}

}  // namespace ckpt
