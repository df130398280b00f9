#pragma once
// Minimal POSIX file access for the engine: positional reads that never
// allocate more than the caller asked for, and path helpers.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>
#include <string_view>

#include "ckpt/status.h"

namespace ckpt::platform {

// A read-only view of part of a file, unmapped when destroyed. Move-only.
class MappedView {
public:
    MappedView() = default;
    MappedView(MappedView&& other) noexcept { swap(other); }
    MappedView& operator=(MappedView&& other) noexcept {
        swap(other);
        return *this;
    }
    ~MappedView();
    const uint8_t* data() const { return m_data; }
    size_t size() const { return m_size; }

private:
    friend class RandomAccessFile;
    void swap(MappedView& other) noexcept;
    void* m_base = nullptr;  // page-aligned start of the mapping
    size_t m_length = 0;     // bytes mapped from m_base
    const uint8_t* m_data = nullptr;
    size_t m_size = 0;
};

// A read-only file for pread(). Safe to share between threads.
//   auto f = RandomAccessFile::open("/runs/ckpt-1.data-00000-of-00001");
//   if (!f) return f.status();
//   CKPT_RETURN_IF_ERROR((*f)->readExact(offset, n, buffer));
class RandomAccessFile {
public:
    // Regular files only: a directory, FIFO, socket or device is refused
    // with InvalidArgument at once (a FIFO is never waited on).
    static Result<std::unique_ptr<RandomAccessFile>> open(const std::string& path);
    ~RandomAccessFile();
    RandomAccessFile(const RandomAccessFile&) = delete;
    RandomAccessFile& operator=(const RandomAccessFile&) = delete;

    const std::string& path() const { return m_path; }
    uint64_t size() const { return m_size; }
    // Reads exactly n bytes at offset or fails with DataLoss naming the file.
    Status readExact(uint64_t offset, size_t n, void* out) const;
    // Hints the kernel that [offset, offset+n) will be read sequentially.
    void adviseSequential(uint64_t offset, uint64_t n) const;
    // Maps [offset, offset+n) for one sequential pass without copying it
    // (verify reads page-cache pages in place: faster than cat). Fails when
    // the range is not inside the file as it is now (checked again here, so
    // a file truncated since open() is an error, not a SIGBUS) or the file
    // system cannot map; callers then fall back to readExact().
    Result<MappedView> mapSequential(uint64_t offset, size_t n) const;

private:
    RandomAccessFile(std::string path, int fd, uint64_t size) : m_path(std::move(path)), m_fd(fd), m_size(size) {}
    std::string m_path;
    int m_fd;
    uint64_t m_size;
};

bool pathExists(const std::string& path);
// Whether a directory entry exists at 'path', a dangling symlink included (lstat).
bool entryExists(const std::string& path);
bool isDirectory(const std::string& path);
// The names in a directory, without "." and "..", in no particular order.
Result<std::vector<std::string>> listDirectory(const std::string& dir);
Result<uint64_t> fileSize(const std::string& path);
// Whole small file (state files, specs); refuses files over maxBytes.
Result<std::string> readSmallFile(const std::string& path, size_t maxBytes = 64u << 20);
// crc32c (unmasked) of a whole file, read in bounded chunks: an index's
// fingerprint for the scheduler and the catalog.
Result<uint32_t> fileCrc32c(const RandomAccessFile& file);

std::string baseName(std::string_view path);
std::string dirName(std::string_view path);
std::string joinPath(std::string_view dir, std::string_view name);
// The canonical form of a path that may not exist yet: absolute, symlinks
// and ".." of the part that exists resolved, the rest normalised
// lexically, no trailing slash. How destination checks compare paths.
std::string canonicalPath(const std::string& path);
// 'inner' lies strictly below directory 'outer'; both absolute and
// normalised, without a trailing slash ("/" is every other path's outer).
bool isInsideDirectory(std::string_view inner, std::string_view outer);

// Human-readable errno text for messages: "No such file or directory".
std::string errnoText(int err);
// The status for a failed call's errno, "<message>: <errno text>": NotFound
// (ENOENT, ENOTDIR), PermissionDenied (EACCES, EPERM, EROFS),
// ResourceExhausted (ENOSPC, EDQUOT, ENOMEM, EMFILE), else DataLoss.
Status statusFromErrno(int err, const std::string& message);

}  // namespace ckpt::platform
