#pragma once
// The process's on-disk cache of what s3:// and gs:// reads fetch whole
// (indexes, state files) and of small ranges (an object graph, a tensor the
// explorer shows), validated by ETag (docs/remote.md, "Caching"): the
// object-store backend serves an entry only for the ETag the store says the
// object has now, learnt from a listing or a HEAD of the same command, or
// asked for with a conditional GET (If-None-Match: a 304 without a body).
// Off unless configured: `ckpt --cache-dir`, CKPT_CACHE_DIR, the explorer's
// per-user cache directory. Entries live in storage/blob_cache.h. Thread-safe.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "objstore/object_client.h"
#include "storage/blob_cache.h"

namespace ckpt::objstore {

inline constexpr uint64_t kDefaultObjectCacheBytes = 1ull << 30;
// Ranges up to this long are kept (an object graph, a tensor the explorer
// shows); longer ones (a verify window) are not.
inline constexpr uint64_t kMaxCachedRangeBytes = 4u << 20;

// The cache in use, or nullptr.
std::shared_ptr<storage::BlobCache> objectCache();
// Uses the cache in 'directory' (empty: none) of at most 'maxBytes'. When
// it cannot be created or written, the cache is off and the returned text
// says why (naming the directory); else the text is empty.
std::string setObjectCache(const std::string& directory, uint64_t maxBytes);
// The entry's key: the endpoint, bucket and key of the object (never a
// credential) and which bytes: "" the whole object, else "OFFSET+LENGTH".
std::string objectCacheKey(const ObjectClient& client, const ObjectRef& object, std::string_view part = {});

}  // namespace ckpt::objstore
