#pragma once
// An exclusive advisory lock on a local directory (flock on the directory
// itself, so no lock file is left behind): the one lock of the engine's
// writers of a directory. The storage layer takes it for the check and the
// rename of a conditional write; the writers above take it while they
// change which checkpoints a directory holds (a staged checkpoint's swap,
// a save from its first rename to its index commit, a state-file rewrite,
// retention's deletions, the garbage collector). The kernel drops it when
// the process dies however it dies, so a killed writer never leaves a
// stale lock. Writers that do not take it (TensorFlow) are not excluded.
//
// Reentrant on the thread that holds it: a conditional rename inside a
// swap takes the lock it is already under (a second flock on another open
// of the same directory would wait for itself). Other threads, and other
// processes, wait. A handle is released on the thread that took it (a
// scoped local). Locations of other backends get an unlocked handle: a
// store serialises conditional writes itself (If-Match, If-None-Match).
//   CKPT_ASSIGN_OR_RETURN(auto lock, storage::DirectoryLock::acquire(dir));
//   ... rename, rewrite, delete ...   // released when 'lock' goes

#include <memory>
#include <string>

#include "ckpt/status.h"

namespace ckpt::storage {

class DirectoryLock {
public:
    // Waits for the lock ("" is the working directory). A file system that
    // cannot lock (some network file systems) gives an unlocked handle:
    // the writers' order of steps still keeps each step safe, only
    // concurrent writers are not serialised.
    static Result<std::unique_ptr<DirectoryLock>> acquire(const std::string& dir);
    ~DirectoryLock();
    DirectoryLock(const DirectoryLock&) = delete;
    DirectoryLock& operator=(const DirectoryLock&) = delete;

private:
    explicit DirectoryLock(std::string key) : m_key(std::move(key)) {}
    std::string m_key;  // the thread's entry; empty: unlocked
};

}  // namespace ckpt::storage
