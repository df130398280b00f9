#include "manage/previous_run.h"

#include <algorithm>
#include <map>

#include "ckpt/checkpoint_metadata.h"
#include "ckpt/checkpoint_listing.h"

namespace ckpt::manage {
namespace {

// "<checkpointName>-<digits>": what a manager of this name writes.
bool isManagerName(std::string_view name, const std::string& checkpointName) {
    if (!name.starts_with(checkpointName) || name.size() < checkpointName.size() + 2) return false;
    if (name[checkpointName.size()] != '-') return false;
    const std::string_view digits = name.substr(checkpointName.size() + 1);
    return std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; });
}

struct Found {
    std::string prefix;
    std::optional<int64_t> order;  // step, else checkpoint number
    double time = 0;
};

void sortByStep(std::vector<Found>& found) {
    std::sort(found.begin(), found.end(), [](const Found& a, const Found& b) {
        if (a.order != b.order) return a.order < b.order;  // nullopt first
        return a.prefix < b.prefix;
    });
}

std::vector<std::string> prefixes(const std::vector<Found>& found) {
    std::vector<std::string> out;
    for (const Found& f : found) out.push_back(f.prefix);
    return out;
}

}  // namespace

Result<PreviousRunScan> scanPreviousRun(const std::string& directory, const std::string& checkpointName, const std::string& owner,
                                        const std::optional<CheckpointState>& state, CheckpointManagerOptions::PreviousRun mode) {
    // The state file's view: listed prefixes and their timestamps.
    std::map<std::string, double> listed;
    if (state) {
        for (size_t i = 0; i < state->allModelCheckpointPaths.size(); ++i)
            listed[resolveStatePath(directory, state->allModelCheckpointPaths[i])] =
                i < state->allModelCheckpointTimestamps.size() ? state->allModelCheckpointTimestamps[i] : 0;
        if (!state->modelCheckpointPath.empty()) listed.try_emplace(resolveStatePath(directory, state->modelCheckpointPath), 0);
    }
    // The engine's one directory listing: names, stored steps, metadata.
    auto listing = listCheckpoints(directory, {.countTensors = false});
    if (!listing.ok() && listing.status().code() != StatusCode::NotFound) return listing.status();
    std::vector<CheckpointListEntry> entries;
    if (listing.ok()) entries = std::move(listing->checkpoints);  // NotFound: created by the first save
    std::vector<Found> own, adopted, leftAlone, foreign;
    for (CheckpointListEntry& e : entries) {
        const std::string& name = e.name;
        const std::string& prefix = e.prefix;
        if (!e.metadataError.isOk()) {  // damaged: nobody may claim it
            foreign.push_back({prefix, e.step.number, 0});
            continue;
        }
        const std::optional<CheckpointMetadata>& metadata = e.metadata;
        const bool hasOwner = metadata && !metadata->owner.empty();
        if (hasOwner && metadata->owner == owner) {
            own.push_back({prefix, metadata->step ? metadata->step : e.step.number, metadata->savedAt});
            continue;
        }
        // A previous run: this manager's names, written by another owner, or
        // by a manager that records no owner (TensorFlow's) and listed it.
        const auto inState = listed.find(prefix);
        const bool previous = isManagerName(name, checkpointName) && (hasOwner || inState != listed.end());
        if (!previous) {
            foreign.push_back({prefix, e.step.number, 0});
            continue;
        }
        CheckpointMetadata m;
        if (metadata) {
            m = *metadata;
        } else {
            m.step = e.step.step;  // stored, else the checkpoint number
            m.savedAt = inState != listed.end() && inState->second > 0 ? inState->second : e.modified;
        }
        Found f{prefix, m.step ? m.step : e.step.number, m.savedAt};
        if (mode == CheckpointManagerOptions::PreviousRun::LeaveAlone) {
            leftAlone.push_back(std::move(f));
            continue;
        }
        // Recorded on disk, so the adoption survives this process.
        m.owner = owner;
        const Status written = writeCheckpointMetadata(prefix, m);
        if (!written.isOk()) return written.withContext("cannot adopt " + prefix);
        adopted.push_back(std::move(f));
    }
    for (auto* group : {&own, &adopted, &leftAlone, &foreign}) sortByStep(*group);
    PreviousRunScan scan;
    for (const auto* group : {&own, &adopted})
        for (const Found& f : *group) scan.managed.emplace_back(f.prefix, f.time);
    std::stable_sort(scan.managed.begin(), scan.managed.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
    scan.report.own = prefixes(own);
    scan.report.adopted = prefixes(adopted);
    scan.report.leftAlone = prefixes(leftAlone);
    scan.report.foreign = prefixes(foreign);
    return scan;
}

}  // namespace ckpt::manage
