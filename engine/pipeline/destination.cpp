// The destination rule: see ckpt/destination.h.

#include "ckpt/destination.h"

#include <cstdio>

#include "ckpt/bundle_naming.h"
#include "ckpt/bundle_reader.h"
#include "ckpt/byte_size.h"
#include "ckpt/checkpoint.h"
#include "ckpt/checkpoint_state.h"
#include "ckpt/checkpoint_step.h"
#include "platform/file.h"
#include "storage/dispatch.h"

namespace ckpt {
namespace {

// A checkpoint source as paths compare: its canonical prefix and index,
// and (given as a directory) the directory.
struct SourcePaths {
    std::string given;
    std::string prefix;     // canonical; empty when it is not a checkpoint
    std::string index;      // canonical path of <prefix>.index (a symlinked index resolved)
    std::string directory;  // canonical, when given as a directory
    std::string file;       // canonical, when a plain file (an import's input, a spec)
};

SourcePaths sourcePaths(const std::string& given) {
    SourcePaths s;
    s.given = given;
    if (given.empty()) return s;
    if (storage::isDirectory(given)) s.directory = platform::canonicalPath(given);
    if (auto resolved = resolveCheckpoint(given); resolved.ok()) {
        s.prefix = platform::canonicalPath(resolved->prefix);
        s.index = platform::canonicalPath(indexFileName(resolved->prefix));
    } else if (s.directory.empty() && storage::exists(given)) {
        s.file = platform::canonicalPath(given);
    }
    return s;
}

// 'path' is the prefix 'prefix', its index, or one of its data files.
bool isFileOfCheckpoint(const std::string& path, const std::string& prefix) {
    if (prefix.empty()) return false;
    if (path == prefix || path == indexFileName(prefix)) return true;
    const auto data = parseDataFileName(path);
    return data && data->prefix == prefix;
}

ExistingDestination describeCheckpointAt(const std::string& prefix) {
    ExistingDestination e;
    e.checkpoint = true;
    auto reader = BundleReader::open(prefix);
    if (!reader.ok()) {
        e.error = reader.status().toString();
        e.step = checkpointStep(prefix, nullptr).step;
        if (auto size = storage::fileSize(indexFileName(prefix)); size.ok()) e.bytes = *size;
        return e;
    }
    const BundleReader& r = **reader;
    e.tensors = static_cast<int64_t>(r.tensors().size());
    e.shards = r.header().numShards;
    e.step = checkpointStep(prefix, &r).step;
    if (auto size = storage::fileSize(indexFileName(prefix)); size.ok()) e.bytes += *size;
    for (int32_t i = 0; i < e.shards; ++i)
        if (auto size = storage::fileSize(dataFileName(prefix, i, e.shards)); size.ok()) e.bytes += *size;
    return e;
}

// The nearest directory at or above 'dir' that exists.
std::string nearestExisting(std::string dir) {
    while (!dir.empty() && dir != "/" && !storage::exists(dir)) dir = platform::dirName(dir);
    return dir.empty() ? std::string(".") : dir;
}

void refuse(DestinationCheck& c, DestinationProblem problem, std::string message, std::string conflict = {}) {
    c.problem = problem;
    c.message = std::move(message);
    c.conflict = std::move(conflict);
}

}  // namespace

std::string_view destinationProblemName(DestinationProblem problem) {
    switch (problem) {
    case DestinationProblem::None: return "none";
    case DestinationProblem::BadPath: return "bad-path";
    case DestinationProblem::IsDirectory: return "is-directory";
    case DestinationProblem::IsSource: return "is-source";
    case DestinationProblem::InsideSource: return "inside-source";
    case DestinationProblem::IsOpen: return "is-open";
    case DestinationProblem::IsCheckpointFile: return "is-checkpoint-file";
    case DestinationProblem::Exists: return "exists";
    case DestinationProblem::CannotReplace: return "cannot-replace";
    case DestinationProblem::NotWritable: return "not-writable";
    }
    return "none";
}

std::string printablePath(std::string_view path) {
    std::string out;
    out.reserve(path.size());
    for (char ch : path) {
        const auto c = static_cast<unsigned char>(ch);
        if (c == '\n') out += "\\n";
        else if (c == '\t') out += "\\t";
        else if (c == '\r') out += "\\r";
        else if (c < 0x20 || c == 0x7f) {
            char hex[8];
            std::snprintf(hex, sizeof hex, "\\x%02x", c);
            out += hex;
        } else out += ch;
    }
    return out;
}

std::string describeExisting(const ExistingDestination& e) {
    if (!e.checkpoint) return byteSizeText(e.bytes);
    std::string text = e.step ? "step " + std::to_string(*e.step) : std::string("no step");
    if (e.tensors >= 0) text += ", " + std::to_string(e.tensors) + (e.tensors == 1 ? " tensor" : " tensors");
    else text += ", unreadable index";
    return text + ", " + byteSizeText(e.bytes);
}

Status DestinationCheck::status() const {
    switch (problem) {
    case DestinationProblem::None: return okStatus();
    case DestinationProblem::Exists:
    case DestinationProblem::CannotReplace: return {StatusCode::AlreadyExists, message};
    case DestinationProblem::NotWritable: return {StatusCode::PermissionDenied, message};
    default: return invalidArgument(message);
    }
}

DestinationCheck checkDestination(const DestinationRequest& request) {
    DestinationCheck c;
    const bool checkpoint = request.kind == DestinationKind::Checkpoint;
    const std::string& given = request.path;
    const std::string shown = printablePath(given);
    if (given.empty()) {
        refuse(c, DestinationProblem::BadPath, "the destination is empty: name a " + std::string(checkpoint ? "prefix" : "file"));
        return c;
    }
    for (char ch : given) {
        const auto u = static_cast<unsigned char>(ch);
        if (u < 0x20 || u == 0x7f) {
            char code[8];
            std::snprintf(code, sizeof code, "0x%02x", u);
            refuse(c, DestinationProblem::BadPath,
                   "the destination \"" + shown + "\" contains a control character (" + code + ")");
            return c;
        }
    }
    const std::string last = platform::baseName(given);
    if (given.back() == '/' || last.empty() || last == "." || last == "..") {
        refuse(c, DestinationProblem::BadPath,
               "the destination \"" + shown + "\" has no file name: name a " + std::string(checkpoint ? "prefix" : "file") +
                   " inside the directory, e.g. " + platform::joinPath(given, checkpoint ? "model" : "model.safetensors"));
        return c;
    }
    // A location no backend serves (an unknown scheme, or one whose backend
    // is not built in) is never made a local directory of that name.
    if (Status s = storage::checkLocation(given); !s.isOk()) {
        refuse(c, DestinationProblem::BadPath, s.message());
        return c;
    }
    for (const std::vector<std::string>* list : {&request.sources, &request.open})
        for (const std::string& p : *list)
            if (Status s = storage::checkLocation(p); !s.isOk()) {
                refuse(c, DestinationProblem::BadPath, s.message(), p);
                return c;
            }
    c.path = checkpoint ? bundlePrefixOf(given) : given;
    c.canonical = platform::canonicalPath(c.path);
    const std::string canonicalIndex = checkpoint ? platform::canonicalPath(indexFileName(c.path)) : std::string();

    // Its directory: a file there, or nowhere to write.
    const std::string parent = platform::dirName(c.canonical);
    const std::string existingParent = nearestExisting(parent);
    if (!storage::isDirectory(existingParent)) {
        refuse(c, DestinationProblem::BadPath,
               "cannot write " + printablePath(c.path) + ": " + printablePath(existingParent) + " is a file, not a directory");
        return c;
    }
    if (storage::isDirectory(c.path)) {
        refuse(c, DestinationProblem::IsDirectory,
               "the destination " + printablePath(c.path) + " is a directory; name a " +
                   std::string(checkpoint ? "prefix" : "file") + " in it, e.g. " +
                   platform::joinPath(c.path, checkpoint ? "model" : "model.safetensors"));
        return c;
    }

    // Sources and open checkpoints, in any spelling.
    auto against = [&](const std::vector<std::string>& paths, DestinationProblem same, std::string_view role) {
        for (const std::string& p : paths) {
            const SourcePaths s = sourcePaths(p);
            bool hit = false;
            if (checkpoint) {
                hit = (!s.prefix.empty() && (c.canonical == s.prefix || canonicalIndex == s.index)) ||
                      (!s.file.empty() && isFileOfCheckpoint(s.file, c.canonical));
            } else {
                hit = (!s.file.empty() && c.canonical == s.file) || isFileOfCheckpoint(c.canonical, s.prefix) ||
                      (!s.index.empty() && c.canonical == s.index);
            }
            if (hit) {
                refuse(c, same,
                       "cannot write " + printablePath(c.path) + ": it is " + std::string(role) + " " + printablePath(p) +
                           ", which is never written",
                       p);
                return true;
            }
            if (!s.directory.empty() && platform::isInsideDirectory(c.canonical, s.directory)) {
                refuse(c, DestinationProblem::InsideSource,
                       "cannot write " + printablePath(c.path) + ": it lies inside " + std::string(role) + " " +
                           printablePath(p) + ", which is never written",
                       p);
                return true;
            }
        }
        return false;
    };
    // The open checkpoint first: it is usually a source too, and the more
    // telling reason.
    if (against(request.open, DestinationProblem::IsOpen, "the open checkpoint,")) return c;
    if (against(request.sources, DestinationProblem::IsSource, "a source of this operation,")) return c;

    // What is there now.
    if (checkpoint) {
        if (auto at = storage::stat(indexFileName(c.path), /*follow=*/false); at.ok() && *at)
            c.existing = describeCheckpointAt(c.path);
    } else if (auto at = storage::stat(c.path, /*follow=*/false); at.ok() && *at) {
        const std::string name = platform::baseName(c.path);
        const auto data = parseDataFileName(name);
        if (name == kCheckpointStateFile || (name.ends_with(kIndexSuffix) && name.size() > kIndexSuffix.size()) ||
            (data && storage::exists(indexFileName(platform::joinPath(platform::dirName(c.path), data->prefix))))) {
            refuse(c, DestinationProblem::IsCheckpointFile,
                   "cannot write " + printablePath(c.path) + ": it is a checkpoint's file (" + name + "), never an export's");
            return c;
        }
        ExistingDestination e;
        e.checkpoint = false;
        e.bytes = (*at)->size;
        c.existing = e;
    }
    // Before Exists: a replacement is written beside what it replaces, so a
    // read-only directory refuses it too; asking "replace?" there only
    // leads to a write that fails (issue #30, item 15).
    if (storage::capabilitiesFor(c.path).localPaths && !platform::canWriteInto(existingParent)) {
        refuse(c, DestinationProblem::NotWritable,
               "cannot write " + printablePath(c.path) + ": " + printablePath(existingParent) + ": permission denied");
        return c;
    }
    // Without rename a replacement cannot be written beside and swapped in
    // (pipeline/save_claim.h): an existing checkpoint there stays, overwrite or not.
    if (c.existing && checkpoint && !storage::capabilitiesFor(c.path).rename) {
        refuse(c, DestinationProblem::CannotReplace, cannotReplaceMessage(c.path, describeExisting(*c.existing)));
        return c;
    }
    if (c.existing && !request.overwrite) {
        refuse(c, DestinationProblem::Exists,
               std::string(checkpoint ? "a checkpoint exists at " : "a file exists at ") + printablePath(c.path) + " (" +
                   describeExisting(*c.existing) + ")");
        return c;
    }
    return c;
}

std::string cannotReplaceMessage(std::string_view path, std::string_view what) {
    return "a checkpoint exists at " + printablePath(path) + " (" + std::string(what) +
           "); its storage cannot rename, so it is never replaced: write to a new prefix, or delete it first";
}

}  // namespace ckpt
