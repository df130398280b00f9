#pragma once
// The one seam through which every write-side syscall of the save and
// commit path goes (LevelDB's Env, narrowed to what writable_file.cpp
// needs): creating and opening files, write/pwrite, fsync of files and
// directories, rename, unlink, mkdir, rmdir. The base class is plain POSIX
// and is what runs unless a test installs a subclass (the fault-injecting
// one in tests/support/fault_file_ops.h). Each call returns what the
// syscall returns and sets errno the same way. Reads do not come here.

#include <sys/types.h>

#include <cstddef>

namespace ckpt::pipeline {

class FileOps {
public:
    virtual ~FileOps() = default;
    virtual int open(const char* path, int flags, mode_t mode);
    virtual ssize_t write(int fd, const void* data, size_t n);
    virtual ssize_t pwrite(int fd, const void* data, size_t n, off_t offset);
    // Files and directories alike (a directory's fd makes its entries durable).
    virtual int fsync(int fd);
    virtual int close(int fd);
    virtual int rename(const char* from, const char* to);
    virtual int unlink(const char* path);
    virtual int mkdir(const char* path, mode_t mode);
    virtual int rmdir(const char* path);
};

// The installed implementation (POSIX unless a test installed another).
FileOps& fileOps();
// Installs 'ops' (nullptr: POSIX again) and returns the one it replaces.
// For tests: install before a save starts and remove after it ends; files
// a save has open keep using the implementation they were opened with.
FileOps* installFileOps(FileOps* ops);

}  // namespace ckpt::pipeline
