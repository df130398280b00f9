#pragma once
// A lock file that one process at a time holds (flock), with the holder's
// pid written into it: how only one scheduler serves a store. Local only
// and not checkpoint bytes, so it sits here rather than in storage/.
//   CKPT_ASSIGN_OR_RETURN(int fd, platform::takeProcessLock(storePath + ".lock", "scheduler", storePath));
//   ...
//   platform::releaseProcessLock(fd);

#include <cstdint>
#include <optional>
#include <string>

#include "ckpt/status.h"

namespace ckpt::platform {

// Takes the exclusive lock on 'lockPath' (created if missing) and writes
// this process's pid into it; the descriptor that holds it. When another
// process holds it: FailedPrecondition "another <what> (pid N) is running
// on <subject>".
Result<int> takeProcessLock(const std::string& lockPath, const std::string& what, const std::string& subject);
// The pid of the process holding 'lockPath' (0 while it has not written
// its pid yet), or nullopt when nobody holds it or there is no lock file.
Result<std::optional<int64_t>> processLockHolder(const std::string& lockPath, const std::string& what);
// Releases a lock takeProcessLock() took (-1: nothing to do).
void releaseProcessLock(int fd);

}  // namespace ckpt::platform
