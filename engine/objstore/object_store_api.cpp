// ckpt/object_store.h on top of objstore/object_storage.h.
#include "ckpt/object_store.h"

#include "objstore/object_location.h"
#include "objstore/store_registry.h"

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

}  // namespace ckpt
