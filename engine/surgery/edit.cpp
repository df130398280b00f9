// ckpt edit: renames, deletions, optimizer stripping and replaced values,
// planned against the source and then written to a new prefix.

#include <algorithm>
#include <map>

#include "ckpt/npy.h"
#include "ckpt/surgery.h"
#include "surgery/graph_edit.h"
#include "surgery/surgery_output.h"
#include "platform/cancellation_scope.h"

namespace ckpt {
namespace {

std::string joinLines(const std::vector<std::string>& lines, size_t most) {
    std::string out;
    for (size_t i = 0; i < lines.size() && i < most; ++i) out += (i ? "; " : "") + lines[i];
    if (lines.size() > most) out += "; and " + std::to_string(lines.size() - most) + " more";
    return out;
}

// Name-based checkpoints: paths are '/'-separated key prefixes.
bool underKeyPrefix(std::string_view key, std::string_view prefix) {
    return key == prefix || (key.starts_with(prefix) && key.size() > prefix.size() && key[prefix.size()] == '/');
}

Result<std::map<std::string, std::optional<std::string>>> planNameBased(const BundleReader& bundle, const EditSpec& spec,
                                                                        std::vector<std::string>& notes) {
    if (spec.stripOptimizer)
        return failedPrecondition(
            bundle.indexPath() + " is a name-based checkpoint: without an object graph its optimizer state cannot be told apart");
    std::map<std::string, std::optional<std::string>> keys;
    for (const TensorInfo& t : bundle.tensors()) keys.emplace(t.key, t.key);
    auto matching = [&](const std::string& prefix) {
        std::vector<std::string> hit;
        for (const auto& [key, now] : keys)
            if (now && underKeyPrefix(key, prefix)) hit.push_back(key);
        return hit;
    };
    for (const auto& [from, to] : spec.renames) {
        const std::vector<std::string> hit = matching(from);
        if (hit.empty()) return invalidArgument("no key \"" + from + "\" (or under it) in " + bundle.indexPath());
        if (!matching(to).empty())
            return invalidArgument("cannot rename \"" + from + "\" to \"" + to + "\": it exists in " + bundle.indexPath());
        for (const std::string& key : hit) keys[key] = to + key.substr(from.size());
        notes.push_back("renamed " + from + " to " + to + " (" + std::to_string(hit.size()) + " key(s))");
    }
    for (const std::string& path : spec.deletes) {
        const std::vector<std::string> hit = matching(path);
        if (hit.empty()) return invalidArgument("no key \"" + path + "\" (or under it) in " + bundle.indexPath());
        for (const std::string& key : hit) keys[key] = std::nullopt;
        notes.push_back("deleted " + path + " (" + std::to_string(hit.size()) + " key(s))");
    }
    return keys;
}

}  // namespace

std::string_view keyChangeKindName(KeyChangeKind kind) {
    switch (kind) {
    case KeyChangeKind::Kept: return "kept";
    case KeyChangeKind::Renamed: return "renamed";
    case KeyChangeKind::Deleted: return "deleted";
    case KeyChangeKind::Replaced: return "replaced";
    }
    return "kept";
}

int64_t EditPlan::count(KeyChangeKind kind) const {
    return std::count_if(keys.begin(), keys.end(), [&](const KeyChange& k) { return k.kind == kind; });
}

Result<EditPlan> planEdit(const Checkpoint& source, const EditSpec& spec) {
    const BundleReader& bundle = source.bundle();
    EditPlan plan;
    plan.source = source.prefix();
    for (const auto& [from, to] : spec.renames) CKPT_RETURN_IF_ERROR(surgery::checkRenameTarget(to));
    std::map<std::string, std::optional<std::string>> keys;
    std::optional<surgery::GraphEdit> edit;
    if (source.objectGraph()) {
        CKPT_ASSIGN_OR_RETURN(Tensor stored, bundle.read(kObjectGraphKey));
        if (stored.strings.size() != 1)
            return dataLoss(std::string(kObjectGraphKey) + " in " + bundle.indexPath() + " is not a scalar string");
        CKPT_ASSIGN_OR_RETURN(edit, surgery::GraphEdit::parse(stored.strings[0], bundle.indexPath()));
        const ObjectGraph& original = edit->original();
        for (const auto& [from, to] : spec.renames) {
            CKPT_RETURN_IF_ERROR(edit->rename(from, to));
            const bool treeForm = to.starts_with("(root)") || to.find('/') != std::string::npos;
            plan.notes.push_back("renamed " + edit->describe(from) + " to " + (treeForm ? to : "(root)." + to));
        }
        for (const std::string& path : spec.deletes) {
            CKPT_RETURN_IF_ERROR(edit->remove(path));
            plan.notes.push_back("deleted " + edit->describe(path));
        }
        if (spec.stripOptimizer) {
            CKPT_ASSIGN_OR_RETURN(std::vector<std::string> names, edit->stripOptimizers());
            for (const std::string& name : names) plan.notes.push_back("stripped optimizer " + name);
        }
        const std::vector<std::string> dangling = edit->danglingReferences(spec.force);
        if (!dangling.empty() && !spec.force)
            return invalidArgument("the edit would leave " + std::to_string(dangling.size()) +
                                   " dangling reference(s): " + joinLines(dangling, 5) + "; forcing the edit deletes them too");
        if (!dangling.empty())
            plan.notes.push_back("also deleted, as they referred to deleted objects: " + joinLines(dangling, 5));
        CKPT_ASSIGN_OR_RETURN(surgery::GraphEdit::Finished finished, edit->finish());
        if (finished.removedBelow > 0)
            plan.notes.push_back(std::to_string(finished.removedBelow) + " object(s) below them removed too");
        if (finished.removedSlots > 0) plan.notes.push_back(std::to_string(finished.removedSlots) + " slot variable(s) removed");
        if (finished.removedUnreachable > 0)
            plan.notes.push_back(std::to_string(finished.removedUnreachable) +
                                 " object(s) no path from the root reached in the source were dropped");
        keys = surgery::mapStoredKeys(original, finished.keyMap, bundle.tensors());
        keys[std::string(kObjectGraphKey)] = std::string(kObjectGraphKey);
        plan.serializedGraph = std::move(finished.serialized);
        plan.graph = std::move(finished.graph);
    } else {
        CKPT_ASSIGN_OR_RETURN(keys, planNameBased(bundle, spec, plan.notes));
    }

    // Values replaced from .npy files, checked against what they replace.
    std::map<std::string, std::string> replacedFrom;  // source key -> file
    for (const auto& [target, file] : spec.sets) {
        const TensorInfo* info = bundle.find(target);
        if (!info && edit) {
            if (auto id = edit->resolve(target); id.ok())
                for (const ObjectAttribute& a : edit->original().node(*id).attributes)
                    if (a.name == kVariableValue) info = bundle.findKeyOrExtension(a.checkpointKey);
        }
        if (!info || info->key == kObjectGraphKey)
            return invalidArgument("--set " + target + ": no tensor or variable \"" + target + "\" in " + bundle.indexPath());
        if (!keys.at(info->key)) return invalidArgument("--set " + target + ": the edit deletes \"" + info->key + "\"");
        CKPT_ASSIGN_OR_RETURN(Tensor value, readNpyFile(file));
        if (value.dtype != info->dtype || value.shape != info->shape)
            return invalidArgument("--set " + target + ": " + file + " holds " + std::string(dataTypeName(value.dtype)) +
                                   value.shape.toString() + " but \"" + info->key + "\" is " +
                                   std::string(dataTypeName(info->dtype)) + info->shape.toString());
        replacedFrom[info->key] = file;
        plan.replacements[*keys.at(info->key)] = std::move(value);
    }

    for (const TensorInfo& t : bundle.tensors()) {
        if (t.key == kObjectGraphKey) {
            plan.tensors.push_back(t);
            continue;
        }
        KeyChange change;
        change.oldKey = t.key;
        const std::optional<std::string>& now = keys.at(t.key);
        if (!now) {
            change.kind = KeyChangeKind::Deleted;
        } else {
            change.newKey = *now;
            change.kind = *now == t.key ? KeyChangeKind::Kept : KeyChangeKind::Renamed;
            if (auto r = replacedFrom.find(t.key); r != replacedFrom.end()) {
                change.kind = KeyChangeKind::Replaced;
                change.detail = r->second;
            }
            TensorInfo moved = t;
            moved.key = *now;
            plan.tensors.push_back(std::move(moved));
        }
        plan.keys.push_back(std::move(change));
    }
    std::sort(plan.tensors.begin(), plan.tensors.end(), [](const TensorInfo& a, const TensorInfo& b) { return a.key < b.key; });
    if (plan.count(KeyChangeKind::Kept) == static_cast<int64_t>(plan.keys.size()) && plan.notes.empty())
        return invalidArgument("the edit changes nothing in " + bundle.indexPath());
    if (plan.graph) {
        std::vector<std::string> sorted;
        for (const TensorInfo& t : plan.tensors) sorted.push_back(t.key);
        plan.missingKeys = surgery::missingAttributeKeys(*plan.graph, sorted);
        if (!plan.missingKeys.empty())
            plan.notes.push_back(std::to_string(plan.missingKeys.size()) +
                                 " key(s) the object graph names were already missing in the source");
    }
    return plan;
}

Result<SurgeryResult> applyEdit(const EditPlan& plan, const std::string& dst, const SurgeryOptions& options) {
    const platform::CancellationScope scope(options.cancel);  // stops object-store transfers in flight
    // The --set files are read too: never written over.
    std::vector<std::string> sources{plan.source};
    for (const KeyChange& k : plan.keys)
        if (k.kind == KeyChangeKind::Replaced) sources.push_back(k.detail);
    CKPT_ASSIGN_OR_RETURN(const std::string target, surgery::checkedDestination(dst, sources, options));
    CKPT_ASSIGN_OR_RETURN(auto reader, BundleReader::open(plan.source));
    std::map<std::string_view, const KeyChange*> changes;
    for (const KeyChange& k : plan.keys) changes.emplace(k.oldKey, &k);
    int64_t total = 0, done = 0;
    for (const TensorInfo& t : reader->tensors()) total += t.storedBytes();
    std::vector<SaveTensor> tensors;
    for (const TensorInfo* t : surgery::inDataOrder(*reader)) {
        if (t->key == kObjectGraphKey) continue;
        CKPT_RETURN_IF_ERROR(surgery::checkCancelled(options));
        auto change = changes.find(t->key);
        if (change == changes.end())
            return failedPrecondition(plan.source + " changed since the edit was planned: \"" + t->key + "\" is new");
        const KeyChange& k = *change->second;
        if (k.kind == KeyChangeKind::Deleted) continue;
        if (k.kind == KeyChangeKind::Replaced) {
            SaveTensor st;
            st.key = k.newKey;
            st.value = plan.replacements.at(k.newKey);
            st.fullShape = st.value.shape;
            tensors.push_back(std::move(st));
        } else {
            CKPT_ASSIGN_OR_RETURN(SaveTensor st, surgery::storedTensorForSave(*reader, *t, k.newKey));
            tensors.push_back(std::move(st));
        }
        done += t->storedBytes();
        if (options.progress) options.progress(done, total, "read");
    }
    if (plan.graph) tensors.push_back(surgery::graphTensor(plan.serializedGraph));
    return surgery::writeVerified(target, std::move(tensors), options, plan.notes, plan.missingKeys);
}

}  // namespace ckpt
