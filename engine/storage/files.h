#pragma once
// The open-file handles a Storage backend hands out (storage.h): ranged
// reads of one object, front-to-back reads, and sequential writes. Every
// backend implements the same contracts, so the format and pipeline code
// above never learns whether bytes come from a local disk or a bucket.
//   CKPT_ASSIGN_OR_RETURN(auto file, storage.openRandomAccess(dataPath));
//   CKPT_RETURN_IF_ERROR(file->read(region.offset, n, buffer));
//   CreateOptions options;
//   options.mode = WriteMode::Direct;
//   CKPT_ASSIGN_OR_RETURN(auto out, storage.create(tempPath, options));
//   CKPT_RETURN_IF_ERROR(out->append(bytes));
//   CKPT_RETURN_IF_ERROR(out->close());   // durable (locally) / complete (on a store)

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "ckpt/status.h"
#include "storage/generation.h"

namespace ckpt::storage {

// Read-only bytes of an object that stay valid while the view lives (a
// local mmap; a backend that cannot map never makes one). Move-only.
class MappedView {
public:
    MappedView() = default;
    // 'release' runs once, when the view is destroyed or replaced.
    MappedView(const uint8_t* data, size_t size, std::function<void()> release)
        : m_data(data), m_size(size), m_release(std::move(release)) {}
    MappedView(MappedView&& other) noexcept { swap(other); }
    MappedView& operator=(MappedView&& other) noexcept {
        MappedView old(std::move(*this));
        swap(other);
        return *this;
    }
    MappedView(const MappedView&) = delete;
    MappedView& operator=(const MappedView&) = delete;
    ~MappedView() {
        if (m_release) m_release();
    }
    const uint8_t* data() const { return m_data; }
    size_t size() const { return m_size; }

private:
    void swap(MappedView& other) noexcept {
        std::swap(m_data, other.m_data);
        std::swap(m_size, other.m_size);
        std::swap(m_release, other.m_release);
    }
    const uint8_t* m_data = nullptr;
    size_t m_size = 0;
    std::function<void()> m_release;
};

// One range of a batched read: 'length' bytes at 'offset' into 'out'.
struct ReadRange {
    uint64_t offset = 0;
    size_t length = 0;
    void* out = nullptr;
};

// Ranged reads of one object as it was when opened. Safe to share between
// threads: every method is const and may run concurrently.
class RandomAccessFile {
public:
    virtual ~RandomAccessFile() = default;
    RandomAccessFile() = default;
    RandomAccessFile(const RandomAccessFile&) = delete;
    RandomAccessFile& operator=(const RandomAccessFile&) = delete;

    // The location it was opened with; every message names it.
    virtual const std::string& location() const = 0;
    // Size in bytes when opened. Reads are checked against it.
    virtual uint64_t size() const = 0;
    // The generation that was opened. A remote backend pins every read to
    // it (a replaced object fails the read with FailedPrecondition rather
    // than mixing two versions); locally an open file keeps its inode.
    virtual Generation generation() const = 0;

    // Reads exactly n bytes at 'offset' into 'out'. A range past size() is
    // DataLoss naming the location, the offset and the size, and reads
    // nothing; a file that ends early (truncated since open) is DataLoss.
    virtual Status read(uint64_t offset, size_t n, void* out) const = 0;
    // Reads every range; fails with the first failure's status (ranges
    // after it may or may not have been read). A remote backend issues the
    // ranges in parallel and coalesces neighbours into one request; the
    // default reads them one after the other.
    virtual Status readBatch(std::span<const ReadRange> ranges) const;
    // A hint that [offset, offset + n) will be read front to back soon
    // (local: posix_fadvise; remote: a larger read-ahead). Never fails.
    virtual void adviseSequential(uint64_t offset, uint64_t n) const;
    // Capability Storage::Capabilities::mappedReads: maps [offset, offset+n)
    // for one pass without copying (verify checksums page-cache pages in
    // place). Checked against the file as it is now (a file truncated since
    // open is DataLoss, not a SIGBUS later). FailedPrecondition where the
    // backend or the file system cannot map: callers then read().
    virtual Result<MappedView> map(uint64_t offset, size_t n) const;
};

// Front-to-back reads of one object (imports, fingerprints): locally
// read(2) with read-ahead, remotely one streamed GET instead of a request
// per range. One thread at a time.
class SequentialFile {
public:
    virtual ~SequentialFile() = default;
    SequentialFile() = default;
    SequentialFile(const SequentialFile&) = delete;
    SequentialFile& operator=(const SequentialFile&) = delete;

    virtual const std::string& location() const = 0;
    // Size in bytes when opened.
    virtual uint64_t size() const = 0;
    // Reads up to n bytes into 'out'; the count read, 0 only at the end.
    virtual Result<size_t> read(size_t n, void* out) = 0;
    // Skips n bytes (past the end: the end).
    virtual Status skip(uint64_t n) = 0;
};

// How a written file's bytes reach the medium.
//  - Buffered: through the page cache, 1 MiB writes, writeback started
//    every 8 MiB. For small files (indexes, state files).
//  - Direct: locally O_DIRECT from two aligned staging buffers, one
//    filling while the other is written by a background thread (large
//    saves neither wait for page-cache pages nor push the cache out); a
//    local file system that refuses O_DIRECT gets Buffered. A hint only:
//    backends without Capabilities::directWrites treat it as Buffered.
enum class WriteMode { Buffered, Direct };

struct CreateOptions {
    WriteMode mode = WriteMode::Buffered;
    // What must hold at the location when the file is finished (close()).
    // None: the file is created or truncated at once and written in place;
    // locally a reader may see it partly written (write under a temporary
    // name where that matters; a store never shows a partial object). With
    // a condition the object appears complete at close() or not at all, and
    // only if the condition holds then (locally: a temp file renamed into
    // place; on a store: a conditional PUT or multipart completion).
    WriteCondition condition;
    // Bytes the caller expects to write, 0 when unknown: a store picks a
    // single PUT or a multipart upload by it.
    uint64_t expectedSize = 0;
};

// Sequential writes of one new file or object. One thread at a time.
// Destroying a file without close() abandons it: nothing is promised about
// its bytes; a conditional or remote create leaves nothing at the location,
// an unconditional local create leaves the partial file at its name (the
// caller removes it, as it removes any temp name it chose).
class WritableFile {
public:
    virtual ~WritableFile() = default;
    WritableFile() = default;
    WritableFile(const WritableFile&) = delete;
    WritableFile& operator=(const WritableFile&) = delete;

    virtual const std::string& location() const = 0;
    // Bytes appended so far.
    virtual uint64_t position() const = 0;
    // Whether bytes bypass the page cache (false after a Direct fallback).
    virtual bool direct() const { return false; }
    // Appends n bytes. Errors name the location and the cause
    // (ResourceExhausted when the medium is full); after one the file must
    // be abandoned.
    virtual Status append(const void* data, size_t n) = 0;
    Status append(std::string_view s) { return append(s.data(), s.size()); }
    // The durability point of a file: returns when every byte appended is
    // durable (locally flushed and fsynced; remotely the upload completed)
    // and, for a conditional create, the object is at its location. A local
    // file's *name* is durable only after Storage::syncDirectory() of its
    // directory; a store's object is committed when close() returns. No
    // append after close(); a second close() does nothing.
    virtual Status close() = 0;
    // After a successful close(): the generation now at the location
    // (unknown where the backend does not say; Storage::stat() then does).
    virtual Generation generation() const { return {}; }
};

}  // namespace ckpt::storage
