#pragma once
// A bounded cache of byte strings in a local directory, shared by every
// process that opens the same directory: what the object-store backend
// keeps of remote objects between runs (objstore/object_cache.h,
// docs/remote.md "Caching"). Each entry is one file named by the SHA-256 of
// its key, holding the key, a tag (the object's ETag), the bytes and a
// crc32c of all of them:
//  - get() serves an entry only when its size, key and checksum hold; a
//    corrupt or truncated one is removed and reported missing, never served.
//  - put() writes a temporary file and renames it over the entry, so a
//    reader (of any process) sees the old entry, the new one or none.
//  - The directory is created 0700, entries 0600. The total is kept under
//    maxBytes by removing the least recently used entries (a hit touches
//    its entry's time); another process's writes are seen at the next scan
//    (every kRescanPuts puts, or when this process's estimate is over).
//  - A put that fails (disk full, the directory gone or read-only) turns
//    writes off for this cache and leaves a warning(); reads go on.
// Thread-safe.
//   auto cache = BlobCache::open("/home/u/.cache/ckpt-explorer/objects", 1ull << 30);
//   if (cache) (*cache)->put("s3|bkt|run/ckpt-1.index", etag, bytes);

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "ckpt/status.h"

namespace ckpt::storage {

class BlobCache {
public:
    static constexpr size_t kMaxKeyBytes = 4096;
    static constexpr size_t kMaxTagBytes = 1024;
    static constexpr int kRescanPuts = 64;

    struct Entry {
        std::string tag;
        std::string bytes;
    };

    // Creates 'directory' (and missing parents) 0700 and checks that an
    // entry can be written there. PermissionDenied, NotFound, ... naming the
    // directory otherwise: the caller then goes on without a cache.
    static Result<std::shared_ptr<BlobCache>> open(const std::string& directory, uint64_t maxBytes);

    const std::string& directory() const { return m_directory; }
    uint64_t maxBytes() const { return m_maxBytes; }
    // The largest entry kept: a quarter of the total, so one object never
    // evicts everything else.
    uint64_t maxEntryBytes() const { return m_maxBytes / 4; }

    std::optional<Entry> get(std::string_view key);
    // Stores 'bytes' under 'key' with 'tag'. Entries over maxEntryBytes()
    // are not kept; failures turn writes off (warning()) and are not errors.
    void put(std::string_view key, std::string_view tag, std::string_view bytes);
    // Why writes stopped, naming the directory; empty while they work.
    std::string warning() const;

    BlobCache(const BlobCache&) = delete;
    BlobCache& operator=(const BlobCache&) = delete;
    ~BlobCache() = default;

private:
    BlobCache(std::string directory, uint64_t maxBytes) : m_directory(std::move(directory)), m_maxBytes(maxBytes) {}
    std::string pathOf(std::string_view key) const;
    Status write(const std::string& path, std::string_view key, std::string_view tag, std::string_view bytes);
    // Sums the entries, removes temporaries left by killed writers, and
    // removes the oldest entries while the total is over maxBytes.
    void trim();

    std::string m_directory;
    uint64_t m_maxBytes;
    std::atomic<bool> m_writable{true};
    mutable std::mutex m_mutex;
    uint64_t m_estimate = 0;  // bytes in the directory as last scanned plus own puts. Guarded by m_mutex.
    int m_putsSinceScan = 0;  // Guarded by m_mutex.
    std::string m_warning;    // Guarded by m_mutex.
};

}  // namespace ckpt::storage
