#include "fault_file_ops.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace ckpt::testing {
namespace {

std::string procPath(int fd) { return "/proc/self/fd/" + std::to_string(fd); }

bool writeWhole(const std::string& path, const std::string& bytes, int flags) {
    const int fd = ::open(path.c_str(), flags | O_WRONLY | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return false;
    size_t done = 0;
    while (done < bytes.size()) {
        const ssize_t w = ::write(fd, bytes.data() + done, bytes.size() - done);
        if (w <= 0) break;
        done += static_cast<size_t>(w);
    }
    ::close(fd);
    return done == bytes.size();
}

}  // namespace

std::string_view fileOpKindName(FileOpKind kind) {
    switch (kind) {
    case FileOpKind::Create: return "create";
    case FileOpKind::Write: return "write";
    case FileOpKind::Sync: return "fsync";
    case FileOpKind::SyncDir: return "fsync-dir";
    case FileOpKind::Rename: return "rename";
    case FileOpKind::Remove: return "remove";
    case FileOpKind::Mkdir: return "mkdir";
    }
    return "?";
}

FaultFileOps::FaultFileOps(std::string root) : m_root(std::move(root)) { markAllDurable(); }

void FaultFileOps::arm(const FileFault& fault) {
    std::lock_guard lock(m_mutex);
    m_fault = fault;
    m_count = 0;
    m_kindCount.clear();
    m_ops.clear();
    m_hit = false;
}

std::vector<FileOpRecord> FaultFileOps::operations() const {
    std::lock_guard lock(m_mutex);
    return m_ops;
}

bool FaultFileOps::faultHit() const {
    std::lock_guard lock(m_mutex);
    return m_hit;
}

bool FaultFileOps::powerLost() const {
    std::lock_guard lock(m_mutex);
    return m_powerLost;
}

int FaultFileOps::begin(FileOpKind kind, const std::string& path, int) {
    ++m_count;
    const int64_t kindIndex = ++m_kindCount[kind];
    m_ops.push_back({kind, path});
    if (m_powerLost) return EIO;
    const int64_t index = m_fault.kind ? (*m_fault.kind == kind ? kindIndex : 0) : m_count;
    if (m_fault.at == 0 || index != m_fault.at) return 0;
    m_hit = true;
    if (m_fault.powerLoss) {
        m_losePowerAfter = true;
        return 0;
    }
    return m_fault.error;
}

void FaultFileOps::end(int) {
    if (m_losePowerAfter) {
        m_losePowerAfter = false;
        m_powerLost = true;
    }
}

int FaultFileOps::open(const char* path, int flags, mode_t mode) {
    std::lock_guard lock(m_mutex);
    if ((flags & (O_WRONLY | O_RDWR | O_CREAT | O_TRUNC)) == 0) {
        const int fd = FileOps::open(path, flags, mode);
        if (fd >= 0) m_fdPath[fd] = path;
        return fd;
    }
    if (const int err = begin(FileOpKind::Create, path)) {
        errno = err;
        return -1;
    }
    struct stat st {};
    const bool existed = ::lstat(path, &st) == 0;
    const int fd = FileOps::open(path, flags, mode);
    const int saved = errno;
    if (fd >= 0) {
        m_fdPath[fd] = path;
        // A new inode (numbers are reused) has no durable bytes yet.
        if (!existed && ::fstat(fd, &st) == 0) m_durableBytes[st.st_ino].clear();
    }
    end(fd);
    errno = saved;
    return fd;
}

ssize_t FaultFileOps::write(int fd, const void* data, size_t n) {
    std::lock_guard lock(m_mutex);
    if (const int err = begin(FileOpKind::Write, m_fdPath[fd])) {
        errno = err;
        return -1;
    }
    const ssize_t r = FileOps::write(fd, data, n);
    const int saved = errno;
    end(0);
    errno = saved;
    return r;
}

ssize_t FaultFileOps::pwrite(int fd, const void* data, size_t n, off_t offset) {
    std::lock_guard lock(m_mutex);
    if (const int err = begin(FileOpKind::Write, m_fdPath[fd])) {
        errno = err;
        return -1;
    }
    const ssize_t r = FileOps::pwrite(fd, data, n, offset);
    const int saved = errno;
    end(0);
    errno = saved;
    return r;
}

int FaultFileOps::fsync(int fd) {
    std::lock_guard lock(m_mutex);
    struct stat st {};
    if (::fstat(fd, &st) != 0) return -1;
    const bool dir = S_ISDIR(st.st_mode);
    if (const int err = begin(dir ? FileOpKind::SyncDir : FileOpKind::Sync, m_fdPath[fd])) {
        if (!dir && !m_powerLost && m_fault.dropUnsynced) {
            const auto it = m_durableBytes.find(st.st_ino);
            (void)writeWhole(procPath(fd), it == m_durableBytes.end() ? std::string() : it->second, 0);
        }
        errno = err;
        return -1;
    }
    const int r = FileOps::fsync(fd);
    const int saved = errno;
    if (r == 0) {
        if (dir) m_durableDirs[st.st_ino] = scanDirectory(fd);
        else m_durableBytes[st.st_ino] = fileBytes(fd);
    }
    end(r);
    errno = saved;
    return r;
}

int FaultFileOps::close(int fd) {
    std::lock_guard lock(m_mutex);
    m_fdPath.erase(fd);
    return FileOps::close(fd);
}

int FaultFileOps::rename(const char* from, const char* to) {
    std::lock_guard lock(m_mutex);
    if (const int err = begin(FileOpKind::Rename, to)) {
        errno = err;
        return -1;
    }
    const int r = FileOps::rename(from, to);
    const int saved = errno;
    end(r);
    errno = saved;
    return r;
}

int FaultFileOps::unlink(const char* path) {
    std::lock_guard lock(m_mutex);
    if (const int err = begin(FileOpKind::Remove, path)) {
        errno = err;
        return -1;
    }
    const int r = FileOps::unlink(path);
    const int saved = errno;
    end(r);
    errno = saved;
    return r;
}

int FaultFileOps::rmdir(const char* path) {
    std::lock_guard lock(m_mutex);
    if (const int err = begin(FileOpKind::Remove, path)) {
        errno = err;
        return -1;
    }
    const int r = FileOps::rmdir(path);
    const int saved = errno;
    end(r);
    errno = saved;
    return r;
}

int FaultFileOps::mkdir(const char* path, mode_t mode) {
    std::lock_guard lock(m_mutex);
    if (const int err = begin(FileOpKind::Mkdir, path)) {
        errno = err;
        return -1;
    }
    const int r = FileOps::mkdir(path, mode);
    const int saved = errno;
    struct stat st {};
    if (r == 0 && ::lstat(path, &st) == 0) m_durableDirs[st.st_ino].clear();  // empty until fsynced
    end(r);
    errno = saved;
    return r;
}

FaultFileOps::DirImage FaultFileOps::scanDirectory(int dirFd) const {
    DirImage image;
    const int d = ::dup(dirFd);
    DIR* dir = d >= 0 ? ::fdopendir(d) : nullptr;
    if (!dir) {
        if (d >= 0) ::close(d);
        return image;
    }
    ::rewinddir(dir);
    while (dirent* e = ::readdir(dir)) {
        const std::string name = e->d_name;
        if (name == "." || name == "..") continue;
        struct stat st {};
        if (::fstatat(dirFd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
        Node node;
        node.ino = st.st_ino;
        node.type = st.st_mode & S_IFMT;
        if (S_ISLNK(st.st_mode)) {
            char target[4096];
            const ssize_t n = ::readlinkat(dirFd, name.c_str(), target, sizeof target);
            if (n > 0) node.target.assign(target, static_cast<size_t>(n));
        } else if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
            continue;
        }
        image.emplace(name, std::move(node));
    }
    ::closedir(dir);
    return image;
}

std::string FaultFileOps::fileBytes(int fd) const {
    std::string out;
    const int r = ::open(procPath(fd).c_str(), O_RDONLY | O_CLOEXEC);
    if (r < 0) return out;
    char buf[1 << 16];
    for (ssize_t n; (n = ::read(r, buf, sizeof buf)) > 0;) out.append(buf, static_cast<size_t>(n));
    ::close(r);
    return out;
}

void FaultFileOps::recordTree(const std::string& path, std::map<ino_t, DirImage>& dirs, std::map<ino_t, std::string>* bytes) {
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0) return;
    if (S_ISREG(st.st_mode)) {
        const int fd = bytes ? ::open(path.c_str(), O_RDONLY | O_CLOEXEC) : -1;
        if (fd >= 0) {
            (*bytes)[st.st_ino] = fileBytes(fd);
            ::close(fd);
        }
        return;
    }
    if (!S_ISDIR(st.st_mode)) return;
    const int fd = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return;
    DirImage image = scanDirectory(fd);
    ::close(fd);
    for (const auto& [name, node] : image)
        if (node.type != S_IFLNK) recordTree(path + "/" + name, dirs, bytes);
    dirs[st.st_ino] = std::move(image);
}

void FaultFileOps::markAllDurable() {
    std::lock_guard lock(m_mutex);
    m_durableBytes.clear();
    m_durableDirs.clear();
    struct stat st {};
    m_rootIno = ::lstat(m_root.c_str(), &st) == 0 ? st.st_ino : 0;
    recordTree(m_root, m_durableDirs, &m_durableBytes);
}

std::string FaultFileOps::writeImage(const std::string& path, const std::map<ino_t, DirImage>& dirs, ino_t dirIno,
                                     int depth) const {
    if (depth > 32) return "directory image too deep at " + path;
    const auto it = dirs.find(dirIno);
    if (it == dirs.end()) return {};  // never fsynced: empty
    for (const auto& [name, node] : it->second) {
        const std::string full = path + "/" + name;
        if (node.type == S_IFDIR) {
            if (::mkdir(full.c_str(), 0755) != 0) return "cannot recreate " + full + ": " + std::strerror(errno);
            if (std::string e = writeImage(full, dirs, node.ino, depth + 1); !e.empty()) return e;
        } else if (node.type == S_IFLNK) {
            if (::symlink(node.target.c_str(), full.c_str()) != 0) return "cannot recreate " + full + ": " + std::strerror(errno);
        } else {
            // A file whose bytes were never made durable is left empty.
            const auto bytes = m_durableBytes.find(node.ino);
            if (!writeWhole(full, bytes == m_durableBytes.end() ? std::string() : bytes->second, O_CREAT))
                return "cannot recreate " + full + ": " + std::strerror(errno);
        }
    }
    return {};
}

std::string FaultFileOps::restoreDurableImage(CrashImage image) {
    std::lock_guard lock(m_mutex);
    std::map<ino_t, DirImage> liveDirs;
    if (image == CrashImage::KeepEntries) recordTree(m_root, liveDirs, nullptr);
    const std::map<ino_t, DirImage>& dirs = image == CrashImage::KeepEntries ? liveDirs : m_durableDirs;
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(m_root, ec)) {
        std::filesystem::remove_all(entry.path(), ec);
        if (ec) return "cannot clear " + entry.path().string() + ": " + ec.message();
    }
    if (ec) return "cannot list " + m_root + ": " + ec.message();
    std::string error = writeImage(m_root, dirs, m_rootIno, 0);
    m_powerLost = false;
    m_losePowerAfter = false;
    m_fault = {};
    if (error.empty()) markAllDurable();
    return error;
}

}  // namespace ckpt::testing
