// ckpt/object_store.h on top of objstore/object_storage.h.
#include "ckpt/object_store.h"

#include <cctype>
#include <charconv>
#include <cstdlib>
#include <string>

#include "objstore/object_cache.h"
#include "objstore/object_location.h"
#include "objstore/store_registry.h"
#include "storage/dispatch.h"

namespace ckpt {

Status configureObjectStores(const ObjectStoreOptions& options) {
    objstore::StoreOverrides o;
    if (!options.endpointUrl.empty()) {
        auto ep = objstore::parseEndpoint(options.endpointUrl, "--endpoint-url");
        if (!ep) return ep.status();
        o.endpointUrl = options.endpointUrl;
    }
    if (!options.profile.empty()) o.profile = options.profile;
    if (!options.addressing.empty()) {
        auto a = objstore::parseAddressing(options.addressing);
        if (!a) return a.status();
        o.addressing = *a;
    }
    o.allowHttp = options.allowHttp;
    objstore::setStoreOverrides(std::move(o));
    return okStatus();
}

ObjectCacheState configureObjectCache(const ObjectCacheOptions& options) {
    const auto env = [](const char* name) {
        const char* v = std::getenv(name);
        return v != nullptr ? std::string(v) : std::string();
    };
    ObjectCacheState state;
    state.directory = !options.directory.empty() ? options.directory : env("CKPT_CACHE_DIR");
    if (state.directory.empty()) state.directory = options.defaultDirectory;
    state.maxBytes = options.maxBytes;
    if (state.maxBytes == 0) {
        const std::string mib = env("CKPT_CACHE_MAX_MIB");
        uint64_t value = 0;
        const auto [end, ec] = std::from_chars(mib.data(), mib.data() + mib.size(), value);
        if (!mib.empty() && (ec != std::errc() || end != mib.data() + mib.size() || value == 0 || value > (1ull << 30)))
            state.warning = "CKPT_CACHE_MAX_MIB is not a size in MiB (1 to 2^30); using 1024";
        else if (!mib.empty()) state.maxBytes = value << 20;
        if (state.maxBytes == 0) state.maxBytes = objstore::kDefaultObjectCacheBytes;
    }
    const std::string off = objstore::setObjectCache(state.directory, state.maxBytes);
    if (!off.empty()) {
        state.warning = off;
        state.directory.clear();
    }
    return state;
}

std::string objectCacheWarning() {
    const auto cache = objstore::objectCache();
    return cache ? cache->warning() : std::string();
}

ObjectStoreStats objectStoreStats() {
    const objstore::TransferStats t = objstore::totalTransferStats();
    ObjectStoreStats s;
    s.requests = t.requests;
    s.retries = t.retries;
    s.bytesReceived = t.bytesReceived;
    s.bytesSent = t.bytesSent;
    s.maxAttempts = t.maxAttempts;
    return s;
}

bool isObjectStoreLocation(std::string_view location) { return !objstore::objectScheme(location).empty(); }

Status checkLocationText(std::string_view location) {
    const std::string_view scheme = storage::locationScheme(location);
    if (scheme.empty()) return okStatus();
    std::string lower(scheme);
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    // "S3://" would reach the s3 backend, which only parses "s3://": refuse it here.
    if (lower == "s3" || lower == "gs") return objstore::parseObjectLocation(location).status();
    // No backend for the scheme: the dispatch refuses it without touching anything.
    return storage::checkLocation(location);
}

}  // namespace ckpt
