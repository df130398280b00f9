#include "platform/process_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>

#include "platform/file.h"

namespace ckpt::platform {

Result<int> takeProcessLock(const std::string& lockPath, const std::string& what, const std::string& subject) {
    const int fd = ::open(lockPath.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) return statusFromErrno(errno, "cannot open the " + what + " lock " + lockPath);
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
        const int err = errno;
        char buffer[32] = {};
        const ssize_t n = ::pread(fd, buffer, sizeof buffer - 1, 0);
        ::close(fd);
        if (err != EWOULDBLOCK) return statusFromErrno(err, "cannot lock " + lockPath);
        std::string pid = n > 0 ? std::string(buffer, static_cast<size_t>(n)) : std::string("unknown");
        while (!pid.empty() && (pid.back() == '\n' || pid.back() == ' ')) pid.pop_back();
        return failedPrecondition("another " + what + " (pid " + pid + ") is running on " + subject);
    }
    const std::string pid = std::to_string(::getpid()) + "\n";
    if (::ftruncate(fd, 0) != 0 || ::pwrite(fd, pid.data(), pid.size(), 0) != static_cast<ssize_t>(pid.size())) {
        const int err = errno;
        ::close(fd);
        return statusFromErrno(err, "cannot write the " + what + " lock " + lockPath);
    }
    return fd;
}

Result<std::optional<int64_t>> processLockHolder(const std::string& lockPath, const std::string& what) {
    const int fd = ::open(lockPath.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT) return std::optional<int64_t>{};
        return statusFromErrno(errno, "cannot open the " + what + " lock " + lockPath);
    }
    // A shared lock is granted only while no process holds the exclusive one.
    if (::flock(fd, LOCK_SH | LOCK_NB) == 0) {
        ::close(fd);
        return std::optional<int64_t>{};
    }
    const int err = errno;
    char buffer[32] = {};
    const ssize_t n = ::pread(fd, buffer, sizeof buffer - 1, 0);
    ::close(fd);
    if (err != EWOULDBLOCK) return statusFromErrno(err, "cannot test the " + what + " lock " + lockPath);
    // 0 when the holder has not written its pid yet (it is starting).
    return std::optional<int64_t>{n > 0 ? std::strtoll(buffer, nullptr, 10) : 0};
}

void releaseProcessLock(int fd) {
    if (fd >= 0) ::close(fd);  // releases the flock
}

}  // namespace ckpt::platform
