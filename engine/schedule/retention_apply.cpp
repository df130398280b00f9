// Gathering retention candidates from a directory and carrying out a plan:
// see ckpt/retention.h. Nothing here decides what to keep (retention_plan.cpp);
// this file only reads what is there and deletes exactly what a plan names.

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "ckpt/bundle_naming.h"
#include "ckpt/checkpoint_metadata.h"
#include "ckpt/retention.h"
#include "pipeline/writable_file.h"
#include "platform/file.h"

namespace ckpt {
namespace {

// A checkpoint name that stays a single entry of its directory.
bool isPlainName(std::string_view name) {
    return !name.empty() && name != "." && name != ".." && name.find('/') == std::string_view::npos &&
           name.find('\0') == std::string_view::npos;
}

// Every entry of 'dir' by name (no stat: d_type is not needed to match names).
Result<std::vector<std::string>> directoryEntries(const std::string& dir) {
    DIR* d = ::opendir(dir.c_str());
    if (!d) return pipeline::ioError("cannot list", dir, errno);
    std::vector<std::string> names;
    while (dirent* e = ::readdir(d)) names.emplace_back(e->d_name);
    ::closedir(d);
    return names;
}

// The data files of 'name' among 'entries': any shard count, so data files
// left by an earlier save under the same prefix go with it.
std::vector<std::string> dataFilesOf(std::string_view name, const std::vector<std::string>& entries) {
    std::vector<std::string> out;
    for (const std::string& e : entries) {
        if (!e.starts_with(name)) continue;
        const auto data = parseDataFileName(e);
        if (data && data->prefix == name) out.push_back(e);
    }
    return out;
}

// Index first: a half-deleted checkpoint is then simply absent, never a
// checkpoint with missing shards. unlink() removes a symlink, not its target.
Status deleteFiles(const std::string& dir, std::string_view name, const std::vector<std::string>& dataFiles) {
    CKPT_RETURN_IF_ERROR(pipeline::removeFile(platform::joinPath(dir, indexFileName(name))));
    for (const std::string& f : dataFiles) CKPT_RETURN_IF_ERROR(pipeline::removeFile(platform::joinPath(dir, f)));
    return pipeline::removeFile(platform::joinPath(dir, checkpointMetadataFileName(name)));
}

}  // namespace

Status deleteCheckpointFiles(std::string_view dirView, std::string_view name) {
    const std::string dir(dirView);
    if (!isPlainName(name))
        return invalidArgument("refusing to delete checkpoint \"" + std::string(name) + "\" of " + dir +
                               ": not a plain name inside the directory");
    CKPT_ASSIGN_OR_RETURN(const std::vector<std::string> entries, directoryEntries(dir));
    CKPT_RETURN_IF_ERROR(deleteFiles(dir, name, dataFilesOf(name, entries)));
    return pipeline::fsyncDirectory(dir);
}

}  // namespace ckpt
