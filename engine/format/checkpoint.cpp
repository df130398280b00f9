#include "ckpt/checkpoint.h"

#include <algorithm>
#include <charconv>
#include <filesystem>

#include "ckpt/bundle_naming.h"
#include "ckpt/checkpoint_state.h"
#include "format/object_graph_entry.h"
#include "platform/file.h"

namespace ckpt {
namespace {

namespace fs = std::filesystem;

// "ckpt-12" -> 12; nullopt when the name has no trailing -N.
std::optional<long long> trailingNumber(const std::string& name) {
    const auto dash = name.rfind('-');
    if (dash == std::string::npos || dash + 1 == name.size()) return std::nullopt;
    long long n = 0;
    const char* first = name.data() + dash + 1;
    const char* last = name.data() + name.size();
    auto [ptr, ec] = std::from_chars(first, last, n);
    if (ec != std::errc() || ptr != last) return std::nullopt;
    return n;
}

Result<ResolvedCheckpoint> resolveDirectory(const std::string& dir) {
    const std::string savedModel = platform::joinPath(dir, "variables/variables");
    if (platform::pathExists(indexFileName(savedModel))) return ResolvedCheckpoint{savedModel, "SavedModel"};

    auto state = readCheckpointState(dir);
    if (state && *state && !(*state)->modelCheckpointPath.empty()) {
        const std::string prefix = resolveStatePath(dir, (*state)->modelCheckpointPath);
        if (platform::pathExists(indexFileName(prefix))) return ResolvedCheckpoint{prefix, "state file"};
    }

    std::vector<std::string> prefixes;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
        const std::string name = entry.path().filename().string();
        if (name.size() > 6 && name.ends_with(".index") && entry.is_regular_file(ec))
            prefixes.push_back(platform::joinPath(dir, name.substr(0, name.size() - 6)));
    }
    if (ec) return platform::statusFromErrno(ec.value(), "cannot list " + dir);
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
    long long bestNumber = -1;
    for (const std::string& p : prefixes) {
        if (auto n = trailingNumber(platform::baseName(p)); n && *n > bestNumber) {
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

}  // namespace

Result<ResolvedCheckpoint> resolveCheckpoint(std::string_view rawPath) {
    if (rawPath.empty()) return invalidArgument("empty checkpoint path");
    std::string path(rawPath);
    while (path.size() > 1 && path.back() == '/') path.pop_back();
    const std::string prefix = bundlePrefixOf(path);
    if (platform::pathExists(indexFileName(prefix))) return ResolvedCheckpoint{prefix, "prefix"};
    if (platform::isDirectory(path)) return resolveDirectory(path);
    if (platform::pathExists(path))
        return invalidArgument(path + " is not a checkpoint: expected a prefix (with " + platform::baseName(prefix) +
                               ".index beside it), an .index file or a directory");
    return notFound("no checkpoint at " + path + ": neither " + prefix + ".index nor a directory exists");
}

Result<std::shared_ptr<const Checkpoint>> Checkpoint::open(std::string_view path) {
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
