#include "objstore/store_registry.h"

#include <algorithm>
#include <map>
#include <mutex>

namespace ckpt::objstore {

namespace {

struct Registry {
    std::mutex mutex;
    StoreOverrides overrides;                                    // Guarded by mutex.
    std::map<StoreKind, std::shared_ptr<ObjectClient>> clients;  // Guarded by mutex.
    TransferStats retired;                                       // counters of dropped clients. Guarded by mutex.
};

Registry& registry() {
    static Registry r;
    return r;
}

void addStats(TransferStats& into, const TransferStats& s) {
    into.requests += s.requests;
    into.retries += s.retries;
    into.bytesReceived += s.bytesReceived;
    into.bytesSent += s.bytesSent;
    into.maxAttempts = std::max(into.maxAttempts, s.maxAttempts);
}

}  // namespace

Result<std::shared_ptr<ObjectClient>> clientFor(StoreKind kind) {
    Registry& r = registry();
    std::lock_guard lock(r.mutex);
    auto it = r.clients.find(kind);
    if (it == r.clients.end()) {
        CKPT_ASSIGN_OR_RETURN(StoreSettings settings, resolveStoreSettings(kind, processEnvironment(), r.overrides));
        CKPT_ASSIGN_OR_RETURN(auto client, ObjectClient::create(std::move(settings)));
        it = r.clients.emplace(kind, std::shared_ptr<ObjectClient>(std::move(client))).first;
    }
    return it->second;
}

void setStoreOverrides(StoreOverrides overrides) {
    Registry& r = registry();
    std::lock_guard lock(r.mutex);
    r.overrides = std::move(overrides);
    for (auto& [kind, client] : r.clients) addStats(r.retired, client->stats());
    r.clients.clear();
}

TransferStats totalTransferStats() {
    Registry& r = registry();
    std::lock_guard lock(r.mutex);
    TransferStats total = r.retired;
    for (auto& [kind, client] : r.clients) addStats(total, client->stats());
    return total;
}

}  // namespace ckpt::objstore
