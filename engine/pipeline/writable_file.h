#pragma once
// POSIX file writing for the save pipeline: buffered appends, fsync of files
// and directories, atomic renames. Errors become Status values naming the
// file (ENOSPC/EFBIG -> ResourceExhausted, EACCES/EPERM/EROFS -> PermissionDenied).
// Not thread-safe: one writer per file.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ckpt/status.h"

namespace ckpt::pipeline {

class WritableFile {
public:
    // Creates or truncates 'path'.
    [[nodiscard]] static Result<std::unique_ptr<WritableFile>> create(const std::string& path);
    ~WritableFile();
    WritableFile(const WritableFile&) = delete;
    WritableFile& operator=(const WritableFile&) = delete;

    const std::string& path() const { return m_path; }
    uint64_t position() const { return m_position; }
    Status append(const void* data, size_t n);
    Status append(std::string_view s) { return append(s.data(), s.size()); }
    // Flushes, fsyncs and closes; the file is complete on disk afterwards.
    Status close();

private:
    WritableFile(std::string path, int fd) : m_path(std::move(path)), m_fd(fd) {}
    Status flushBuffer();
    void startWriteback();

    std::string m_path;
    int m_fd;
    uint64_t m_position = 0;        // bytes appended
    uint64_t m_written = 0;         // bytes handed to write()
    uint64_t m_writebackStart = 0;  // first byte not yet given to sync_file_range
    std::vector<uint8_t> m_buffer;
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

} // namespace ckpt::pipeline
