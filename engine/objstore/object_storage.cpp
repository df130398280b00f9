#include "objstore/object_storage.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <chrono>
#include <map>
#include <mutex>
#include <unordered_map>

#include "objstore/conditional_writes.h"
#include "objstore/object_cache.h"
#include "objstore/object_location.h"
#include "objstore/remote_file.h"
#include "objstore/remote_writable_file.h"
#include "objstore/store_registry.h"
#include "objstore/timestamps.h"
#include "storage/dispatch.h"

namespace ckpt::objstore {

namespace {

using storage::Generation;
using storage::ObjectKind;

// What a HEAD, a suffix GET or a listing said about an object, for a few
// seconds: opening a file right after checking it exists (what resolving a
// checkpoint does) needs no second request. Only existing objects are kept,
// and every later read is pinned to the ETag, so a stale entry can make a
// read fail ("changed while it was read"), never mix two versions.
class InfoCache {
public:
    std::optional<ObjectInfo> get(const ObjectRef& ref) {
        std::lock_guard lock(m_mutex);
        auto it = m_entries.find(keyOf(ref));
        if (it == m_entries.end()) return std::nullopt;
        if (std::chrono::steady_clock::now() - it->second.second > kInfoCacheTtl) {
            m_entries.erase(it);
            return std::nullopt;
        }
        return it->second.first;
    }
    void put(const ObjectRef& ref, const ObjectInfo& info) {
        if (info.etag.empty()) return;  // nothing to pin reads to
        std::lock_guard lock(m_mutex);
        if (m_entries.size() >= kInfoCacheEntries) m_entries.clear();
        m_entries[keyOf(ref)] = {info, std::chrono::steady_clock::now()};
    }
    void forget(const ObjectRef& ref) {
        std::lock_guard lock(m_mutex);
        m_entries.erase(keyOf(ref));
    }

private:
    static std::string keyOf(const ObjectRef& ref) { return ref.bucket + '/' + ref.key; }
    std::mutex m_mutex;
    std::unordered_map<std::string, std::pair<ObjectInfo, std::chrono::steady_clock::time_point>>
        m_entries;  // Guarded by m_mutex.
};

class ObjectStorage : public storage::Storage {
public:
    explicit ObjectStorage(std::shared_ptr<ObjectClient> client) : m_client(std::move(client)) {}
    const std::shared_ptr<ObjectClient>& client() const { return m_client; }

    std::string_view scheme() const override { return m_client->settings().scheme(); }
    storage::Capabilities capabilities() const override { return {}; }

    // With the disk cache (object_cache.h): no request when a listing or
    // HEAD just gave the object's ETag and the cache holds the whole object
    // at that ETag; else openRevalidated().
    Result<std::unique_ptr<storage::RandomAccessFile>> openRandomAccess(const std::string& location) override {
        CKPT_ASSIGN_OR_RETURN(ObjectRef ref, fileRef(location));
        DiskCacheSlot disk{objectCache(), {}};
        if (disk.cache) disk.wholeKey = objectCacheKey(*m_client, ref);
        if (auto known = m_known.get(ref)) {
            std::optional<std::vector<uint8_t>> bytes;
            if (disk.cache)
                if (auto e = disk.cache->get(disk.wholeKey); e && e->tag == known->etag && e->bytes.size() == known->size)
                    bytes = toBytes(e->bytes);
            return makeRemoteFile(m_client, std::move(ref), *known, std::move(bytes), std::move(disk));
        }
        if (disk.cache) return openRevalidated(std::move(ref), std::move(disk));
        CKPT_ASSIGN_OR_RETURN(auto tail, m_client->readTail(ref, kOpenTailBytes));
        m_known.put(ref, tail.second);
        return makeRemoteFile(m_client, std::move(ref), std::move(tail.second), std::move(tail.first), std::move(disk));
    }

    Result<std::unique_ptr<storage::SequentialFile>> openSequential(const std::string& location) override {
        CKPT_ASSIGN_OR_RETURN(ObjectRef ref, fileRef(location));
        CKPT_ASSIGN_OR_RETURN(ObjectInfo info, m_client->stat(ref));
        return makeRemoteSequentialFile(m_client, std::move(ref), std::move(info));
    }

    // With the disk cache holding the object: always a conditional GET (a
    // state file's generation feeds compare-and-swap, so it is never taken
    // from a listing that may be seconds old); a 304 serves the entry. An
    // object with a GCS generation number (what gs:// write conditions
    // compare, and an entry does not keep) is not kept.
    Result<storage::ObjectContents> readObject(const std::string& location, size_t maxBytes) override {
        CKPT_ASSIGN_OR_RETURN(ObjectRef ref, fileRef(location));
        const std::shared_ptr<storage::BlobCache> cache = objectCache();
        const std::string key = cache ? objectCacheKey(*m_client, ref) : std::string();
        if (cache) {
            if (auto hit = cache->get(key); hit && !hit->tag.empty() && hit->bytes.size() <= maxBytes) {
                CKPT_ASSIGN_OR_RETURN(auto changed, m_client->readObjectIfChanged(ref, maxBytes, hit->tag));
                if (!changed)
                    return storage::ObjectContents{std::move(hit->bytes), generationOf(ObjectInfo{0, hit->tag, {}, {}})};
                if (keepable(changed->second)) cache->put(key, changed->second.etag, changed->first);
                return storage::ObjectContents{std::move(changed->first), generationOf(changed->second)};
            }
        }
        CKPT_ASSIGN_OR_RETURN(auto whole, m_client->readObject(ref, maxBytes));
        if (cache && keepable(whole.second)) cache->put(key, whole.second.etag, whole.first);
        return storage::ObjectContents{std::move(whole.first), generationOf(whole.second)};
    }

    Result<std::optional<storage::ObjectInfo>> stat(const std::string& location, bool /*follow*/) override {
        CKPT_ASSIGN_OR_RETURN(ObjectLocation loc, parseObjectLocation(location));
        if (!loc.key.empty() && loc.key.back() != '/') {
            const ObjectRef ref{loc.bucket, loc.key};
            const std::optional<ObjectInfo> known = m_known.get(ref);
            Result<ObjectInfo> info = known ? Result<ObjectInfo>(*known) : m_client->stat(ref);
            if (info) {
                m_known.put(ref, *info);
                storage::ObjectInfo out;
                out.kind = ObjectKind::File;
                out.size = info->size;
                out.generation = generationOf(*info);
                out.modifiedNs = parseStoreTimeNs(info->lastModified).value_or(0);
                return std::optional<storage::ObjectInfo>(out);
            }
            if (info.status().code() == StatusCode::PermissionDenied) {
                // A HEAD's 403 has no body to say why (a wrong secret, a
                // denied bucket); the listing's error below does.
                auto why = m_client->listPage(loc.bucket, directoryPrefix(loc.key), "/", "", 1);
                return why ? info.status() : why.status();
            }
            if (info.status().code() != StatusCode::NotFound) return info.status();
        }
        // A "directory": the bucket itself, or a prefix with objects under it.
        CKPT_ASSIGN_OR_RETURN(ListPage page, m_client->listPage(loc.bucket, directoryPrefix(loc.key), "/", "", 1));
        if (loc.key.empty() || !page.objects.empty() || !page.commonPrefixes.empty()) {
            storage::ObjectInfo out;
            out.kind = ObjectKind::Directory;
            return std::optional<storage::ObjectInfo>(out);
        }
        return std::optional<storage::ObjectInfo>();
    }

    Status list(const std::string& directory, const storage::ListOptions& options, const storage::ListVisitor& visit) override {
        CKPT_ASSIGN_OR_RETURN(ObjectLocation loc, parseObjectLocation(directory));
        const std::string prefix = directoryPrefix(loc.key);
        std::string token;
        std::vector<std::string> seen;
        for (;;) {
            CKPT_ASSIGN_OR_RETURN(ListPage page, m_client->listPage(loc.bucket, prefix + options.namePrefix, "/", token, 1000));
            for (const ListedObject& o : page.objects) {
                storage::ListEntry e;
                if (!childName(o.key, prefix, e.name)) continue;
                // Opening a listed file right after (a checkpoint's index
                // and data files) then needs no request of its own.
                // (A listing states no GCS generation: its token is the ETag.)
                m_known.put(ObjectRef{loc.bucket, o.key}, ObjectInfo{o.size, o.etag, o.lastModified, {}});
                e.kind = ObjectKind::File;
                e.size = o.size;
                e.modifiedNs = parseStoreTimeNs(o.lastModified).value_or(0);
                if (!visit(e)) return okStatus();
            }
            for (const std::string& p : page.commonPrefixes) {
                storage::ListEntry e;
                std::string_view dir(p);
                if (!dir.empty() && dir.back() == '/') dir.remove_suffix(1);
                if (!childName(dir, prefix, e.name)) continue;
                e.kind = ObjectKind::Directory;
                if (!visit(e)) return okStatus();
            }
            if (!page.isTruncated) return okStatus();
            if (std::find(seen.begin(), seen.end(), page.nextContinuationToken) != seen.end())
                return dataLoss(directory + ": the listing repeats a continuation token");
            seen.push_back(page.nextContinuationToken);
            token = page.nextContinuationToken;
        }
    }

    Result<std::unique_ptr<storage::WritableFile>> create(const std::string& location,
                                                          const storage::CreateOptions& options) override {
        CKPT_ASSIGN_OR_RETURN(ObjectRef ref, fileRef(location));
        if (options.condition.kind != storage::WriteCondition::Kind::None)
            CKPT_RETURN_IF_ERROR(requireConditionalWrites(*m_client, ref));
        m_known.forget(ref);
        return makeRemoteWritableFile(m_client, std::move(ref), options.condition, options.expectedSize);
    }

    Result<Generation> writeObject(const std::string& location, std::string_view bytes,
                                   const storage::WriteCondition& condition) override {
        CKPT_ASSIGN_OR_RETURN(ObjectRef ref, fileRef(location));
        if (condition.kind != storage::WriteCondition::Kind::None) CKPT_RETURN_IF_ERROR(requireConditionalWrites(*m_client, ref));
        m_known.forget(ref);
        return putWithCondition(*m_client, ref, bytes, condition);
    }

    Status remove(const std::string& location) override {
        CKPT_ASSIGN_OR_RETURN(ObjectRef ref, fileRef(location));
        m_known.forget(ref);
        Status s = m_client->remove(ref);
        if (s.code() == StatusCode::NotFound) return okStatus();  // deletes are idempotent
        return s;
    }

    // A completed PUT is already listed: nothing to make durable.
    Status syncDirectory(const std::string& /*directory*/) override { return okStatus(); }

    Status rename(const std::string& from, const std::string& /*to*/, const storage::WriteCondition& /*c*/) override {
        return unimplemented(from + ": an object store has no rename");
    }
    Status createDirectories(const std::string& /*directory*/) override { return okStatus(); }

    // Some servers (SeaweedFS) keep an empty "folder" once the last object
    // under a prefix is deleted, listed as a common prefix until the folder
    // key itself ("dir/") is deleted. Only an empty one is: a folder with
    // anything still under it is refused, as a local rmdir would be.
    Status removeDirectory(const std::string& directory) override {
        CKPT_ASSIGN_OR_RETURN(ObjectLocation loc, parseObjectLocation(directory));
        if (loc.key.empty()) return okStatus();  // a bucket is never removed
        const std::string prefix = directoryPrefix(loc.key);
        CKPT_ASSIGN_OR_RETURN(ListPage page, m_client->listPage(loc.bucket, prefix, "/", "", 2));
        const bool empty = page.commonPrefixes.empty() && std::all_of(page.objects.begin(), page.objects.end(),
                                                                      [&](const ListedObject& o) { return o.key == prefix; });
        if (!empty) return failedPrecondition("cannot remove " + directory + ": it is not empty");
        const Status s = m_client->remove(ObjectRef{loc.bucket, prefix});
        return s.code() == StatusCode::NotFound ? okStatus() : s;
    }

    // Multipart uploads begun under the directory's prefix (at any depth)
    // and never completed nor aborted.
    Status listPendingWrites(const std::string& directory, const storage::PendingWriteVisitor& visit) override {
        CKPT_ASSIGN_OR_RETURN(ObjectLocation loc, parseObjectLocation(directory));
        const std::string prefix = loc.key.empty() ? std::string() : directoryPrefix(loc.key);
        CKPT_ASSIGN_OR_RETURN(std::vector<PendingUpload> uploads, m_client->listUploads(loc.bucket, prefix, kMaxPendingUploads));
        for (const PendingUpload& u : uploads) {
            storage::PendingWrite w;
            w.location = m_client->urlOf({loc.bucket, u.key});
            w.id = u.uploadId;
            w.startedNs = u.initiatedNs;
            if (!visit(w)) break;
        }
        return okStatus();
    }

    Status abortPendingWrite(const storage::PendingWrite& write) override {
        CKPT_ASSIGN_OR_RETURN(ObjectRef ref, fileRef(write.location));
        if (write.id.empty()) return invalidArgument(write.location + ": a pending write without an upload id");
        return m_client->abortMultipartUpload(ref, write.id);
    }

private:
    static std::vector<uint8_t> toBytes(const std::string& s) { return {s.begin(), s.end()}; }
    static bool keepable(const ObjectInfo& info) { return !info.etag.empty() && info.generation.empty(); }

    // The open's suffix GET, asking If-None-Match on the ETag of the cache's
    // copy of the whole object, or else of its tail (a data file's footer
    // and object graph): a 304, without a body, serves that copy. Otherwise
    // the answer is the open's tail, as without a cache, and its copy is
    // kept ("SIZE ETAG" as the tag: a 304 says nothing of the size).
    Result<std::unique_ptr<storage::RandomAccessFile>> openRevalidated(ObjectRef ref, DiskCacheSlot disk) {
        const std::string tailKey = objectCacheKey(*m_client, ref, "tail");
        ObjectInfo info;
        std::vector<uint8_t> bytes;
        if (auto whole = disk.cache->get(disk.wholeKey); whole && !whole->tag.empty()) {
            info = {whole->bytes.size(), whole->tag, {}, {}};
            bytes = toBytes(whole->bytes);
        } else if (auto tail = disk.cache->get(tailKey)) {
            const size_t space = tail->tag.find(' ');
            uint64_t size = 0;
            const char* end = tail->tag.data() + (space == std::string::npos ? 0 : space);
            const auto parsed = std::from_chars(tail->tag.data(), end, size);
            if (space != std::string::npos && space + 1 < tail->tag.size() && parsed.ec == std::errc() && parsed.ptr == end &&
                tail->bytes.size() == std::min<uint64_t>(size, kOpenTailBytes)) {
                info = {size, tail->tag.substr(space + 1), {}, {}};
                bytes = toBytes(tail->bytes);
            }
        }
        std::pair<std::vector<uint8_t>, ObjectInfo> fetched;
        if (!info.etag.empty()) {
            CKPT_ASSIGN_OR_RETURN(auto changed, m_client->readTailIfChanged(ref, kOpenTailBytes, info.etag));
            if (!changed) {
                m_known.put(ref, info);
                return makeRemoteFile(m_client, std::move(ref), info, std::move(bytes), std::move(disk));
            }
            fetched = std::move(*changed);
        } else {
            CKPT_ASSIGN_OR_RETURN(fetched, m_client->readTail(ref, kOpenTailBytes));
        }
        m_known.put(ref, fetched.second);
        if (!fetched.second.etag.empty())
            disk.cache->put(tailKey, std::to_string(fetched.second.size) + " " + fetched.second.etag,
                            std::string_view(reinterpret_cast<const char*>(fetched.first.data()), fetched.first.size()));
        return makeRemoteFile(m_client, std::move(ref), std::move(fetched.second), std::move(fetched.first), std::move(disk));
    }

    Result<ObjectRef> fileRef(const std::string& location) const {
        CKPT_ASSIGN_OR_RETURN(ObjectLocation loc, parseObjectLocation(location));
        if (loc.key.empty() || loc.key.back() == '/')
            return invalidArgument(location + " is a directory (a bucket or a prefix), not an object");
        return ObjectRef{std::move(loc.bucket), std::move(loc.key)};
    }

    // The name of 'key' directly inside 'prefix'; false for a key outside
    // it (a hostile listing), the prefix itself, or "." and "..".
    static bool childName(std::string_view key, const std::string& prefix, std::string& name) {
        if (key.size() <= prefix.size() || key.substr(0, prefix.size()) != prefix) return false;
        name = std::string(key.substr(prefix.size()));
        return !name.empty() && name != "." && name != ".." && name.find('/') == std::string::npos;
    }

    std::shared_ptr<ObjectClient> m_client;
    InfoCache m_known;
};

// One backend per client, so its InfoCache serves every call of a command.
Result<std::shared_ptr<storage::Storage>> backendFor(StoreKind kind, std::string_view location) {
    auto client = clientFor(kind);
    if (!client) return client.status().withContext(location);
    static std::mutex mutex;
    static std::map<StoreKind, std::shared_ptr<ObjectStorage>> backends;  // Guarded by mutex.
    std::lock_guard lock(mutex);
    auto& backend = backends[kind];
    if (!backend || backend->client() != *client) backend = std::make_shared<ObjectStorage>(std::move(*client));
    return std::shared_ptr<storage::Storage>(backend);
}

}  // namespace

std::shared_ptr<storage::Storage> makeObjectStorage(std::shared_ptr<ObjectClient> client) {
    return std::make_shared<ObjectStorage>(std::move(client));
}

void registerObjectStores() {
    static std::once_flag once;
    std::call_once(once, [] {
        storage::registerStorage("s3", [](std::string_view l) { return backendFor(StoreKind::S3, l); });
        storage::registerStorage("gs", [](std::string_view l) { return backendFor(StoreKind::Gcs, l); });
    });
}

// s3:// and gs:// are served as soon as the engine is loaded.
namespace {
const bool kRegistered = (registerObjectStores(), true);
}  // namespace

}  // namespace ckpt::objstore
