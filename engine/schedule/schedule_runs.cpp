// One scheduled run per source kind: see schedule_runs.h.
// The order inside a Directory run is what keeps a crash harmless at any
// moment: the copy's metadata is written first (an .info.json without an
// .index is ignored by every reader), the copy commits with its .index
// rename and is verified, the state file then points at it, and only then
// does retention delete anything.

#include "schedule/schedule_runs.h"

#include <algorithm>
#include <cstdio>
#include <set>
#include <vector>

#include "ckpt/bundle_naming.h"
#include "ckpt/checkpoint_listing.h"
#include "ckpt/checkpoint_metadata.h"
#include "ckpt/checkpoint_state.h"
#include "ckpt/demo_trainer.h"
#include "ckpt/reshard.h"
#include "ckpt/retention.h"
#include "storage/dispatch.h"
#include "platform/file.h"

namespace ckpt::schedule {
namespace {

RunOutcome failed(const Status& status, double endedAt) {
    RunOutcome o;
    o.result = status.code() == StatusCode::Cancelled ? RunResult::Interrupted : RunResult::Failed;
    o.error = status.toString();
    o.endedAt = endedAt;
    return o;
}

bool isCancelled(const RunContext& context) { return context.cancel && context.cancel->isCancelled(); }

void report(const RunContext& context, int64_t done, int64_t total, std::string_view phase) {
    if (context.progress) context.progress(done, total, phase);
}

// "<bytes>:<crc32c>" of a checkpoint's .index: the index names every
// tensor with its data file checksum, so an unchanged index is an
// unchanged checkpoint.
Result<std::string> indexFingerprint(const std::string& prefix) {
    CKPT_ASSIGN_OR_RETURN(auto file, storage::openRandomAccess(indexFileName(prefix)));
    CKPT_ASSIGN_OR_RETURN(uint32_t crc, storage::fileCrc32c(*file));
    char text[64];
    std::snprintf(text, sizeof text, "%llu:%08x", static_cast<unsigned long long>(file->size()), crc);
    return std::string(text);
}

// The state file's latest when it is complete, else the newest complete
// checkpoint by step (listCheckpoints orders by step, never by name).
const CheckpointListEntry* newestComplete(const CheckpointListing& listing) {
    const auto complete = [](const CheckpointListEntry& e) { return e.error.isOk() && e.missingShards == 0; };
    for (const CheckpointListEntry& e : listing.checkpoints)
        if (e.isLatest && complete(e)) return &e;
    for (auto it = listing.checkpoints.rbegin(); it != listing.checkpoints.rend(); ++it)
        if (complete(*it)) return &*it;
    return nullptr;
}

// Points the destination's state file at the new copy, keeping the
// entries whose checkpoints still exist.
Status recordInStateFile(const std::string& dir, const std::string& name, double now) {
    CKPT_ASSIGN_OR_RETURN(auto existing, readCheckpointState(dir));
    CheckpointState state;
    // Timestamps are kept only while they pair with the paths one to one.
    bool withTimes = true;
    if (existing) {
        withTimes = existing->allModelCheckpointTimestamps.size() == existing->allModelCheckpointPaths.size();
        state.lastPreservedTimestamp = existing->lastPreservedTimestamp;
        for (size_t i = 0; i < existing->allModelCheckpointPaths.size(); ++i) {
            const std::string& path = existing->allModelCheckpointPaths[i];
            if (platform::baseName(path) == name) continue;
            if (!storage::exists(indexFileName(resolveStatePath(dir, path)))) continue;
            state.allModelCheckpointPaths.push_back(path);
            if (withTimes) state.allModelCheckpointTimestamps.push_back(existing->allModelCheckpointTimestamps[i]);
        }
    }
    state.allModelCheckpointPaths.push_back(name);
    if (withTimes) state.allModelCheckpointTimestamps.push_back(now);
    state.modelCheckpointPath = name;
    return writeCheckpointState(dir, state);
}

// The schedule's retention over its destination, deleting only what the
// schedule wrote. Called only once the new checkpoint is durable.
Status applyScheduleRetention(const Schedule& schedule, double now, std::string& note) {
    if (schedule.retention.keepsEverything()) return okStatus();
    RetentionContext context;
    context.now = now;
    context.owner = scheduleOwner(schedule.name);
    CKPT_ASSIGN_OR_RETURN(RetentionPlan plan, planDirectoryRetention(schedule.destination, schedule.retention, context));
    CKPT_ASSIGN_OR_RETURN(RetentionApplyReport applied, applyRetention(plan));
    note += (note.empty() ? "" : "; ") + std::string("retention: deleted ") + std::to_string(applied.deleted.size()) + " (" +
            std::to_string(applied.bytesFreed) + " bytes), kept " + std::to_string(plan.kept);
    for (const std::string& n : plan.notes) note += "; " + n;
    return okStatus();
}

}  // namespace

RunOutcome runDirectorySchedule(const Schedule& schedule, RunContext& context) {
    report(context, 0, 0, "finding the source checkpoint");
    auto listing = listCheckpoints(schedule.sourcePath, CheckpointListOptions{.countTensors = false});
    if (!listing.ok()) return failed(listing.status().withContext("cannot read the source"), context.clock());
    const CheckpointListEntry* source = newestComplete(*listing);
    if (!source) {
        RunOutcome o;
        o.result = RunResult::Skipped;
        o.note = "no complete checkpoint in " + schedule.sourcePath + " yet";
        o.endedAt = context.clock();
        return o;
    }
    auto fingerprint = indexFingerprint(source->prefix);
    if (!fingerprint.ok()) return failed(fingerprint.status().withContext("cannot read the source"), context.clock());

    std::string name = source->name;
    std::string prefix = platform::joinPath(schedule.destination, name);
    if (storage::exists(indexFileName(prefix))) {
        auto archived = context.store.lastRunWithSource(schedule.id, *fingerprint);
        if (!archived.ok()) return failed(archived.status(), context.clock());
        if (*archived && (*archived)->checkpoint == prefix) {
            RunOutcome o;
            o.result = RunResult::Skipped;
            o.checkpoint = prefix;
            o.sourceCheckpoint = source->prefix;
            o.sourceFingerprint = *fingerprint;
            o.note = name + " already archived, unchanged since run " + std::to_string((*archived)->id);
            o.endedAt = context.clock();
            return o;
        }
        // A different checkpoint of the same name (the source run was
        // restarted): archived beside the old one, never over it.
        name += "-run" + std::to_string(context.runId);
        prefix = platform::joinPath(schedule.destination, name);
    }
    if (isCancelled(context)) return failed(cancelled("cancelled before the copy started"), context.clock());

    const double startedAt = context.clock();
    if (Status st = storage::createDirectories(schedule.destination); !st.isOk())
        return failed(st.withContext("cannot create the destination"), context.clock());
    CheckpointMetadata metadata;
    if (auto sourceMetadata = readCheckpointMetadata(source->prefix); sourceMetadata.ok() && *sourceMetadata) {
        metadata.metrics = (*sourceMetadata)->metrics;
        metadata.tags = (*sourceMetadata)->tags;
        metadata.step = (*sourceMetadata)->step;
    }
    if (!metadata.step) metadata.step = source->step.step;
    metadata.savedAt = startedAt;
    metadata.owner = scheduleOwner(schedule.name);
    metadata.schedule = schedule.name;
    metadata.writer = "ckpt-explorer scheduler";
    if (Status st = writeCheckpointMetadata(prefix, metadata); !st.isOk()) return failed(st, context.clock());

    report(context, 0, static_cast<int64_t>(source->bytes), "copying " + source->name);
    auto stats = reshardCheckpoint(source->prefix, prefix, saveOptionsFor(schedule.sharding));
    if (!stats.ok()) {
        // Nothing of this run may stay: a copy that committed but did not
        // verify is removed (the name was free before this run), and so is
        // the metadata written ahead of it.
        if (storage::exists(indexFileName(prefix))) (void)deleteCheckpointFiles(schedule.destination, name);
        (void)storage::remove(checkpointMetadataFileName(prefix));
        RunOutcome o = failed(stats.status(), context.clock());
        o.sourceCheckpoint = source->prefix;
        return o;
    }
    report(context, static_cast<int64_t>(source->bytes), static_cast<int64_t>(source->bytes), "copying " + source->name);

    RunOutcome o;
    o.checkpoint = prefix;
    o.sourceCheckpoint = source->prefix;
    o.sourceFingerprint = *fingerprint;
    o.bytes = checkpointBytesOnDisk(prefix);
    o.note = "copied " + source->prefix + " (step " + (metadata.step ? std::to_string(*metadata.step) : "unknown") + ")";
    Status st = recordInStateFile(schedule.destination, name, startedAt);
    report(context, 0, 0, "retention");
    if (st.isOk()) st = applyScheduleRetention(schedule, context.clock(), o.note);
    o.endedAt = context.clock();
    if (!st.isOk()) {
        o.result = RunResult::Failed;
        o.error = st.toString();
        return o;
    }
    o.result = RunResult::Ok;
    return o;
}

RunOutcome runDemoSchedule(const Schedule& schedule, RunContext& context) {
    if (isCancelled(context)) return failed(cancelled("cancelled before the demo run started"), context.clock());
    if (Status st = storage::createDirectories(schedule.destination); !st.isOk())
        return failed(st.withContext("cannot create the destination"), context.clock());
    DemoTrainOptions options;
    options.directory = schedule.destination;
    options.steps = schedule.demoSteps;
    options.async = schedule.async;
    options.maxShardBytes = schedule.sharding.maxShardBytes;
    SaveTriggers triggers = schedule.triggers;
    // everySeconds is the scheduler's interval between runs, not between
    // saves; a stop of the scheduler reaches the run through 'cancel', so
    // the run installs no signal handlers of its own.
    triggers.everySeconds.reset();
    triggers.onPreemption = false;
    if (triggers.any()) options.triggers = triggers;
    else options.saveEvery = schedule.demoSteps;  // the final step alone
    options.retention = schedule.retention;
    options.owner = scheduleOwner(schedule.name);
    options.schedule = schedule.name;
    options.cancel = context.cancel;
    // About every 1% of the steps, so the run's row advances between saves
    // (RunWatch throttles the writes); a call costs a lock and a copy.
    options.progressEvery = std::max<int64_t>(1, schedule.demoSteps / 100);
    std::set<std::string> saved;
    auto run = runDemoTraining(options, [&](const DemoProgress& p) {
        if (p.savedPath) saved.insert(*p.savedPath);
        report(context, p.step, schedule.demoSteps, "training");
    });
    if (!run.ok()) return failed(run.status(), context.clock());

    RunOutcome o;
    o.result = RunResult::Ok;
    if (!run->saves.empty() && run->saves.back().savedPath) o.checkpoint = *run->saves.back().savedPath;
    // Bytes of this run's checkpoints still in the destination (retention
    // may already have rotated the earliest ones out).
    if (auto listing = listCheckpoints(schedule.destination, CheckpointListOptions{.countTensors = false}); listing.ok())
        for (const CheckpointListEntry& e : listing->checkpoints)
            if (saved.count(e.prefix)) o.bytes += e.bytes;
    o.note =
        std::to_string(saved.size()) + " saves, loss " + std::to_string(run->firstLoss) + " -> " + std::to_string(run->finalLoss);
    o.endedAt = context.clock();
    return o;
}

}  // namespace ckpt::schedule
