// Local file handles: pread and mmap for ranged reads, read(2) for
// sequential ones, buffered or O_DIRECT double-buffered writes (moved here
// from platform/file.cpp and pipeline/writable_file.cpp unchanged).

#include "storage/local_files.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <future>
#include <mutex>
#include <system_error>
#include <vector>

#include "platform/file.h"
#include "storage/local_storage.h"

namespace ckpt::storage::local {
namespace {

Status readError(const std::string& what, const std::string& path, int err) {
    return platform::statusFromErrno(err, what + " " + path);
}

// Opens 'path' for reading if it is a regular file; the fd and its stat.
// O_NONBLOCK: opening a FIFO that has no writer would otherwise block
// forever. It changes nothing for regular files, the only kind read.
Result<int> openRegular(const std::string& path, struct stat& st) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) return readError("cannot open", path, errno);
    if (::fstat(fd, &st) != 0) {
        const int err = errno;
        ::close(fd);
        return readError("cannot stat", path, err);
    }
    if (S_ISDIR(st.st_mode)) {
        ::close(fd);
        return invalidArgument(path + " is a directory, expected a file");
    }
    if (!S_ISREG(st.st_mode)) {
        ::close(fd);
        const char* kind = S_ISFIFO(st.st_mode) ? "a FIFO" : S_ISSOCK(st.st_mode) ? "a socket" : "a device";
        return invalidArgument(path + " is " + kind + ", expected a regular file");
    }
    return fd;
}

class LocalRandomAccessFile final : public RandomAccessFile {
public:
    LocalRandomAccessFile(std::string path, int fd, const struct stat& st)
        : m_path(std::move(path)), m_fd(fd), m_size(static_cast<uint64_t>(st.st_size)), m_generation(generationOf(st)) {}
    ~LocalRandomAccessFile() override { ::close(m_fd); }

    const std::string& location() const override { return m_path; }
    uint64_t size() const override { return m_size; }
    Generation generation() const override { return m_generation; }

    Status read(uint64_t offset, size_t n, void* out) const override {
        if (offset > m_size || n > m_size - offset)
            return dataLoss("read of " + std::to_string(n) + " bytes at offset " + std::to_string(offset) +
                            " is past the end of " + m_path + " (" + std::to_string(m_size) + " bytes)");
        auto* dst = static_cast<char*>(out);
        size_t done = 0;
        while (done < n) {
            const ssize_t got = ::pread(m_fd, dst + done, n - done, static_cast<off_t>(offset + done));
            if (got < 0) {
                if (errno == EINTR) continue;
                return readError("read failed on", m_path, errno);
            }
            if (got == 0) return dataLoss(m_path + " ended early at byte " + std::to_string(offset + done));
            done += static_cast<size_t>(got);
        }
        return okStatus();
    }

    void adviseSequential(uint64_t offset, uint64_t n) const override {
        ::posix_fadvise(m_fd, static_cast<off_t>(offset), static_cast<off_t>(n), POSIX_FADV_SEQUENTIAL);
    }

    Result<MappedView> map(uint64_t offset, size_t n) const override {
        struct stat st {};
        if (::fstat(m_fd, &st) != 0) return readError("cannot stat", m_path, errno);
        const auto current = static_cast<uint64_t>(st.st_size);
        if (offset > current || n > current - offset)
            return dataLoss("mapping of " + std::to_string(n) + " bytes at offset " + std::to_string(offset) +
                            " is past the end of " + m_path + " (" + std::to_string(current) + " bytes)");
        if (n == 0) return MappedView();
        static const uint64_t kPage = static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
        const uint64_t start = offset - offset % kPage;
        const size_t length = static_cast<size_t>(offset - start) + n;
        void* base = ::mmap(nullptr, length, PROT_READ, MAP_SHARED | MAP_POPULATE, m_fd, static_cast<off_t>(start));
        if (base == MAP_FAILED) return readError("cannot map", m_path, errno);
        ::madvise(base, length, MADV_SEQUENTIAL);
        return MappedView(static_cast<const uint8_t*>(base) + (offset - start), n, [base, length] { ::munmap(base, length); });
    }

private:
    std::string m_path;
    int m_fd;
    uint64_t m_size;
    Generation m_generation;
};

class LocalSequentialFile final : public SequentialFile {
public:
    LocalSequentialFile(std::string path, int fd, uint64_t size) : m_path(std::move(path)), m_fd(fd), m_size(size) {
        ::posix_fadvise(m_fd, 0, 0, POSIX_FADV_SEQUENTIAL);
    }
    ~LocalSequentialFile() override { ::close(m_fd); }
    const std::string& location() const override { return m_path; }
    uint64_t size() const override { return m_size; }
    Result<size_t> read(size_t n, void* out) override {
        for (;;) {
            const ssize_t got = ::read(m_fd, out, n);
            if (got >= 0) return static_cast<size_t>(got);
            if (errno != EINTR) return readError("read failed on", m_path, errno);
        }
    }
    Status skip(uint64_t n) override {
        if (::lseek(m_fd, static_cast<off_t>(n), SEEK_CUR) < 0) return readError("cannot seek in", m_path, errno);
        return okStatus();
    }

private:
    std::string m_path;
    int m_fd;
    uint64_t m_size;
};

// ---- writes ------------------------------------------------------------------

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
    std::vector<uint8_t*> m_idle;  // Guarded by m_mutex.
};

// The file stops being O_DIRECT: for the tail, or when the filesystem
// refuses a direct write after accepting the open.
bool dropDirect(int fd) {
    const int flags = ::fcntl(fd, F_GETFL);
    return flags >= 0 && ::fcntl(fd, F_SETFL, flags & ~O_DIRECT) == 0;
}

Status pwriteAll(int fd, const uint8_t* p, size_t n, uint64_t offset, const std::string& path) {
    bool retried = false;
    while (n > 0) {
        const ssize_t w = ::pwrite(fd, p, n, static_cast<off_t>(offset));
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

Status writeAll(int fd, const uint8_t* p, size_t n, const std::string& path) {
    while (n > 0) {
        const ssize_t w = ::write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR) continue;
            return ioError("cannot write", path, errno);
        }
        p += w;
        n -= static_cast<size_t>(w);
    }
    return okStatus();
}

// Not thread-safe: one writer per file (files.h).
class LocalWritableFile final : public WritableFile {
public:
    LocalWritableFile(std::string path, int fd, bool direct) : m_path(std::move(path)), m_fd(fd), m_direct(direct) {}
    ~LocalWritableFile() override {
        if (m_inFlight.valid()) m_inFlight.wait();  // it writes from m_stage through m_fd
        if (m_fd >= 0) ::close(m_fd);
    }

    const std::string& location() const override { return m_path; }
    uint64_t position() const override { return m_position; }
    bool direct() const override { return m_direct; }
    Generation generation() const override { return m_generation; }
    using WritableFile::append;

    Status append(const void* data, size_t n) override {
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
            CKPT_RETURN_IF_ERROR(writeAll(m_fd, p, n, m_path));
            m_written += n;
            startWriteback();
            return okStatus();
        }
        m_buffer.insert(m_buffer.end(), p, p + n);
        return okStatus();
    }

    Status close() override {
        if (m_fd < 0) return okStatus();
        Status s = m_direct ? closeDirect() : flushBuffer();
        if (s.isOk() && ::fsync(m_fd) != 0) s = ioError("cannot fsync", m_path, errno);
        struct stat st {};
        if (s.isOk() && ::fstat(m_fd, &st) == 0) m_generation = generationOf(st);
        if (::close(m_fd) != 0 && s.isOk()) s = ioError("cannot close", m_path, errno);
        m_fd = -1;
        return s;
    }

private:
    Status flushBuffer() {
        if (m_buffer.empty()) return okStatus();
        Status s = writeAll(m_fd, m_buffer.data(), m_buffer.size(), m_path);
        m_written += m_buffer.size();
        m_buffer.clear();
        startWriteback();
        return s;
    }

    void startWriteback() {
        if (m_written - m_writebackStart < kWritebackBytes) return;
        // Only a hint: an error here shows up again at fsync.
        (void)::sync_file_range(m_fd, static_cast<off64_t>(m_writebackStart), static_cast<off64_t>(m_written - m_writebackStart),
                                SYNC_FILE_RANGE_WRITE);
        m_writebackStart = m_written;
    }

    Status appendDirect(const uint8_t* p, size_t n) {
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

    Status waitInFlight() { return m_inFlight.valid() ? m_inFlight.get() : okStatus(); }

    // Hands the filling buffer to a background write and switches to the
    // other once its own write has finished. (The one thread outside
    // platform/parallel.h: it overlaps a write with the next copy, which
    // runWorkers' fork-join shape cannot express.)
    Status submitStage(size_t bytes) {
        CKPT_RETURN_IF_ERROR(waitInFlight());
        const uint8_t* buffer = m_stage[m_filling].get();
        const uint64_t offset = m_written;
        m_written += bytes;
        auto write = [fd = m_fd, buffer, bytes, offset, path = m_path] { return pwriteAll(fd, buffer, bytes, offset, path); };
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
    Status closeDirect() {
        Status s = waitInFlight();
        const size_t blocks = m_stageFill / kDirectAlign * kDirectAlign;
        if (s.isOk() && blocks > 0) {
            s = pwriteAll(m_fd, m_stage[m_filling].get(), blocks, m_written, m_path);
            m_written += blocks;
        }
        if (s.isOk() && m_stageFill > blocks) {
            if (!dropDirect(m_fd)) s = ioError("cannot leave direct I/O on", m_path, errno);
            if (s.isOk()) s = pwriteAll(m_fd, m_stage[m_filling].get() + blocks, m_stageFill - blocks, m_written, m_path);
            m_written += m_stageFill - blocks;
        }
        m_stageFill = 0;
        return s;
    }

    std::string m_path;
    int m_fd;
    bool m_direct;
    Generation m_generation;        // after close()
    uint64_t m_position = 0;        // bytes appended
    uint64_t m_written = 0;         // bytes handed to write()
    uint64_t m_writebackStart = 0;  // first byte not yet given to sync_file_range
    std::vector<uint8_t> m_buffer;

    struct ReleaseStage {
        void operator()(uint8_t* p) const { StagingPool::instance().release(p); }
    };
    std::unique_ptr<uint8_t, ReleaseStage> m_stage[2];  // Direct: staging buffers
    int m_filling = 0;                                  // the one being filled
    size_t m_stageFill = 0;
    std::future<Status> m_inFlight;  // the other one's write
};

}  // namespace

Generation generationOf(const struct stat& st) {
    char token[128];
    std::snprintf(token, sizeof token, "%llx:%llx:%llx:%lld.%09ld:%lld.%09ld", static_cast<unsigned long long>(st.st_dev),
                  static_cast<unsigned long long>(st.st_ino), static_cast<unsigned long long>(st.st_size),
                  static_cast<long long>(st.st_mtim.tv_sec), st.st_mtim.tv_nsec, static_cast<long long>(st.st_ctim.tv_sec),
                  st.st_ctim.tv_nsec);
    return Generation::of(token);
}

Result<std::unique_ptr<RandomAccessFile>> openRandomAccess(const std::string& path) {
    struct stat st {};
    CKPT_ASSIGN_OR_RETURN(const int fd, openRegular(path, st));
    return std::unique_ptr<RandomAccessFile>(std::make_unique<LocalRandomAccessFile>(path, fd, st));
}

Result<std::unique_ptr<SequentialFile>> openSequential(const std::string& path) {
    struct stat st {};
    CKPT_ASSIGN_OR_RETURN(const int fd, openRegular(path, st));
    // Reads block on a regular file; O_NONBLOCK only mattered for the open.
    const int flags = ::fcntl(fd, F_GETFL);
    if (flags >= 0) (void)::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
    return std::unique_ptr<SequentialFile>(std::make_unique<LocalSequentialFile>(path, fd, static_cast<uint64_t>(st.st_size)));
}

Result<std::unique_ptr<WritableFile>> createFile(const std::string& path, WriteMode mode) {
    constexpr int kFlags = O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC;
    if (mode == WriteMode::Direct) {
        const int fd = ::open(path.c_str(), kFlags | O_DIRECT, 0644);
        if (fd >= 0) return std::unique_ptr<WritableFile>(std::make_unique<LocalWritableFile>(path, fd, true));
        if (errno != EINVAL) return ioError("cannot create", path, errno);
    }
    const int fd = ::open(path.c_str(), kFlags, 0644);
    if (fd < 0) return ioError("cannot create", path, errno);
    return std::unique_ptr<WritableFile>(std::make_unique<LocalWritableFile>(path, fd, false));
}

}  // namespace ckpt::storage::local
