#include "pipeline/writable_file.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <system_error>
#include <sys/stat.h>
#include <unistd.h>

#include <dirent.h>
#include <mutex>

#include "pipeline/file_ops.h"
#include "pipeline/temp_files.h"
#include "platform/file.h"

namespace ckpt::pipeline {
namespace {

// Large appends bypass the buffer; small entries are batched into 1 MiB writes.
constexpr size_t kBufferBytes = 1u << 20;
// Writeback is started every 8 MiB so the disk works while we still copy;
// close()'s fsync then waits only for the tail.
constexpr uint64_t kWritebackBytes = 8u << 20;

// Direct I/O: file offsets, sizes and buffer addresses are multiples of
// this (the largest logical block size in common use; 512-byte devices
// accept it too).
constexpr size_t kDirectAlign = 4096;
// Large enough that a write keeps the disk busy while the next one fills.
constexpr size_t kStageBytes = 8u << 20;

// Staging buffers outlive their files, up to kIdleStages of them: fresh
// memory costs a page fault per page (on a VM with free-page reporting, a
// host fault: ~3 ms per MiB measured here), and saves come in series.
constexpr size_t kIdleStages = 4;

class StagingPool {
public:
    static StagingPool& instance() {
        static StagingPool* pool = new StagingPool;  // never destroyed: files may close during exit
        return *pool;
    }
    uint8_t* acquire() {
        {
            std::lock_guard lock(m_mutex);
            if (!m_idle.empty()) {
                uint8_t* p = m_idle.back();
                m_idle.pop_back();
                return p;
            }
        }
        return static_cast<uint8_t*>(std::aligned_alloc(kDirectAlign, kStageBytes));
    }
    void release(uint8_t* p) {
        {
            std::lock_guard lock(m_mutex);
            if (m_idle.size() < kIdleStages) {
                m_idle.push_back(p);
                return;
            }
        }
        std::free(p);
    }

private:
    std::mutex m_mutex;
    std::vector<uint8_t*> m_idle;
};

// The file stops being O_DIRECT: for the tail, or when the filesystem
// refuses a direct write after accepting the open.
bool dropDirect(int fd) {
    const int flags = ::fcntl(fd, F_GETFL);
    return flags >= 0 && ::fcntl(fd, F_SETFL, flags & ~O_DIRECT) == 0;
}

Status pwriteAll(FileOps& ops, int fd, const uint8_t* p, size_t n, uint64_t offset, const std::string& path) {
    bool retried = false;
    while (n > 0) {
        const ssize_t w = ops.pwrite(fd, p, n, static_cast<off_t>(offset));
        if (w < 0) {
            if (errno == EINTR) continue;
            // EINVAL: a filesystem that refuses direct writes, or a remainder
            // left misaligned by a short write; the page cache takes it, and
            // a real error (ENOSPC, EFBIG) shows up there.
            if (errno == EINVAL && !retried && dropDirect(fd)) {
                retried = true;
                continue;
            }
            return ioError("cannot write", path, errno);
        }
        p += w;
        n -= static_cast<size_t>(w);
        offset += static_cast<uint64_t>(w);
    }
    return okStatus();
}

Status writeAll(FileOps& ops, int fd, const uint8_t* p, size_t n, const std::string& path) {
    while (n > 0) {
        const ssize_t w = ops.write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR) continue;
            return ioError("cannot write", path, errno);
        }
        p += w;
        n -= static_cast<size_t>(w);
    }
    return okStatus();
}

}  // namespace

Status ioError(std::string_view what, const std::string& path, int err) {
    std::string msg = std::string(what) + " " + path + ": " + platform::errnoText(err);
    switch (err) {
    case ENOSPC:
    case EFBIG:
    case EDQUOT: return {StatusCode::ResourceExhausted, std::move(msg)};
    case EACCES:
    case EPERM:
    case EROFS: return {StatusCode::PermissionDenied, std::move(msg)};
    case ENOENT:
    case ENOTDIR: return notFound(std::move(msg));
    default: return internalError(std::move(msg));
    }
}

Result<std::unique_ptr<WritableFile>> WritableFile::create(const std::string& path, WriteMode mode) {
    constexpr int kFlags = O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC;
    FileOps& ops = fileOps();
    if (mode == WriteMode::Direct) {
        const int fd = ops.open(path.c_str(), kFlags | O_DIRECT, 0644);
        if (fd >= 0) return std::unique_ptr<WritableFile>(new WritableFile(path, ops, fd, true));
        if (errno != EINVAL) return ioError("cannot create", path, errno);
    }
    const int fd = ops.open(path.c_str(), kFlags, 0644);
    if (fd < 0) return ioError("cannot create", path, errno);
    return std::unique_ptr<WritableFile>(new WritableFile(path, ops, fd, false));
}

void WritableFile::ReleaseStage::operator()(uint8_t* p) const { StagingPool::instance().release(p); }

WritableFile::~WritableFile() {
    if (m_inFlight.valid()) m_inFlight.wait();  // it writes from m_stage through m_fd
    if (m_fd >= 0) m_ops->close(m_fd);
}

Status WritableFile::flushBuffer() {
    if (m_buffer.empty()) return okStatus();
    Status s = writeAll(*m_ops, m_fd, m_buffer.data(), m_buffer.size(), m_path);
    m_written += m_buffer.size();
    m_buffer.clear();
    startWriteback();
    return s;
}

void WritableFile::startWriteback() {
    if (m_written - m_writebackStart < kWritebackBytes) return;
    // Only a hint: an error here shows up again at fsync.
    (void)::sync_file_range(m_fd, static_cast<off64_t>(m_writebackStart), static_cast<off64_t>(m_written - m_writebackStart),
                            SYNC_FILE_RANGE_WRITE);
    m_writebackStart = m_written;
}

Status WritableFile::append(const void* data, size_t n) {
    if (m_fd < 0) return failedPrecondition("write to closed file " + m_path);
    const auto* p = static_cast<const uint8_t*>(data);
    m_position += n;
    if (m_direct) return appendDirect(p, n);
    if (m_buffer.size() + n <= kBufferBytes && (n < kBufferBytes / 2 || !m_buffer.empty())) {
        m_buffer.insert(m_buffer.end(), p, p + n);
        return okStatus();
    }
    CKPT_RETURN_IF_ERROR(flushBuffer());
    if (n >= kBufferBytes / 2) {
        CKPT_RETURN_IF_ERROR(writeAll(*m_ops, m_fd, p, n, m_path));
        m_written += n;
        startWriteback();
        return okStatus();
    }
    m_buffer.insert(m_buffer.end(), p, p + n);
    return okStatus();
}

Status WritableFile::appendDirect(const uint8_t* p, size_t n) {
    while (n > 0) {
        auto& stage = m_stage[m_filling];
        if (!stage) {
            stage.reset(StagingPool::instance().acquire());
            if (!stage) return {StatusCode::ResourceExhausted, "no memory to stage writes to " + m_path};
        }
        const size_t take = std::min(n, kStageBytes - m_stageFill);
        std::memcpy(stage.get() + m_stageFill, p, take);
        m_stageFill += take;
        p += take;
        n -= take;
        if (m_stageFill == kStageBytes) CKPT_RETURN_IF_ERROR(submitStage(kStageBytes));
    }
    return okStatus();
}

Status WritableFile::waitInFlight() { return m_inFlight.valid() ? m_inFlight.get() : okStatus(); }

// Hands the filling buffer to a background write and switches to the other
// once its own write has finished.
Status WritableFile::submitStage(size_t bytes) {
    CKPT_RETURN_IF_ERROR(waitInFlight());
    const uint8_t* buffer = m_stage[m_filling].get();
    const uint64_t offset = m_written;
    m_written += bytes;
    auto write = [ops = m_ops, fd = m_fd, buffer, bytes, offset, path = m_path] {
        return pwriteAll(*ops, fd, buffer, bytes, offset, path);
    };
    try {
        m_inFlight = std::async(std::launch::async, write);
    } catch (const std::system_error&) {
        CKPT_RETURN_IF_ERROR(write());  // no thread to be had: write in line
    }
    m_filling ^= 1;
    m_stageFill = 0;
    return okStatus();
}

// The whole blocks left go direct; the tail under one block through the
// page cache (O_DIRECT cannot write a partial block), then fsync.
Status WritableFile::closeDirect() {
    Status s = waitInFlight();
    const size_t blocks = m_stageFill / kDirectAlign * kDirectAlign;
    if (s.isOk() && blocks > 0) {
        s = pwriteAll(*m_ops, m_fd, m_stage[m_filling].get(), blocks, m_written, m_path);
        m_written += blocks;
    }
    if (s.isOk() && m_stageFill > blocks) {
        if (!dropDirect(m_fd)) s = ioError("cannot leave direct I/O on", m_path, errno);
        if (s.isOk()) s = pwriteAll(*m_ops, m_fd, m_stage[m_filling].get() + blocks, m_stageFill - blocks, m_written, m_path);
        m_written += m_stageFill - blocks;
    }
    m_stageFill = 0;
    return s;
}

Status WritableFile::close() {
    if (m_fd < 0) return okStatus();
    Status s = m_direct ? closeDirect() : flushBuffer();
    if (s.isOk() && m_ops->fsync(m_fd) != 0) s = ioError("cannot fsync", m_path, errno);
    if (m_ops->close(m_fd) != 0 && s.isOk()) s = ioError("cannot close", m_path, errno);
    m_fd = -1;
    return s;
}

Status fsyncDirectory(const std::string& dir) {
    FileOps& ops = fileOps();
    const int fd = ops.open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);
    if (fd < 0) return ioError("cannot open directory", dir, errno);
    Status s;
    if (ops.fsync(fd) != 0 && errno != EINVAL) s = ioError("cannot fsync directory", dir, errno);
    ops.close(fd);
    return s;
}

Status renameFile(const std::string& from, const std::string& to) {
    if (fileOps().rename(from.c_str(), to.c_str()) != 0) return ioError("cannot rename " + from + " to", to, errno);
    return okStatus();
}

Status createDirectories(const std::string& dir) {
    if (dir.empty()) return okStatus();
    struct stat st {};
    if (::stat(dir.c_str(), &st) == 0) {
        if (S_ISDIR(st.st_mode)) return okStatus();
        return ioError("cannot create directory", dir, EEXIST);
    }
    const std::string parent = platform::dirName(dir);
    if (!parent.empty() && parent != dir) CKPT_RETURN_IF_ERROR(createDirectories(parent));
    // EEXIST: made by someone else in the meantime (a directory, as stat says).
    if (fileOps().mkdir(dir.c_str(), 0755) != 0 && !(errno == EEXIST && ::stat(dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode)))
        return ioError("cannot create directory", dir, errno);
    return okStatus();
}

Status removeFile(const std::string& path) {
    if (fileOps().unlink(path.c_str()) != 0 && errno != ENOENT) return ioError("cannot delete", path, errno);
    return okStatus();
}

// lstat, never stat: a symlink inside is unlinked, not followed.
Status removeTree(const std::string& dir) {
    struct stat st {};
    if (::lstat(dir.c_str(), &st) != 0) return errno == ENOENT ? okStatus() : ioError("cannot delete", dir, errno);
    if (!S_ISDIR(st.st_mode)) return removeFile(dir);
    DIR* d = ::opendir(dir.c_str());
    if (!d) return ioError("cannot list", dir, errno);
    std::vector<std::string> names;
    while (dirent* e = ::readdir(d)) {
        const std::string_view n = e->d_name;
        if (n != "." && n != "..") names.emplace_back(n);
    }
    ::closedir(d);
    for (const std::string& n : names) CKPT_RETURN_IF_ERROR(removeTree(platform::joinPath(dir, n)));
    if (fileOps().rmdir(dir.c_str()) != 0 && errno != ENOENT) return ioError("cannot delete", dir, errno);
    return okStatus();
}

Status writeFileAtomically(const std::string& path, std::string_view contents) {
    // Named for this process (pipeline/temp_files.h): a kill leaves a name
    // the next writer of the directory, or `ckpt gc`, knows to remove.
    const std::string tmp = tempName(path, kAtomicMarker);
    {
        CKPT_ASSIGN_OR_RETURN(auto file, WritableFile::create(tmp));
        Status s = file->append(contents);
        if (s.isOk()) s = file->close();
        if (!s.isOk()) {
            (void)removeFile(tmp);
            return s;
        }
    }
    Status s = renameFile(tmp, path);
    if (!s.isOk()) {
        (void)removeFile(tmp);
        return s;
    }
    return fsyncDirectory(platform::dirName(path));
}

}  // namespace ckpt::pipeline
