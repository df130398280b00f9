#include "pipeline/file_ops.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>

namespace ckpt::pipeline {
namespace {

FileOps& posixOps() {
    static FileOps* ops = new FileOps;  // never destroyed: files may close during exit
    return *ops;
}

std::atomic<FileOps*> g_installed{nullptr};

}  // namespace

int FileOps::open(const char* path, int flags, mode_t mode) { return ::open(path, flags, mode); }
ssize_t FileOps::write(int fd, const void* data, size_t n) { return ::write(fd, data, n); }
ssize_t FileOps::pwrite(int fd, const void* data, size_t n, off_t offset) { return ::pwrite(fd, data, n, offset); }
int FileOps::fsync(int fd) { return ::fsync(fd); }
int FileOps::close(int fd) { return ::close(fd); }
int FileOps::rename(const char* from, const char* to) { return ::rename(from, to); }
int FileOps::unlink(const char* path) { return ::unlink(path); }
int FileOps::mkdir(const char* path, mode_t mode) { return ::mkdir(path, mode); }
int FileOps::rmdir(const char* path) { return ::rmdir(path); }

FileOps& fileOps() {
    FileOps* ops = g_installed.load(std::memory_order_acquire);
    return ops ? *ops : posixOps();
}

FileOps* installFileOps(FileOps* ops) { return g_installed.exchange(ops, std::memory_order_acq_rel); }

}  // namespace ckpt::pipeline
