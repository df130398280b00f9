#include "objstore/remote_file.h"

#include <algorithm>
#include <cstring>
#include <mutex>
#include <span>

#include "objstore/object_cache.h"
#include "objstore/object_storage.h"
#include "objstore/remote_writable_file.h"

namespace ckpt::objstore {

namespace {

using storage::Generation;

std::string locationOf(const ObjectClient& client, const ObjectRef& ref) { return client.urlOf(ref); }

std::string_view asChars(const std::vector<uint8_t>& bytes) {
    return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

// Ranged reads of one object as it was when opened (its ETag), with its
// tail, and the whole object once adviseSequential asked for it, kept in
// memory; with a disk cache, the whole object and single reads up to
// kMaxCachedRangeBytes kept there too, under this ETag.
class RemoteFile : public storage::RandomAccessFile {
public:
    // 'tail': the object's last bytes, already fetched; nullopt: fetched on
    // the first read that touches the last kOpenTailBytes (the object's
    // size and ETag came from a recent HEAD or open).
    RemoteFile(std::shared_ptr<ObjectClient> client, ObjectRef ref, ObjectInfo info, std::optional<std::vector<uint8_t>> tail,
               DiskCacheSlot disk)
        : m_client(std::move(client)), m_ref(std::move(ref)), m_location(locationOf(*m_client, m_ref)), m_info(std::move(info)),
          m_disk(std::move(disk)), m_tailPending(!tail.has_value() && m_info.size > 0),
          m_cache(tail ? std::move(*tail) : std::vector<uint8_t>()), m_cacheOffset(m_info.size - m_cache.size()) {
        if (m_info.etag.empty()) m_disk.cache.reset();  // nothing to validate an entry by
    }

    const std::string& location() const override { return m_location; }
    uint64_t size() const override { return m_info.size; }
    Generation generation() const override { return generationOf(m_info); }

    Status read(uint64_t offset, size_t n, void* out) const override {
        const storage::ReadRange r{offset, n, out};
        return readBatch(std::span<const storage::ReadRange>(&r, 1));
    }

    // One range (an object graph, a tensor) from the disk cache when it
    // holds it at this ETag; else fetched, then kept there.
    Status readBatch(std::span<const storage::ReadRange> ranges) const override {
        if (!m_disk.cache || ranges.size() != 1 || ranges[0].length == 0 || ranges[0].length > kMaxCachedRangeBytes ||
            inMemory(ranges[0]))
            return readBatchUncached(ranges);
        const storage::ReadRange& r = ranges[0];
        const std::string key = objectCacheKey(*m_client, m_ref, std::to_string(r.offset) + "+" + std::to_string(r.length));
        if (auto hit = m_disk.cache->get(key); hit && hit->tag == m_info.etag && hit->bytes.size() == r.length) {
            std::memcpy(r.out, hit->bytes.data(), r.length);
            return okStatus();
        }
        CKPT_RETURN_IF_ERROR(readBatchUncached(ranges));
        m_disk.cache->put(key, m_info.etag, std::string_view(static_cast<const char*>(r.out), r.length));
        return okStatus();
    }

private:
    // Served from memory (the tail, the whole object, a read-ahead), or a
    // file read front to back in parts (verify, restore): nothing to keep
    // on disk, and those reads are always the store's bytes.
    bool inMemory(const storage::ReadRange& r) const {
        std::lock_guard lock(m_mutex);
        if (m_readInParts || (!m_tailPending && r.offset >= m_cacheOffset)) return true;
        return std::any_of(m_readAhead.begin(), m_readAhead.end(), [&](const ReadAhead& a) {
            return r.offset >= a.offset && r.offset + r.length <= a.offset + a.bytes.size();
        });
    }

    Status readBatchUncached(std::span<const storage::ReadRange> ranges) const {
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

public:
    // The whole object (an index file): fetch what is not cached in one
    // request, then every read is served from memory. Any other range up
    // to kMaxReadAheadBytes (a verify or restore part): fetched in one
    // request and kept until it has been read once.
    void adviseSequential(uint64_t offset, uint64_t n) const override {
        if (offset > m_info.size || n > m_info.size - offset || n == 0) return;
        if (offset == 0 && n == m_info.size && m_info.size <= kWholeObjectCacheBytes) {
            std::lock_guard lock(m_mutex);
            if (m_cacheOffset == 0) return keepWholeOnDisk();
            // Everything not cached yet, the tail included when it was not
            // fetched: one GET.
            std::vector<uint8_t> head(static_cast<size_t>(m_cacheOffset));
            if (!m_client->read(m_ref, 0, head, m_info.etag).ok()) return;  // a hint: reads then fetch as usual
            head.insert(head.end(), m_cache.begin(), m_cache.end());
            m_cache = std::move(head);
            m_cacheOffset = 0;
            m_tailPending = false;
            m_readAhead.clear();
            return keepWholeOnDisk();
        }
        {
            std::lock_guard lock(m_mutex);
            m_readInParts = true;
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
    // The whole object is in memory: keep it in the disk cache for the next
    // run (once). Caller holds m_mutex.
    void keepWholeOnDisk() const {
        if (!m_disk.cache || m_storedWhole || m_cacheOffset != 0 || m_cache.size() != m_info.size) return;
        m_storedWhole = true;
        m_disk.cache->put(m_disk.wholeKey, m_info.etag, asChars(m_cache));
    }

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
    DiskCacheSlot m_disk;
    mutable std::mutex m_mutex;
    mutable bool m_storedWhole = false;          // Guarded by m_mutex.
    mutable bool m_readInParts = false;          // adviseSequential of a part. Guarded by m_mutex.
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

}  // namespace

std::unique_ptr<storage::RandomAccessFile> makeRemoteFile(std::shared_ptr<ObjectClient> client, ObjectRef ref, ObjectInfo info,
                                                          std::optional<std::vector<uint8_t>> tail, DiskCacheSlot disk) {
    return std::make_unique<RemoteFile>(std::move(client), std::move(ref), std::move(info), std::move(tail), std::move(disk));
}

std::unique_ptr<storage::SequentialFile> makeRemoteSequentialFile(std::shared_ptr<ObjectClient> client, ObjectRef ref,
                                                                  ObjectInfo info) {
    return std::make_unique<RemoteSequentialFile>(std::move(client), std::move(ref), std::move(info));
}

}  // namespace ckpt::objstore
