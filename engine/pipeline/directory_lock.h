#pragma once
// An exclusive advisory lock on a directory (flock on the directory
// itself, so no lock file is left behind), held by the engine's writers
// while they change which checkpoints a directory holds: a staged
// checkpoint's swap, a state-file rewrite, retention's deletions, the
// garbage collector. The kernel drops it when the process dies however it
// dies, so a killed writer never leaves a stale lock. Writers that do not
// take it (TensorFlow) are not excluded. Not reentrant: a thread that holds
// a directory's lock must not take it again. Engine-internal.
//   auto lock = DirectoryLock::acquire(dir);
//   if (!lock.ok()) return lock.status();
//   ... rename, rewrite, delete ...   // released when 'lock' goes

#include <memory>
#include <string>

#include "ckpt/status.h"

namespace ckpt::pipeline {

class DirectoryLock {
public:
    // Waits for the lock. A file system that cannot lock (some network
    // file systems) gives an unlocked handle: the writers' order of steps
    // still keeps each step safe, only concurrent writers are not serialised.
    static Result<std::unique_ptr<DirectoryLock>> acquire(const std::string& dir);
    ~DirectoryLock();
    DirectoryLock(const DirectoryLock&) = delete;
    DirectoryLock& operator=(const DirectoryLock&) = delete;

private:
    explicit DirectoryLock(int fd) : m_fd(fd) {}
    int m_fd;
};

}  // namespace ckpt::pipeline
