#pragma once
// Every checkpoint in one directory, as `ckpt list` and the explorer's
// sidebar show it: each <name>.index with its training step, modification
// time, size and the `checkpoint` state file's view of it. One sort order
// for both: by training step, then checkpoint number, then name.
//   auto listing = listCheckpoints("/runs/exp1");
//   for (const CheckpointListEntry& c : listing->checkpoints) use(c.prefix, c.step.step);

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ckpt/cancellation.h"
#include "ckpt/checkpoint_metadata.h"
#include "ckpt/checkpoint_step.h"
#include "ckpt/status.h"

namespace ckpt {

// A data file of a checkpoint's prefix, as the directory listed it.
struct CheckpointDataFile {
    int32_t shardId = 0;
    int32_t numShards = 0;  // the NNNNN of -of-NNNNN
    uint64_t bytes = 0;
};

struct CheckpointListEntry {
    std::string prefix;   // directory joined with the name
    std::string name;     // "ckpt-3"
    CheckpointStep step;  // number, stored step and where it came from
    double modified = 0;  // of the .index, seconds since the Unix epoch
    // The index plus the data files of the shard count its header names.
    // Data files of another shard count (left by an earlier save at the same
    // prefix) are not the checkpoint's: they are counted in staleDataFiles.
    uint64_t bytes = 0;
    int32_t shards = 0;
    int32_t missingShards = 0;  // named by the header but absent
    int32_t staleDataFiles = 0;
    int64_t tensors = -1;      // -1 when not counted or the index cannot be read
    bool inStateFile = false;  // listed in all_model_checkpoint_paths
    bool isLatest = false;     // the state file's model_checkpoint_path
    Status error;              // why the index cannot be read
    // The <prefix>.info.json ckpt-explorer writes (owner, step, metrics,
    // tags); nullopt when there is none (a foreign checkpoint) or it is
    // damaged, and then metadataError says why.
    std::optional<CheckpointMetadata> metadata;
    Status metadataError;
    // Every data file of the prefix the listing saw, whatever its shard count.
    std::vector<CheckpointDataFile> dataFiles;
    bool described = false;  // the fields from the index and metadata are filled in
};

struct CheckpointListing {
    std::string dir;
    std::vector<CheckpointListEntry> checkpoints;
    Status stateFileError;  // a state file that exists but cannot be parsed
};

struct CheckpointListOptions {
    // Decode each whole index to count its tensors (`ckpt list`). Without it
    // only the header and the step keys are looked up: ~0.3 ms instead of
    // ~60 ms for a 100,000-entry index (the explorer's sidebar).
    bool countTensors = true;
    // Read each checkpoint's index, metadata and step. Without it only what
    // the directory's listing and the state file say is filled in (names,
    // data files, bytes of every data file, the index's time, the state
    // flags), in name order, and describeCheckpoint() completes an entry:
    // a catalog rescan reads nothing of a checkpoint it knows unchanged.
    bool describe = true;
    // Polled between checkpoints, and stops an object store's requests in
    // flight: the listing fails with Cancelled.
    const CancellationToken* cancel = nullptr;
};

// CheckpointListEntry::bytes from its parts: the index's bytes plus the data
// files of 'numShards' (every data file when nullopt: no header to say).
uint64_t listedCheckpointBytes(uint64_t indexBytes, const std::vector<CheckpointDataFile>& dataFiles,
                               std::optional<int32_t> numShards);

// Fills in what an entry listed without 'describe' lacks (index header,
// step, metadata, shard counts and bytes of its shard count).
void describeCheckpoint(CheckpointListEntry& entry, bool countTensors);

// NotFound when 'dir' is not a directory; PermissionDenied when it cannot
// be read. Unreadable checkpoints are listed with their error.
Result<CheckpointListing> listCheckpoints(std::string_view dir, const CheckpointListOptions& options = {});

// The bytes one checkpoint takes on disk, as CheckpointListEntry::bytes
// counts them (the index plus the data files of its header's shard count;
// every data file of the prefix when the header cannot be read): the one
// figure the listing, retention, schedule runs and the catalog report.
// 0 when the index does not exist.
uint64_t checkpointBytesOnDisk(std::string_view prefix);

// The directory to list for a path a user opened: the directory itself,
// the variables/ of a SavedModel, or the directory holding a prefix,
// .index or data file. Relative paths stay relative; a path that names
// nothing is returned unchanged (listCheckpoints then reports it).
std::string checkpointDirectoryFor(std::string_view openedPath);

}  // namespace ckpt
