#pragma once
// The local backend's file handles (local_storage.cpp hands them out). Not
// for callers: they get these through the Storage interface.

#include <sys/stat.h>

#include <memory>
#include <string>

#include "ckpt/status.h"
#include "storage/files.h"

namespace ckpt::storage::local {

// The generation of a file as fstat/stat saw it: device, inode, size and
// change times (a replacement by rename is a new inode; an edit in place
// changes the times and usually the size).
Generation generationOf(const struct stat& st);

Result<std::unique_ptr<RandomAccessFile>> openRandomAccess(const std::string& path);
Result<std::unique_ptr<SequentialFile>> openSequential(const std::string& path);
// Creates or truncates 'path' (files.h, WriteMode).
Result<std::unique_ptr<WritableFile>> createFile(const std::string& path, WriteMode mode);

}  // namespace ckpt::storage::local
