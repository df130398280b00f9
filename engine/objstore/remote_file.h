#pragma once
// The files the object-store backend (object_storage.h) hands out for
// reading: ranged reads of one object pinned to the ETag it was opened at,
// its tail and whole-object reads kept in memory, small ranges and whole
// objects kept in the on-disk cache when one is configured
// (object_cache.h); and front-to-back reads in windows of parallel ranged
// GETs. What each costs is in object_storage.h.

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "objstore/object_client.h"
#include "storage/blob_cache.h"
#include "storage/files.h"

namespace ckpt::objstore {

// Where a file's bytes may be kept between runs: the cache and the key of
// the whole object (object_cache.h's objectCacheKey); no cache: nullptr.
struct DiskCacheSlot {
    std::shared_ptr<storage::BlobCache> cache;
    std::string wholeKey;
};

// 'tail': the object's last bytes (or all of them), already fetched;
// nullopt: fetched by the first read that reaches into the last
// kOpenTailBytes (the size and ETag came from a recent HEAD or listing).
std::unique_ptr<storage::RandomAccessFile> makeRemoteFile(std::shared_ptr<ObjectClient> client, ObjectRef ref, ObjectInfo info,
                                                          std::optional<std::vector<uint8_t>> tail, DiskCacheSlot disk);
std::unique_ptr<storage::SequentialFile> makeRemoteSequentialFile(std::shared_ptr<ObjectClient> client, ObjectRef ref,
                                                                  ObjectInfo info);

}  // namespace ckpt::objstore
