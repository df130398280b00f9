// flock on a directory: see directory_lock.h. Opening a directory read-only
// and locking it changes nothing on disk, so neither goes through FileOps.

#include "pipeline/directory_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>

#include "pipeline/writable_file.h"

namespace ckpt::pipeline {

Result<std::unique_ptr<DirectoryLock>> DirectoryLock::acquire(const std::string& dir) {
    const int fd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return ioError("cannot open directory", dir, errno);
    while (::flock(fd, LOCK_EX) != 0) {
        if (errno == EINTR) continue;
        // EOPNOTSUPP, ENOLCK, EBADF (NFS without lock support): unlocked.
        break;
    }
    return std::unique_ptr<DirectoryLock>(new DirectoryLock(fd));
}

DirectoryLock::~DirectoryLock() { ::close(m_fd); }

}  // namespace ckpt::pipeline
