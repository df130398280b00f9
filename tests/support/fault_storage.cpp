#include "fault_storage.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "platform/file.h"
#include "storage/local_storage.h"

namespace ckpt::testing {
namespace {

std::string procPath(int fd) { return "/proc/self/fd/" + std::to_string(fd); }

std::string fileBytes(int fd) {
    std::string out;
    const int r = ::open(procPath(fd).c_str(), O_RDONLY | O_CLOEXEC);
    if (r < 0) return out;
    char buf[1 << 16];
    for (ssize_t n; (n = ::read(r, buf, sizeof buf)) > 0;) out.append(buf, static_cast<size_t>(n));
    ::close(r);
    return out;
}

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

// A file created through the fault storage: appends are Write operations,
// close() is the file's Sync.
class FaultWritableFile final : public storage::WritableFile {
public:
    FaultWritableFile(FaultStorage& owner, std::unique_ptr<storage::WritableFile> inner)
        : m_owner(owner), m_location(inner->location()), m_inner(std::move(inner)) {}
    const std::string& location() const override { return m_location; }
    uint64_t position() const override { return m_inner ? m_inner->position() : 0; }
    bool direct() const override { return m_inner && m_inner->direct(); }
    storage::Generation generation() const override { return m_inner ? m_inner->generation() : storage::Generation(); }
    using storage::WritableFile::append;
    Status append(const void* data, size_t n) override {
        std::lock_guard lock(m_owner.m_mutex);
        if (!m_inner) return failedPrecondition("write to closed file " + m_location);
        if (const int err = m_owner.begin(FileOpKind::Write, m_location))
            return storage::ioError("cannot write", m_location, err);
        Status s = m_inner->append(data, n);
        m_owner.end();
        return s;
    }
    Status close() override { return m_owner.syncClosing(*this, m_inner); }

private:
    FaultStorage& m_owner;
    std::string m_location;
    std::unique_ptr<storage::WritableFile> m_inner;  // null once a failed fsync dropped it
};

FaultStorage::FaultStorage(std::string root) : StorageWrapper(storage::makeLocalStorage()), m_root(std::move(root)) {
    markAllDurable();
}

void FaultStorage::arm(const FileFault& fault) {
    std::lock_guard lock(m_mutex);
    m_fault = fault;
    m_count = 0;
    m_kindCount.clear();
    m_ops.clear();
    m_hit = false;
}

std::vector<FileOpRecord> FaultStorage::operations() const {
    std::lock_guard lock(m_mutex);
    return m_ops;
}

bool FaultStorage::faultHit() const {
    std::lock_guard lock(m_mutex);
    return m_hit;
}

bool FaultStorage::powerLost() const {
    std::lock_guard lock(m_mutex);
    return m_powerLost;
}

int FaultStorage::begin(FileOpKind kind, const std::string& path) {
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

void FaultStorage::end() {
    if (m_losePowerAfter) {
        m_losePowerAfter = false;
        m_powerLost = true;
    }
}

void FaultStorage::recordDurableFile(const std::string& path) {
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return;
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return;
    m_durableBytes[st.st_ino] = fileBytes(fd);
    ::close(fd);
}

// A failed fsync that loses the file's unsynced bytes (Linux marks the
// dirty pages clean after a failed writeback): back to its durable state.
void FaultStorage::dropUnsynced(const std::string& path) {
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return;
    const auto it = m_durableBytes.find(st.st_ino);
    (void)writeWhole(path, it == m_durableBytes.end() ? std::string() : it->second, 0);
}

Status FaultStorage::syncClosing(storage::WritableFile& file, std::unique_ptr<storage::WritableFile>& inner) {
    std::lock_guard lock(m_mutex);
    if (!inner) return okStatus();
    const std::string path = file.location();
    if (const int err = begin(FileOpKind::Sync, path)) {
        if (!m_powerLost && m_fault.dropUnsynced) {
            inner.reset();  // closed without its fsync
            dropUnsynced(path);
        }
        return storage::ioError("cannot fsync", path, err);
    }
    Status s = inner->close();
    if (s.isOk()) recordDurableFile(path);
    end();
    return s;
}

Result<std::unique_ptr<storage::WritableFile>> FaultStorage::create(const std::string& location,
                                                                    const storage::CreateOptions& options) {
    std::lock_guard lock(m_mutex);
    if (const int err = begin(FileOpKind::Create, location)) return storage::ioError("cannot create", location, err);
    struct stat st {};
    const bool existed = ::lstat(location.c_str(), &st) == 0;
    auto file = StorageWrapper::create(location, options);
    // A new inode (numbers are reused) has no durable bytes yet.
    if (file.ok() && !existed && ::lstat(location.c_str(), &st) == 0) m_durableBytes[st.st_ino].clear();
    end();
    if (!file.ok()) return file.status();
    return std::unique_ptr<storage::WritableFile>(std::make_unique<FaultWritableFile>(*this, std::move(*file)));
}

Status FaultStorage::remove(const std::string& location) {
    std::lock_guard lock(m_mutex);
    if (const int err = begin(FileOpKind::Remove, location)) return storage::ioError("cannot delete", location, err);
    Status s = StorageWrapper::remove(location);
    end();
    return s;
}

Status FaultStorage::removeDirectory(const std::string& directory) {
    std::lock_guard lock(m_mutex);
    if (const int err = begin(FileOpKind::Remove, directory)) return storage::ioError("cannot delete", directory, err);
    Status s = StorageWrapper::removeDirectory(directory);
    end();
    return s;
}

Status FaultStorage::syncDirectory(const std::string& directory) {
    std::lock_guard lock(m_mutex);
    if (const int err = begin(FileOpKind::SyncDir, directory)) return storage::ioError("cannot fsync directory", directory, err);
    Status s = StorageWrapper::syncDirectory(directory);
    if (s.isOk()) {
        const int fd = ::open(directory.empty() ? "." : directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        struct stat st {};
        if (fd >= 0 && ::fstat(fd, &st) == 0) m_durableDirs[st.st_ino] = scanDirectory(fd);
        if (fd >= 0) ::close(fd);
    }
    end();
    return s;
}

Status FaultStorage::syncFile(const std::string& location) {
    std::lock_guard lock(m_mutex);
    if (const int err = begin(FileOpKind::Sync, location)) {
        if (!m_powerLost && m_fault.dropUnsynced) dropUnsynced(location);
        return storage::ioError("cannot fsync", location, err);
    }
    Status s = StorageWrapper::syncFile(location);
    if (s.isOk()) recordDurableFile(location);
    end();
    return s;
}

Status FaultStorage::rename(const std::string& from, const std::string& to, const storage::WriteCondition& condition) {
    std::lock_guard lock(m_mutex);
    if (const int err = begin(FileOpKind::Rename, to)) return storage::ioError("cannot rename " + from + " to", to, err);
    Status s = StorageWrapper::rename(from, to, condition);
    end();
    return s;
}

// One Mkdir per directory made, outermost first, as mkdir -p makes them.
Status FaultStorage::createDirectories(const std::string& directory) {
    std::vector<std::string> missing;
    for (std::string p = directory; !p.empty() && !storage::isDirectory(p) && ::access(p.c_str(), F_OK) != 0;) {
        missing.push_back(p);
        const std::string parent = platform::dirName(p);
        if (parent == p) break;
        p = parent;
    }
    if (missing.empty()) return StorageWrapper::createDirectories(directory);
    for (auto it = missing.rbegin(); it != missing.rend(); ++it) {
        std::lock_guard lock(m_mutex);
        if (const int err = begin(FileOpKind::Mkdir, *it)) return storage::ioError("cannot create directory", *it, err);
        Status s = StorageWrapper::createDirectories(*it);
        struct stat st {};
        if (s.isOk() && ::lstat(it->c_str(), &st) == 0) m_durableDirs[st.st_ino].clear();  // empty until fsynced
        end();
        CKPT_RETURN_IF_ERROR(s);
    }
    return okStatus();
}

FaultStorage::DirImage FaultStorage::scanDirectory(int dirFd) const {
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

void FaultStorage::recordTree(const std::string& path, std::map<ino_t, DirImage>& dirs, std::map<ino_t, std::string>* bytes) {
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

void FaultStorage::markAllDurable() {
    std::lock_guard lock(m_mutex);
    m_durableBytes.clear();
    m_durableDirs.clear();
    struct stat st {};
    m_rootIno = ::lstat(m_root.c_str(), &st) == 0 ? st.st_ino : 0;
    recordTree(m_root, m_durableDirs, &m_durableBytes);
}

std::string FaultStorage::writeImage(const std::string& path, const std::map<ino_t, DirImage>& dirs, ino_t dirIno,
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

std::string FaultStorage::restoreDurableImage(CrashImage image) {
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
