#pragma once
// A fault-injecting storage for tests (a storage::StorageWrapper around
// the local backend, installed for plain paths with ScopedStorage): counts
// every write-side operation the engine makes through the storage layer,
// fails a chosen one with an errno, or "loses power" right after it, and
// keeps a model of what is durable so that the tree under a root can be
// rewritten to what a power loss would leave. Reads pass through.
//
// The operations, as the storage interface names them: Create (create()),
// Write (each append()), Sync (a file's close(), its durability point, or
// syncFile()), SyncDir (syncDirectory()), Rename, Remove (remove() and
// removeDirectory(), so removeAll() counts each entry), Mkdir (each
// directory createDirectories() makes). Composite operations (writeObject)
// run on these, so each of their steps is an operation too.
//
// The durability model (conservative, in the spirit of ext4 data=ordered
// without its lucky ordering):
//  - A file's bytes are durable as they were at its last fsync (its
//    close()); a file created through this layer has no durable bytes
//    until then (a crash leaves it empty). Files that existed at markAllDurable() keep the
//    bytes they had then.
//  - A directory's entries (creates, renames into it, unlinks, mkdirs) are
//    durable as they were at its last fsync; a directory made through this
//    layer is empty until fsynced. A rename counts in the directory that
//    receives the name (the one whose fsync makes it durable).
//  - Nothing else is: un-fsynced data is dropped, and un-fsynced entries
//    are undone (CrashImage::UndoEntries) or, the other way a crash can
//    fall, all kept (CrashImage::KeepEntries: the journal wrote the
//    directories out but no file data). So a missing fsync of a file, or
//    of the directory before or after a rename, shows up as a lost or empty
//    file after the "crash".
// Inodes identify files, so a rename keeps the bytes made durable under
// the old name. Symlinks are kept as their target text.

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "storage/dispatch.h"
#include "storage/storage_wrapper.h"

namespace ckpt::testing {

enum class CrashImage { UndoEntries, KeepEntries };

enum class FileOpKind { Create, Write, Sync, SyncDir, Rename, Remove, Mkdir };
std::string_view fileOpKindName(FileOpKind kind);

struct FileOpRecord {
    FileOpKind kind;
    std::string path;  // the file or directory it acted on (rename: the destination)
};

struct FileFault {
    // 1-based index of the operation, counted among those of 'kind' when
    // set, else among all write-side operations. 0: no fault.
    int64_t at = 0;
    std::optional<FileOpKind> kind;
    // Fail it with this errno without doing it (0: do it).
    int error = 0;
    // A failing fsync also loses the file's unsynced bytes (Linux marks the
    // dirty pages clean after a failed writeback): its contents fall back
    // to its last durable state.
    bool dropUnsynced = false;
    // Do it, then lose power: every later write-side operation fails with
    // EIO and changes nothing, until restoreDurableImage().
    bool powerLoss = false;
};

class FaultStorage : public storage::StorageWrapper {
public:
    // Models durability for the tree under 'root' (an existing directory);
    // forwards to a plain local backend.
    explicit FaultStorage(std::string root);

    void arm(const FileFault& fault);
    // Everything under the root counts as durable as it is now (as after sync(2)).
    void markAllDurable();
    std::vector<FileOpRecord> operations() const;
    bool faultHit() const;
    bool powerLost() const;
    // Rewrites the tree under the root to what survives a power loss now.
    // Empty on success, else what went wrong.
    std::string restoreDurableImage(CrashImage image = CrashImage::UndoEntries);

    Result<std::unique_ptr<storage::WritableFile>> create(const std::string& location,
                                                          const storage::CreateOptions& options) override;
    Status remove(const std::string& location) override;
    Status syncDirectory(const std::string& directory) override;
    Status syncFile(const std::string& location) override;
    Status rename(const std::string& from, const std::string& to, const storage::WriteCondition& condition) override;
    Status createDirectories(const std::string& directory) override;
    Status removeDirectory(const std::string& directory) override;

private:
    friend class FaultWritableFile;
    struct Node {
        ino_t ino = 0;
        mode_t type = 0;     // S_IFREG, S_IFDIR or S_IFLNK
        std::string target;  // symlinks
    };
    using DirImage = std::map<std::string, Node>;

    // Counts the operation; returns the errno it must fail with (0: go on).
    // Call with m_mutex held.
    int begin(FileOpKind kind, const std::string& path);
    // After the operation: power goes if this was the power-loss point.
    void end();
    // A file's close(): counted as Sync; on success its bytes are durable.
    Status syncClosing(storage::WritableFile& file, std::unique_ptr<storage::WritableFile>& inner);
    void recordDurableFile(const std::string& path);
    void dropUnsynced(const std::string& path);
    DirImage scanDirectory(int dirFd) const;
    // Records the directories under 'path' into 'dirs' and, with 'bytes', the files' contents.
    void recordTree(const std::string& path, std::map<ino_t, DirImage>& dirs, std::map<ino_t, std::string>* bytes);
    std::string writeImage(const std::string& path, const std::map<ino_t, DirImage>& dirs, ino_t dirIno, int depth) const;

    const std::string m_root;
    mutable std::recursive_mutex m_mutex;
    FileFault m_fault;
    int64_t m_count = 0;
    std::map<FileOpKind, int64_t> m_kindCount;
    std::vector<FileOpRecord> m_ops;
    bool m_hit = false;
    bool m_powerLost = false;
    bool m_losePowerAfter = false;  // the current operation is the power-loss point
    ino_t m_rootIno = 0;
    std::map<ino_t, std::string> m_durableBytes;
    std::map<ino_t, DirImage> m_durableDirs;
};

// Serves plain paths with 'storage' for its lifetime.
class ScopedStorage {
public:
    explicit ScopedStorage(storage::Storage& storage)
        : m_previous(storage::installLocalStorage(std::shared_ptr<storage::Storage>(&storage, [](storage::Storage*) {}))) {}
    ~ScopedStorage() { storage::installLocalStorage(m_previous); }
    ScopedStorage(const ScopedStorage&) = delete;
    ScopedStorage& operator=(const ScopedStorage&) = delete;

private:
    std::shared_ptr<storage::Storage> m_previous;
};

}  // namespace ckpt::testing
