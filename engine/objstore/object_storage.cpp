#include "objstore/object_storage.h"

#include <algorithm>
#include <cstring>
#include <chrono>
#include <map>
#include <mutex>
#include <unordered_map>

#include "objstore/conditional_writes.h"
#include "objstore/object_location.h"
#include "objstore/remote_writable_file.h"
#include "objstore/store_registry.h"
#include "objstore/timestamps.h"
#include "storage/dispatch.h"

namespace ckpt::objstore {

namespace {

using storage::Generation;
using storage::ObjectKind;

std::string locationOf(const ObjectClient& client, const ObjectRef& ref) { return client.urlOf(ref); }

// Ranged reads of one object as it was when opened (its ETag), with its
// tail, and the whole object once adviseSequential asked for it, kept in
// memory.
class RemoteFile : public storage::RandomAccessFile {
public:
    // 'tail': the object's last bytes, already fetched; nullopt: fetched on
    // the first read that touches the last kOpenTailBytes (the object's
    // size and ETag came from a recent HEAD or open).
    RemoteFile(std::shared_ptr<ObjectClient> client, ObjectRef ref, ObjectInfo info, std::optional<std::vector<uint8_t>> tail)
        : m_client(std::move(client)), m_ref(std::move(ref)), m_location(locationOf(*m_client, m_ref)), m_info(std::move(info)),
          m_tailPending(!tail.has_value() && m_info.size > 0), m_cache(tail ? std::move(*tail) : std::vector<uint8_t>()),
          m_cacheOffset(m_info.size - m_cache.size()) {}

    const std::string& location() const override { return m_location; }
    uint64_t size() const override { return m_info.size; }
    Generation generation() const override { return generationOf(m_info); }

    Status read(uint64_t offset, size_t n, void* out) const override {
        const storage::ReadRange r{offset, n, out};
        return readBatch(std::span<const storage::ReadRange>(&r, 1));
    }

    Status readBatch(std::span<const storage::ReadRange> ranges) const override {
        struct Piece {
            uint64_t offset;
            size_t length;
            uint8_t* out;
        };
        std::vector<Piece> remote;
        {
            std::lock_guard lock(m_mutex);
            CKPT_ASSIGN_OR_RETURN(const bool fetchedTail, fetchTailIfTouched(ranges));
            for (const auto& r : ranges) {
                if (r.offset > m_info.size || r.length > m_info.size - r.offset)
                    return dataLoss(m_location + ": range [" + std::to_string(r.offset) + ", " +
                                    std::to_string(r.offset + r.length) + ") is past the end (size " +
                                    std::to_string(m_info.size) + ")");
                if (r.length == 0) continue;
                auto* out = static_cast<uint8_t*>(r.out);
                // The part at or after m_cacheOffset comes from memory.
                const uint64_t end = r.offset + r.length;
                if (fromReadAhead(r.offset, r.length, out)) continue;
                if (end > m_cacheOffset) {
                    const uint64_t from = std::max(r.offset, m_cacheOffset);
                    std::memcpy(out + (from - r.offset), m_cache.data() + (from - m_cacheOffset),
                                static_cast<size_t>(end - from));
                    if (from == r.offset) continue;
                    remote.push_back({r.offset, static_cast<size_t>(from - r.offset), out});
                } else {
                    remote.push_back({r.offset, r.length, out});
                }
            }
            if (fetchedTail) keepOnlyTail();
        }
        if (remote.empty()) return okStatus();
        // Coalesce neighbours: one request for pieces closer than the gap.
        std::sort(remote.begin(), remote.end(), [](const Piece& a, const Piece& b) { return a.offset < b.offset; });
        struct Group {
            uint64_t offset;
            uint64_t end;
            std::vector<Piece> pieces;
            std::vector<uint8_t> buffer;
        };
        std::vector<Group> groups;
        for (const Piece& p : remote) {
            if (!groups.empty() && p.offset <= groups.back().end + kCoalesceGapBytes &&
                std::max(groups.back().end, p.offset + p.length) - groups.back().offset <= kMaxCoalescedBytes) {
                groups.back().end = std::max(groups.back().end, p.offset + p.length);
                groups.back().pieces.push_back(p);
            } else {
                groups.push_back({p.offset, p.offset + p.length, {p}, {}});
            }
        }
        std::vector<RangeRead> reads;
        reads.reserve(groups.size());
        for (Group& g : groups) {
            std::span<uint8_t> target;
            if (g.pieces.size() == 1) {
                target = std::span<uint8_t>(g.pieces[0].out, g.pieces[0].length);
            } else {
                g.buffer.resize(static_cast<size_t>(g.end - g.offset));
                target = g.buffer;
            }
            reads.push_back({m_ref, g.offset, target, m_info.etag, okStatus(), {}});
        }
        CKPT_RETURN_IF_ERROR(m_client->readRanges(reads));
        for (const Group& g : groups) {
            if (g.pieces.size() == 1) continue;
            for (const Piece& p : g.pieces) std::memcpy(p.out, g.buffer.data() + (p.offset - g.offset), p.length);
        }
        return okStatus();
    }

    // The whole object (an index file): fetch what is not cached in one
    // request, then every read is served from memory. Any other range up
    // to kMaxReadAheadBytes (a verify or restore part): fetched in one
    // request and kept until it has been read once.
    void adviseSequential(uint64_t offset, uint64_t n) const override {
        if (offset > m_info.size || n > m_info.size - offset || n == 0) return;
        if (offset == 0 && n == m_info.size && m_info.size <= kWholeObjectCacheBytes) {
            std::lock_guard lock(m_mutex);
            if (m_cacheOffset == 0) return;
            // Everything not cached yet, the tail included when it was not
            // fetched: one GET.
            std::vector<uint8_t> head(static_cast<size_t>(m_cacheOffset));
            if (!m_client->read(m_ref, 0, head, m_info.etag).ok()) return;  // a hint: reads then fetch as usual
            head.insert(head.end(), m_cache.begin(), m_cache.end());
            m_cache = std::move(head);
            m_cacheOffset = 0;
            m_tailPending = false;
            m_readAhead.clear();
            return;
        }
        {
            std::lock_guard lock(m_mutex);
            n = std::min<uint64_t>(n, m_cacheOffset > offset ? m_cacheOffset - offset : 0);
            if (n == 0 || n > kMaxReadAheadBytes) return;
            for (const ReadAhead& r : m_readAhead)
                if (offset >= r.offset && offset + n <= r.offset + r.bytes.size()) return;
        }
        ReadAhead ahead{offset, std::vector<uint8_t>(static_cast<size_t>(n)), 0};
        if (!m_client->read(m_ref, offset, ahead.bytes, m_info.etag).ok()) return;
        std::lock_guard lock(m_mutex);
        m_readAhead.push_back(std::move(ahead));
        while (m_readAhead.size() > kMaxReadAheads) m_readAhead.erase(m_readAhead.begin());
    }

    Result<storage::MappedView> map(uint64_t /*offset*/, size_t /*n*/) const override {
        return failedPrecondition(m_location + ": an object in a store cannot be mapped");
    }

private:
    struct ReadAhead {
        uint64_t offset;
        std::vector<uint8_t> bytes;
        uint64_t consumed;  // bytes handed out; the buffer goes once all were
    };

    // Fetches the last kOpenTailBytes once, when a range first reaches into
    // them (a table's footer and index blocks), together with the bytes of
    // the touching ranges before them (up to kMaxCoalescedBytes from the
    // end): a read that ends in the tail (an object graph stored last) is
    // one GET, not a tail GET and a ranged GET. Returns whether it fetched;
    // the caller serves this call's ranges from the cache and then keeps
    // only the tail (keepOnlyTail). Caller holds m_mutex.
    Result<bool> fetchTailIfTouched(std::span<const storage::ReadRange> ranges) const {
        if (!m_tailPending) return false;
        const uint64_t tailStart = m_info.size - std::min<uint64_t>(m_info.size, kOpenTailBytes);
        const uint64_t lowest = m_info.size - std::min<uint64_t>(m_info.size, kMaxCoalescedBytes);
        uint64_t from = tailStart;
        bool touched = false;
        for (const storage::ReadRange& r : ranges) {
            if (r.length == 0 || r.offset >= m_info.size || r.offset + r.length <= tailStart) continue;
            touched = true;
            from = std::min(from, std::max(r.offset, lowest));
        }
        if (!touched) return false;
        std::vector<uint8_t> bytes(static_cast<size_t>(m_info.size - from));
        CKPT_RETURN_IF_ERROR(m_client->read(m_ref, from, bytes, m_info.etag).status());
        m_cache = std::move(bytes);
        m_cacheOffset = from;
        m_tailPending = false;
        return true;
    }

    // After fetchTailIfTouched: drops what was fetched before the tail, so
    // an open file keeps at most kOpenTailBytes. Caller holds m_mutex.
    void keepOnlyTail() const {
        const uint64_t tailStart = m_info.size - std::min<uint64_t>(m_info.size, kOpenTailBytes);
        if (m_cacheOffset >= tailStart) return;
        m_cache.erase(m_cache.begin(), m_cache.begin() + static_cast<std::ptrdiff_t>(tailStart - m_cacheOffset));
        m_cache.shrink_to_fit();
        m_cacheOffset = tailStart;
    }

    // Copies [offset, offset + n) out of a read-ahead buffer that holds all
    // of it. Caller holds m_mutex.
    bool fromReadAhead(uint64_t offset, size_t n, uint8_t* out) const {
        for (auto it = m_readAhead.begin(); it != m_readAhead.end(); ++it) {
            if (offset < it->offset || offset + n > it->offset + it->bytes.size()) continue;
            std::memcpy(out, it->bytes.data() + (offset - it->offset), n);
            it->consumed += n;
            if (it->consumed >= it->bytes.size()) m_readAhead.erase(it);
            return true;
        }
        return false;
    }

    std::shared_ptr<ObjectClient> m_client;
    ObjectRef m_ref;
    std::string m_location;
    ObjectInfo m_info;
    mutable std::mutex m_mutex;
    mutable bool m_tailPending;                  // Guarded by m_mutex.
    mutable std::vector<ReadAhead> m_readAhead;  // Guarded by m_mutex.
    mutable std::vector<uint8_t> m_cache;        // [m_cacheOffset, size). Guarded by m_mutex.
    mutable uint64_t m_cacheOffset;              // Guarded by m_mutex.
};

// Front to back in windows of parallel ranged GETs (maxInFlight parts of
// kSequentialPartBytes each).
class RemoteSequentialFile : public storage::SequentialFile {
public:
    RemoteSequentialFile(std::shared_ptr<ObjectClient> client, ObjectRef ref, ObjectInfo info)
        : m_client(std::move(client)), m_ref(std::move(ref)), m_location(locationOf(*m_client, m_ref)), m_info(std::move(info)) {}

    const std::string& location() const override { return m_location; }
    uint64_t size() const override { return m_info.size; }

    Result<size_t> read(size_t n, void* out) override {
        if (m_bufferPos == m_buffer.size()) {
            if (m_position >= m_info.size) return size_t(0);
            CKPT_RETURN_IF_ERROR(fill());
        }
        const size_t take = std::min(n, m_buffer.size() - m_bufferPos);
        std::memcpy(out, m_buffer.data() + m_bufferPos, take);
        m_bufferPos += take;
        return take;
    }

    Status skip(uint64_t n) override {
        const uint64_t inBuffer = m_buffer.size() - m_bufferPos;
        if (n <= inBuffer) {
            m_bufferPos += static_cast<size_t>(n);
            return okStatus();
        }
        n -= inBuffer;
        m_bufferPos = m_buffer.size();
        m_position = std::min(m_info.size, m_position + n);
        return okStatus();
    }

private:
    Status fill() {
        const size_t parts = static_cast<size_t>(m_client->settings().transfer.maxInFlight);
        const uint64_t window = std::min<uint64_t>(m_info.size - m_position, parts * kSequentialPartBytes);
        m_buffer.resize(static_cast<size_t>(window));
        m_bufferPos = 0;
        std::vector<RangeRead> reads;
        for (uint64_t at = 0; at < window; at += kSequentialPartBytes) {
            const size_t len = static_cast<size_t>(std::min<uint64_t>(kSequentialPartBytes, window - at));
            reads.push_back({m_ref, m_position + at, std::span<uint8_t>(m_buffer.data() + at, len), m_info.etag, okStatus(), {}});
        }
        m_position += window;
        return m_client->readRanges(reads);
    }

    std::shared_ptr<ObjectClient> m_client;
    ObjectRef m_ref;
    std::string m_location;
    ObjectInfo m_info;
    uint64_t m_position = 0;  // the object offset after the buffer
    std::vector<uint8_t> m_buffer;
    size_t m_bufferPos = 0;
};

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

    Result<std::unique_ptr<storage::RandomAccessFile>> openRandomAccess(const std::string& location) override {
        CKPT_ASSIGN_OR_RETURN(ObjectRef ref, fileRef(location));
        if (auto known = m_known.get(ref))
            return std::unique_ptr<storage::RandomAccessFile>(new RemoteFile(m_client, std::move(ref), *known, std::nullopt));
        CKPT_ASSIGN_OR_RETURN(auto tail, m_client->readTail(ref, kOpenTailBytes));
        m_known.put(ref, tail.second);
        return std::unique_ptr<storage::RandomAccessFile>(
            new RemoteFile(m_client, std::move(ref), std::move(tail.second), std::move(tail.first)));
    }

    Result<std::unique_ptr<storage::SequentialFile>> openSequential(const std::string& location) override {
        CKPT_ASSIGN_OR_RETURN(ObjectRef ref, fileRef(location));
        CKPT_ASSIGN_OR_RETURN(ObjectInfo info, m_client->stat(ref));
        return std::unique_ptr<storage::SequentialFile>(new RemoteSequentialFile(m_client, std::move(ref), std::move(info)));
    }

    Result<storage::ObjectContents> readObject(const std::string& location, size_t maxBytes) override {
        CKPT_ASSIGN_OR_RETURN(ObjectRef ref, fileRef(location));
        CKPT_ASSIGN_OR_RETURN(auto whole, m_client->readObject(ref, maxBytes));
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
