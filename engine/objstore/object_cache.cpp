#include "objstore/object_cache.h"

#include <mutex>

namespace ckpt::objstore {

namespace {

struct Configured {
    std::mutex mutex;
    std::shared_ptr<storage::BlobCache> cache;  // Guarded by mutex.
};

Configured& configured() {
    static Configured c;
    return c;
}

}  // namespace

std::shared_ptr<storage::BlobCache> objectCache() {
    Configured& c = configured();
    std::lock_guard lock(c.mutex);
    return c.cache;
}

std::string setObjectCache(const std::string& directory, uint64_t maxBytes) {
    std::shared_ptr<storage::BlobCache> cache;
    std::string warning;
    if (!directory.empty()) {
        auto opened = storage::BlobCache::open(directory, maxBytes);
        if (opened.ok()) cache = std::move(*opened);
        else warning = "not caching remote objects: " + opened.status().message();
    }
    Configured& c = configured();
    std::lock_guard lock(c.mutex);
    c.cache = std::move(cache);
    return warning;
}

std::string objectCacheKey(const ObjectClient& client, const ObjectRef& object, std::string_view part) {
    // '\n' cannot occur in an endpoint, a bucket name or a key (refused
    // before any request), so no two objects share a key.
    std::string key(client.settings().scheme());
    key += '\n';
    key += client.settings().endpoint.toString();
    key += '\n';
    key += object.bucket;
    key += '\n';
    key += object.key;
    key += '\n';
    key += part;
    return key;
}

}  // namespace ckpt::objstore
