#pragma once
// The object-store backend of the storage layer (storage/storage.h) for
// s3:// and gs:// locations, on one ObjectClient per scheme. What each
// call costs in requests (docs/remote.md, "Requests"):
//  - openRandomAccess: one suffix GET of the last kOpenTailBytes, which
//    also gives the size and ETag; reads inside that tail are served from
//    memory (a table's footer and index blocks), others are ranged GETs
//    pinned to the ETag. Right after a stat() of the object, or a list()
//    that showed it (what resolving a checkpoint does), the open costs
//    nothing: the size and ETag are reused for kInfoCacheTtl, and the tail
//    is fetched by the first read that reaches into it, in the same GET as
//    that read's bytes before it (an object graph stored last: one
//    request). adviseSequential() over a whole object up to
//    kWholeObjectCacheBytes fetches the rest in one GET and serves every
//    later read from memory (an .index read in two requests); over a
//    shorter range it fetches that range in one GET and serves the reads
//    inside it from memory (a verify part: one request, not one per chunk).
//  - readBatch: ranges sorted, neighbours closer than kCoalesceGapBytes
//    merged, the merged ranges fetched in parallel.
//  - openSequential: one HEAD, then windows of parallel ranged GETs.
//  - readObject: one GET; stat: one HEAD (plus a one-key listing when
//    there is no object, to tell a "directory" from nothing); list:
//    ListObjectsV2 pages with delimiter '/', each object's size and ETag
//    remembered as a HEAD's are.
//  - create/writeObject: a single PUT when the file is closed, or a
//    multipart upload once more than a part is written
//    (remote_writable_file.h), with If-None-Match: * or If-Match for
//    conditions (x-goog-if-generation-match on gs://);
//    the first conditional write to a bucket in a process first probes
//    whether the server honours conditions (conditional_writes.h, 3
//    requests) and is refused where it does not.
//  - removeDirectory: a one-key listing to check it is empty, then a
//    DELETE of the folder key "dir/" (servers that keep empty folders).
//  - listPendingWrites: ListMultipartUploads pages under the prefix;
//    abortPendingWrite: one AbortMultipartUpload.
// With the on-disk cache of object_cache.h configured, opens and whole
// reads serve what it holds at the object's current ETag: a reopen costs a
// listing or a 304 (docs/remote.md, "Caching"). The files themselves are
// remote_file.h's. No capability is on: no rename, directories, mapping,
// O_DIRECT or local paths. Thread-safe.

#include <chrono>
#include <memory>

#include "objstore/object_client.h"
#include "storage/storage.h"

namespace ckpt::objstore {

inline constexpr size_t kOpenTailBytes = 256u << 10;
// How long what a HEAD or an open said about an object is reused, and how
// many objects are remembered.
inline constexpr std::chrono::seconds kInfoCacheTtl{10};
inline constexpr size_t kInfoCacheEntries = 4096;
inline constexpr size_t kWholeObjectCacheBytes = 256u << 20;
inline constexpr uint64_t kCoalesceGapBytes = 256u << 10;
inline constexpr uint64_t kMaxCoalescedBytes = 64u << 20;
inline constexpr size_t kSequentialPartBytes = 8u << 20;
// adviseSequential() of a range (a verify or restore part) fetches it in one
// request if it is at most this long; at most kMaxReadAheads are kept.
inline constexpr uint64_t kMaxReadAheadBytes = 64u << 20;
inline constexpr size_t kMaxReadAheads = 16;
// listPendingWrites() refuses (ResourceExhausted) a prefix with more open uploads.
inline constexpr size_t kMaxPendingUploads = 100000;

std::shared_ptr<storage::Storage> makeObjectStorage(std::shared_ptr<ObjectClient> client);

// Registers the "s3" and "gs" backends with storage/dispatch.h, on the
// clients of store_registry.h. Idempotent; also done when the engine loads.
void registerObjectStores();

}  // namespace ckpt::objstore
