// Writes <prefix>.info.json (ckpt/checkpoint_metadata.h) the way every
// small file beside a checkpoint is written: temp file, fsync, rename.

#include "ckpt/checkpoint_metadata.h"
#include "pipeline/writable_file.h"

namespace ckpt {

Status writeCheckpointMetadata(std::string_view prefix, const CheckpointMetadata& metadata) {
    return pipeline::writeFileAtomically(checkpointMetadataFileName(prefix), checkpointMetadataToJson(metadata));
}

}  // namespace ckpt
