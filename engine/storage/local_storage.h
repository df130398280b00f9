#pragma once
// The local file system as a Storage backend: POSIX calls, pread and mmap
// for reads, buffered or O_DIRECT double-buffered writes, fsync of files
// and directories, rename(2)/renameat2(2) for commits. Every capability is
// on. Locations are plain paths (relative ones against the working
// directory). Thread-safe; dispatch.h hands out the one instance.

#include <memory>
#include <string>
#include <string_view>

#include "ckpt/status.h"
#include "storage/storage.h"

namespace ckpt::storage {

std::shared_ptr<Storage> makeLocalStorage();

// Status for a failed system call on a local path, "<what> <path>: <errno
// text>": ResourceExhausted (ENOSPC, EFBIG, EDQUOT), PermissionDenied
// (EACCES, EPERM, EROFS), NotFound (ENOENT, ENOTDIR), AlreadyExists
// (EEXIST), else Internal. Wrappers that fail a call on purpose use it so
// their errors read like the real ones.
Status ioError(std::string_view what, const std::string& path, int err);

}  // namespace ckpt::storage
