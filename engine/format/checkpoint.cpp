#include "ckpt/checkpoint.h"

#include <algorithm>

#include "ckpt/bundle_naming.h"
#include "ckpt/checkpoint_state.h"
#include "ckpt/checkpoint_step.h"
#include "format/object_graph_entry.h"
#include "platform/cancellation_scope.h"
#include "platform/file.h"
#include "storage/dispatch.h"

namespace ckpt {
namespace {

Result<ResolvedCheckpoint> resolveDirectory(const std::string& dir) {
    // The state file first: on a store it is one GET where the SavedModel
    // probe and the listing cost a HEAD and a listing each (a SavedModel
    // directory has no state file of its own).
    auto state = readCheckpointState(dir);
    if (state && *state && !(*state)->modelCheckpointPath.empty()) {
        const std::string prefix = resolveStatePath(dir, (*state)->modelCheckpointPath);
        if (storage::exists(indexFileName(prefix))) return ResolvedCheckpoint{prefix, "state file"};
    }
    if (auto savedModel = savedModelVariablesPrefix(dir)) return ResolvedCheckpoint{*savedModel, "SavedModel"};

    std::vector<std::string> prefixes;
    CKPT_RETURN_IF_ERROR(storage::list(dir, {}, [&](const storage::ListEntry& e) {
        if (e.name.size() <= kIndexSuffix.size() || !e.name.ends_with(kIndexSuffix)) return true;
        const std::string path = platform::joinPath(dir, e.name);
        if (e.kind == storage::ObjectKind::File || (e.kind == storage::ObjectKind::Symlink && storage::isFile(path)))
            prefixes.push_back(bundlePrefixOf(path));
        return true;
    }));
    if (prefixes.empty()) {
        std::string why = "no checkpoint in " + dir + ": no *.index files";
        if (state && *state)
            why += ", and its checkpoint state file names " + (*state)->modelCheckpointPath + ", which does not exist";
        else if (!state) why += "; " + state.status().message();
        return notFound(why);
    }
    if (prefixes.size() == 1) return ResolvedCheckpoint{prefixes.front(), "only index"};
    std::sort(prefixes.begin(), prefixes.end());
    const std::string* best = nullptr;
    int64_t bestNumber = -1;
    for (const std::string& p : prefixes) {
        if (auto n = checkpointNumber(p); n && *n > bestNumber) {
            bestNumber = *n;
            best = &p;
        }
    }
    if (!best) {
        std::string names;
        for (const std::string& p : prefixes) names += (names.empty() ? "" : ", ") + platform::baseName(p);
        return invalidArgument(dir + " holds several checkpoints and no state file says which is latest; name one of: " + names);
    }
    return ResolvedCheckpoint{*best, "highest-numbered index"};
}

// Whether PREFIX.index is a file. Locally a stat. On a store (no real
// directories) one listing of the checkpoint's names ("ckpt-3."), which the
// backend remembers for a few seconds: opening the index and the data files
// next then costs no request of its own (a remote inspect in three: this
// listing, the index, the object graph). A prefix right under the bucket's
// name, or a listing that fails, gets the stat, whose errors name the index.
Result<bool> indexExists(const std::string& prefix) {
    const std::string index = indexFileName(prefix);
    const std::string dir = platform::dirName(prefix);
    bool found = false;
    if (!storage::capabilitiesFor(prefix).directories && storage::locationScheme(dir) == storage::locationScheme(prefix)) {
        storage::ListOptions names;
        names.namePrefix = platform::baseName(prefix) + ".";
        const std::string indexName = platform::baseName(index);
        size_t seen = 0;
        // One page is enough for a checkpoint's files; the visitor stops there.
        const Status listed = storage::list(dir, names, [&](const storage::ListEntry& e) {
            if (e.name == indexName && e.kind == storage::ObjectKind::File) found = true;
            return ++seen < 1000;
        });
        if (listed.isOk()) return found;
    }
    CKPT_ASSIGN_OR_RETURN(const std::optional<storage::ObjectInfo> info, storage::stat(index));
    return info.has_value();
}

}  // namespace

std::optional<std::string> savedModelVariablesPrefix(std::string_view dir) {
    std::string prefix = platform::joinPath(dir, "variables/variables");
    if (!storage::exists(indexFileName(prefix))) return std::nullopt;
    return prefix;
}

Result<ResolvedCheckpoint> resolveCheckpoint(std::string_view rawPath) {
    if (rawPath.empty()) return invalidArgument("empty checkpoint path");
    CKPT_RETURN_IF_ERROR(storage::checkLocation(rawPath));
    std::string path(rawPath);
    while (path.size() > 1 && path.back() == '/') path.pop_back();
    const std::string prefix = bundlePrefixOf(path);
    // A failed probe is not "nothing there": a wrong secret, a missing
    // bucket or no network must say so, not "no checkpoint".
    CKPT_ASSIGN_OR_RETURN(const bool index, indexExists(prefix));
    if (index) return ResolvedCheckpoint{prefix, "prefix"};
    if (storage::isDirectory(path)) return resolveDirectory(path);
    if (storage::exists(path))
        return invalidArgument(path + " is not a checkpoint: expected a prefix (with " + platform::baseName(prefix) +
                               ".index beside it), an .index file or a directory");
    return notFound("no checkpoint at " + path + ": neither " + prefix + ".index nor a directory exists");
}

Result<std::shared_ptr<const Checkpoint>> Checkpoint::open(std::string_view path) { return open(path, {}); }

Result<std::shared_ptr<const Checkpoint>> Checkpoint::open(std::string_view path, const CheckpointOpenOptions& options) {
    // The storage calls below take no token: the scope hands it to the
    // object-store transport, which drops a cancelled open's transfers.
    return platform::runCancellable(options.cancel, "opening " + std::string(path), [&] { return openUnderScope(path); });
}

Result<std::shared_ptr<const Checkpoint>> Checkpoint::openUnderScope(std::string_view path) {
    std::shared_ptr<Checkpoint> ckpt(new Checkpoint());
    CKPT_ASSIGN_OR_RETURN(ckpt->m_resolved, resolveCheckpoint(path));
    CKPT_ASSIGN_OR_RETURN(ckpt->m_bundle, BundleReader::open(ckpt->m_resolved.prefix));
    if (const TensorInfo* info = ckpt->m_bundle->find(kObjectGraphKey)) {
        CKPT_RETURN_IF_ERROR(format::checkObjectGraphEntry(*ckpt->m_bundle, *info));
        CKPT_ASSIGN_OR_RETURN(Tensor graphTensor, ckpt->m_bundle->read(*info));
        CKPT_ASSIGN_OR_RETURN(ObjectGraph graph,
                              format::parseObjectGraphEntry(*ckpt->m_bundle, *info, graphTensor.strings.at(0)));
        ckpt->m_graph = std::move(graph);
    }
    return std::shared_ptr<const Checkpoint>(std::move(ckpt));
}

const TensorInfo* Checkpoint::tensorForAttribute(const ObjectAttribute& attribute) const {
    return m_bundle->findKeyOrExtension(attribute.checkpointKey);
}

}  // namespace ckpt
