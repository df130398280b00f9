#pragma once
// Path strings and errno text for the engine. Files themselves are read
// and written through the storage layer (storage/dispatch.h).

#include <string>
#include <string_view>

#include "ckpt/status.h"

namespace ckpt::platform {

std::string baseName(std::string_view path);
std::string dirName(std::string_view path);
std::string joinPath(std::string_view dir, std::string_view name);
// The canonical form of a path that may not exist yet: absolute, symlinks
// and ".." of the part that exists resolved, the rest normalised
// lexically, no trailing slash. How destination checks compare paths.
std::string canonicalPath(const std::string& path);
// 'path' with "." and ".." resolved by text alone ("a/./b/../c" -> "a/c"),
// touching nothing on disk.
std::string lexicallyNormal(std::string_view path);
// 'path' made absolute against the working directory, by text alone.
std::string absolutePath(std::string_view path);
// Whether this process may create entries in directory 'path' (access(2)
// with W_OK | X_OK): a permission probe before a schedule is accepted.
bool canWriteInto(const std::string& path);
// The running program's path (/proc/self/exe), empty when unknown.
std::string executablePath();
// 'inner' lies strictly below directory 'outer'; both absolute and
// normalised, without a trailing slash ("/" is every other path's outer).
bool isInsideDirectory(std::string_view inner, std::string_view outer);

// Human-readable errno text for messages: "No such file or directory".
std::string errnoText(int err);
// The status for a failed call's errno, "<message>: <errno text>": NotFound
// (ENOENT, ENOTDIR), PermissionDenied (EACCES, EPERM, EROFS),
// ResourceExhausted (ENOSPC, EDQUOT, ENOMEM, EMFILE), else DataLoss.
Status statusFromErrno(int err, const std::string& message);

}  // namespace ckpt::platform
