#pragma once
// POSIX file writing for the save pipeline: buffered appends, fsync of files
// and directories, atomic renames. Every write-side syscall goes through
// pipeline/file_ops.h, so tests can fail or "lose power" at any of them. Errors become Status values naming the
// file (ENOSPC/EFBIG -> ResourceExhausted, EACCES/EPERM/EROFS -> PermissionDenied).
// Not thread-safe: one writer per file.

#include <cstddef>
#include <cstdint>
#include <future>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ckpt/status.h"

namespace ckpt::pipeline {

class FileOps;

// How a file's bytes reach the disk.
//  - Buffered: through the page cache, 1 MiB writes, writeback started
//    every 8 MiB. For small files (indexes, state files).
//  - Direct: O_DIRECT from two aligned staging buffers, one filling while
//    the other is written by a background thread. For data files: a large
//    save does not wait for page-cache pages to be found and filled (the
//    slow part of a buffered 2 GiB write, and what swings most from run to
//    run), nor push the page cache out. Falls back to Buffered where the
//    filesystem refuses O_DIRECT (tmpfs, some network filesystems).
enum class WriteMode { Buffered, Direct };

class WritableFile {
public:
    // Creates or truncates 'path'.
    [[nodiscard]] static Result<std::unique_ptr<WritableFile>> create(const std::string& path,
                                                                      WriteMode mode = WriteMode::Buffered);
    ~WritableFile();
    WritableFile(const WritableFile&) = delete;
    WritableFile& operator=(const WritableFile&) = delete;

    const std::string& path() const { return m_path; }
    uint64_t position() const { return m_position; }
    // Whether bytes go through O_DIRECT (false after a fallback).
    bool direct() const { return m_direct; }
    Status append(const void* data, size_t n);
    Status append(std::string_view s) { return append(s.data(), s.size()); }
    // Flushes, fsyncs and closes; the file is complete on disk afterwards.
    Status close();

private:
    WritableFile(std::string path, FileOps& ops, int fd, bool direct)
        : m_path(std::move(path)), m_ops(&ops), m_fd(fd), m_direct(direct) {}
    Status flushBuffer();
    void startWriteback();
    Status appendDirect(const uint8_t* p, size_t n);
    Status submitStage(size_t bytes);
    Status waitInFlight();
    Status closeDirect();

    std::string m_path;
    FileOps* m_ops;  // the one it was opened with (pipeline/file_ops.h)
    int m_fd;
    bool m_direct;
    uint64_t m_position = 0;        // bytes appended
    uint64_t m_written = 0;         // bytes handed to write()
    uint64_t m_writebackStart = 0;  // first byte not yet given to sync_file_range
    std::vector<uint8_t> m_buffer;

    struct ReleaseStage {
        void operator()(uint8_t* p) const;
    };
    std::unique_ptr<uint8_t, ReleaseStage> m_stage[2];  // Direct: staging buffers
    int m_filling = 0;                                  // the one being filled
    size_t m_stageFill = 0;
    std::future<Status> m_inFlight;  // the other one's write
};

// Status for a failed syscall on 'path' ("cannot write /a/b: No space left on device").
Status ioError(std::string_view what, const std::string& path, int err);

Status fsyncDirectory(const std::string& dir);
Status renameFile(const std::string& from, const std::string& to);
// mkdir -p; existing directories are fine.
Status createDirectories(const std::string& dir);
// Removes a regular file or symlink (never what it points to); missing is fine.
Status removeFile(const std::string& path);
// Removes a directory tree without following symlinks; missing is fine.
Status removeTree(const std::string& dir);
// Whole file written to a temp name in the same directory, fsynced, renamed.
Status writeFileAtomically(const std::string& path, std::string_view contents);

}  // namespace ckpt::pipeline
