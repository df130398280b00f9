#pragma once
// The one interface through which the engine reads, writes, lists, commits
// and deletes checkpoint bytes (LevelDB's Env, with TensorStore's
// generations and Arrow's URI dispatch). A backend serves one kind of
// location: LocalStorage plain paths, an object-store backend its
// scheme's URLs ("s3://bucket/run/ckpt-3.index"); dispatch.h picks the
// backend for a location. Wrappers (storage_wrapper.h) forward every call
// and add behaviour: the fault-injecting one in tests fails or "loses
// power" at any write-side operation.
//
// Backends are thread-safe: any method may be called from any thread at
// once. Retries, credentials and request counting live inside a backend.
//
// Durability points, the same words for every backend:
//  - WritableFile::close(): the file's bytes are durable (locally fsynced;
//    on a store the upload completed: the object is committed).
//  - syncDirectory(dir): the entries of 'dir' (creates, renames, removals)
//    are durable. Locally an fsync of the directory; on a store a completed
//    write is already listed, so nothing.
//  - writeObject(): the whole small object is durable, name included.
//
// Writing a checkpoint (docs/architecture.md, "Storage"): data files first,
// then the index as the commit point, created only if absent (locally a
// temp name renamed without replacing, then syncDirectory; on a store a PUT
// with If-None-Match: *), then the state file by compare-and-swap on its
// generation (writeObject with WriteCondition::ifMatch).
//
// Local-only capabilities (rename, real directories, mapped reads, O_DIRECT,
// paths that other programs can open) are listed in capabilities(); a
// caller that needs one asks first, and the call fails with Unimplemented
// on a backend without it.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "ckpt/status.h"
#include "storage/files.h"
#include "storage/generation.h"

namespace ckpt::storage {

enum class ObjectKind { File, Directory, Symlink, Other };

struct ObjectInfo {
    ObjectKind kind = ObjectKind::File;
    uint64_t size = 0;  // files; 0 otherwise
    Generation generation;
    int64_t modifiedNs = 0;  // last modification, ns since the Unix epoch (0: unknown)
};

// One entry of a listing: a name directly inside the listed directory.
struct ListEntry {
    std::string name;  // no '/', never "." or ".."
    ObjectKind kind = ObjectKind::File;
    uint64_t size = 0;       // files; 0 where the listing does not say
    int64_t modifiedNs = 0;  // 0 where the listing does not say
};

struct ListOptions {
    // Only names starting with this ("ckpt-3." lists one checkpoint's
    // files; a store sends it as the request's prefix).
    std::string namePrefix;
    // Report what a symlink points to (kind, size, time), as stat() would;
    // a dangling link stays a Symlink. Stores have no symlinks.
    bool followSymlinks = false;
};

// Called once per entry, on the caller's thread, a page at a time; return
// false to stop the listing early (list() then returns OK).
using ListVisitor = std::function<bool(const ListEntry&)>;

struct Capabilities {
    bool rename = false;        // rename() is one atomic step
    bool directories = false;   // directories exist on their own (may be empty)
    bool mappedReads = false;   // RandomAccessFile::map()
    bool directWrites = false;  // WriteMode::Direct bypasses the page cache
    bool localPaths = false;    // locations are paths that other programs (SQLite, libzip) can open
};

// A write a store began and that was neither finished nor abandoned (a
// multipart upload of a process that was killed): it holds storage, unseen
// by listings, until it is aborted.
struct PendingWrite {
    std::string location;   // the object it would have created
    std::string id;         // the store's name for it (an UploadId)
    int64_t startedNs = 0;  // when it began, ns since the Unix epoch (0: unknown)
};
using PendingWriteVisitor = std::function<bool(const PendingWrite&)>;

// A small object read whole, with the generation that was read.
struct ObjectContents {
    std::string bytes;
    Generation generation;
};

class Storage {
public:
    virtual ~Storage() = default;
    Storage() = default;
    Storage(const Storage&) = delete;
    Storage& operator=(const Storage&) = delete;

    // "" for local paths, else the URL scheme it serves ("s3").
    virtual std::string_view scheme() const = 0;
    virtual Capabilities capabilities() const = 0;

    // ---- reads ----------------------------------------------------------
    // Opens a file for ranged reads. NotFound when absent; InvalidArgument
    // for a directory, FIFO, socket or device (never waited on).
    virtual Result<std::unique_ptr<RandomAccessFile>> openRandomAccess(const std::string& location) = 0;
    // Opens a file to read front to back; the same refusals. The default
    // reads through openRandomAccess() in 1 MiB ranges.
    virtual Result<std::unique_ptr<SequentialFile>> openSequential(const std::string& location);
    // A whole small file (state file, metadata, spec) and its generation.
    // NotFound when absent; InvalidArgument naming the file and both sizes
    // when it is over maxBytes (nothing is allocated for it then).
    virtual Result<ObjectContents> readObject(const std::string& location, size_t maxBytes);
    // What is at 'location': nullopt when nothing is (never NotFound).
    // Symlinks are reported as Symlink, not followed, unless 'follow'.
    // A store reports a prefix with objects under it as a Directory.
    virtual Result<std::optional<ObjectInfo>> stat(const std::string& location, bool follow = true) = 0;
    // Every entry directly inside 'directory' (one level, any order), paged:
    // a large store directory is never held in memory whole. A local
    // directory that does not exist is NotFound; on a store, where
    // directories are prefixes, it is an empty listing.
    virtual Status list(const std::string& directory, const ListOptions& options, const ListVisitor& visit) = 0;

    // ---- writes ---------------------------------------------------------
    // A new file at 'location' for sequential writes (files.h,
    // CreateOptions: in place, or complete-or-nothing under a condition).
    // The parent directory must exist where capabilities().directories.
    virtual Result<std::unique_ptr<WritableFile>> create(const std::string& location, const CreateOptions& options) = 0;
    // Replaces or creates a whole small object atomically (readers see the
    // old bytes or the new, never a mix) and durably, name included, if
    // 'condition' holds; returns the new generation. The default: create()
    // a temp name beside it, close(), rename() under the condition,
    // syncDirectory() (where capabilities().rename), else create() at the
    // location with the condition.
    virtual Result<Generation> writeObject(const std::string& location, std::string_view bytes, const WriteCondition& condition);
    // Removes one file or object; a symlink itself, never its target.
    // Nothing there is fine (deletes are idempotent, as on a store). A
    // directory is InvalidArgument (removeDirectory()).
    virtual Status remove(const std::string& location) = 0;

    // ---- durability -----------------------------------------------------
    // See "Durability points" above. A directory that does not exist is
    // NotFound locally.
    virtual Status syncDirectory(const std::string& directory) = 0;
    // Makes the bytes of an existing file durable: for files another
    // library wrote through a local path (libzip's .npz). Locally an fsync;
    // on a store, where an object is committed when its upload completes,
    // nothing (the default).
    virtual Status syncFile(const std::string& location);

    // ---- local-only capabilities ----------------------------------------
    // capabilities().rename: moves 'from' to 'to' in one step (same file
    // system) if 'condition' holds for 'to' (None replaces; IfAbsent never
    // replaces; IfMatch replaces only that generation, the check and the
    // move serialised against other conditional writers of the directory).
    // Durable after syncDirectory() of both directories.
    virtual Status rename(const std::string& from, const std::string& to, const WriteCondition& condition);
    // Creates 'directory' and its missing parents; existing ones are fine,
    // an existing non-directory is AlreadyExists. Without
    // capabilities().directories: OK, nothing to do (names imply them).
    virtual Status createDirectories(const std::string& directory);
    // Removes an empty directory; nothing there is fine. Without
    // capabilities().directories: OK, nothing to do (a store deletes the
    // folder marker "dir/" some servers keep, so nothing stays listed).
    virtual Status removeDirectory(const std::string& directory);

    // ---- writes left pending (garbage collection) ------------------------
    // Every pending write at or below 'directory', oldest first where the
    // store says; the visitor returns false to stop. Default: none (a local
    // file is on disk as soon as it is written; ckpt gc finds it by name).
    virtual Status listPendingWrites(const std::string& directory, const PendingWriteVisitor& visit);
    // Discards a pending write and what it had stored; one already gone is
    // fine. Default: OK, nothing to do.
    virtual Status abortPendingWrite(const PendingWrite& write);
};

// ---- built on the interface (any backend, wrappers see every step) --------

// Removes 'location' and everything below it without following symlinks
// (on a store: every object under the prefix); nothing there is fine.
// Depth is bounded (64 levels): deeper is InvalidArgument, removing nothing more.
Status removeAll(Storage& storage, const std::string& location);
// crc32c (unmasked) of a whole file read front to back in bounded chunks:
// an index's fingerprint for the scheduler and the catalog.
Result<uint32_t> fileCrc32c(const RandomAccessFile& file);

}  // namespace ckpt::storage
