#include "objstore/conditional_writes.h"

#include <map>
#include <memory>
#include <mutex>

#include "storage/owner_token.h"

namespace ckpt::objstore {

namespace {

struct Verdict {
    std::mutex mutex;  // held while this store is probed
    bool known = false;
    Status status;  // Guarded by mutex.
};

// The probe object: beside 'near', an owned temporary name (this process's
// token), so `ckpt gc` removes one that a killed process left behind.
ObjectRef probeRef(const ObjectRef& near) {
    const size_t slash = near.key.rfind('/');
    const std::string dir = slash == std::string::npos ? std::string() : near.key.substr(0, slash + 1);
    return {near.bucket, storage::ownedTempName(dir + ".ckpt-write-probe", storage::kOwnedTempMarker)};
}

PutCondition createOnly() {
    PutCondition c;
    c.ifNoneMatch = true;
    return c;
}

// True when the second create-only PUT was refused, false when it
// overwrote the first; another failure when the probe could not run.
Result<bool> probe(ObjectClient& client, const ObjectRef& ref) {
    // put() and not putOnce(): a lost answer to this first PUT is no verdict.
    CKPT_RETURN_IF_ERROR(client.put(ref, "ckpt conditional-write probe 1\n", createOnly()).status());
    auto second = client.putOnce(ref, "ckpt conditional-write probe 2\n", createOnly());
    (void)client.remove(ref);  // best effort: the verdict stands either way
    if (second.ok()) return false;
    if (second.status().code() == StatusCode::FailedPrecondition) return true;
    return second.status();
}

}  // namespace

Status requireConditionalWrites(ObjectClient& client, const ObjectRef& near) {
    const StoreSettings& settings = client.settings();
    const std::string store =
        std::string(settings.scheme()) + " endpoint " + settings.endpoint.toString() + " (bucket " + near.bucket + ")";
    static std::mutex mutex;
    static std::map<std::string, std::shared_ptr<Verdict>> verdicts;  // Guarded by mutex.
    std::shared_ptr<Verdict> verdict;
    {
        std::lock_guard lock(mutex);
        auto& slot = verdicts[store];
        if (!slot) slot = std::make_shared<Verdict>();
        verdict = slot;
    }
    std::lock_guard lock(verdict->mutex);
    if (verdict->known) return verdict->status;
    const ObjectRef ref = probeRef(near);
    auto honoured = probe(client, ref);
    if (!honoured.ok()) return honoured.status().withContext("checking that the " + store + " honours create-only writes");
    verdict->known = true;
    if (!*honoured)
        verdict->status = unimplemented(
            "the " + store + " does not honour create-only writes: a second create-only PUT of " + client.urlOf(ref) + " (" +
            conditionHeaders(createOnly(), settings.kind).front().first +
            ") replaced the object instead of failing with 412. A commit there (a save's claim, an "
            "index, the state file, a save by N writers) could be overwritten by another writer unnoticed, so it is "
            "refused");
    return verdict->status;
}

}  // namespace ckpt::objstore
