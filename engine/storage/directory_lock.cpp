// flock on a directory, reentrant per thread: see directory_lock.h.

#include "storage/directory_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <map>

#include "storage/dispatch.h"
#include "storage/local_storage.h"

namespace ckpt::storage {
namespace {

struct Held {
    int fd = -1;
    int depth = 0;
};

// The directories this thread holds, by device and inode.
std::map<std::string, Held>& heldByThisThread() {
    static thread_local std::map<std::string, Held> held;
    return held;
}

}  // namespace

Result<std::unique_ptr<DirectoryLock>> DirectoryLock::acquire(const std::string& dir) {
    if (!locationScheme(dir).empty()) return std::unique_ptr<DirectoryLock>(new DirectoryLock(std::string()));
    const int fd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return ioError("cannot open directory", dir, errno);
    // Keyed by the directory itself, not its spelling: a path through a
    // symlink or with ".." is the same lock (a second flock of it from this
    // thread would wait for itself).
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
        const int err = errno;
        ::close(fd);
        return ioError("cannot stat directory", dir, err);
    }
    std::string key = std::to_string(st.st_dev) + ":" + std::to_string(st.st_ino);
    auto& held = heldByThisThread();
    if (auto it = held.find(key); it != held.end()) {
        ::close(fd);
        ++it->second.depth;
        return std::unique_ptr<DirectoryLock>(new DirectoryLock(std::move(key)));
    }
    while (::flock(fd, LOCK_EX) != 0) {
        if (errno == EINTR) continue;
        const int err = errno;
        if (err == EOPNOTSUPP || err == ENOLCK) break;  // no locks on this file system: unlocked
        ::close(fd);
        return ioError("cannot lock directory", dir, err);
    }
    held[key] = Held{fd, 1};
    return std::unique_ptr<DirectoryLock>(new DirectoryLock(std::move(key)));
}

DirectoryLock::~DirectoryLock() {
    if (m_key.empty()) return;
    auto& held = heldByThisThread();
    auto it = held.find(m_key);
    if (it == held.end() || --it->second.depth > 0) return;
    ::close(it->second.fd);  // releases the lock
    held.erase(it);
}

}  // namespace ckpt::storage
