// One scheduled run per source kind: see schedule_runs.h.
// The order inside a Directory run is what keeps a crash harmless at any
// moment: the copy and its metadata are written beside the destination,
// verified, and moved in together (the .index rename commits them), the
// state file then points at it, and only then does retention delete
// anything.

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
#include "ckpt/garbage_collection.h"
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

// What killed runs (or anything else) left in the destination, removed or
// completed before this run writes there (ckpt/garbage_collection.h); the
// run's note says so. Never fails the run: what cannot go stays listed by
// `ckpt gc`.
std::string collectLeftovers(const std::string& destination) {
    GarbageOptions options;
    options.apply = true;
    auto report = collectGarbage(destination, options);
    if (!report.ok() || report->removed == 0) return {};
    return "gc: removed " + std::to_string(report->removed) + " leftover(s), " + std::to_string(report->removedBytes) + " bytes";
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
    const std::string gcNote = collectLeftovers(schedule.destination);
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

    report(context, 0, static_cast<int64_t>(source->bytes), "copying " + source->name);
    // The copy and its metadata are written beside the destination and
    // moved in together once the copy verified: a failed or killed run
    // leaves nothing at the name (docs/reliability.md, "Replacing a checkpoint").
    ReshardOptions copy;
    copy.save = saveOptionsFor(schedule.sharding);
    copy.metadata = metadata;
    auto stats = reshardCheckpoint(source->prefix, prefix, copy);
    if (!stats.ok()) {
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
    if (!gcNote.empty()) o.note += "; " + gcNote;
    Status st = recordLatestCheckpoint(schedule.destination, name, startedAt);
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
    const std::string gcNote = collectLeftovers(schedule.destination);
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
    std::string lastSaved;
    auto run = runDemoTraining(options, [&](const DemoProgress& p) {
        if (p.savedPath) {
            saved.insert(*p.savedPath);
            lastSaved = *p.savedPath;
        }
        report(context, p.step, schedule.demoSteps, "training");
    });
    // Bytes of this run's checkpoints still in the destination (retention
    // may already have rotated the earliest ones out). A cancelled or failed
    // run counts what it committed before it stopped, as the log says.
    const auto savedBytes = [&] {
        uint64_t bytes = 0;
        if (auto listing = listCheckpoints(schedule.destination, CheckpointListOptions{.countTensors = false}); listing.ok())
            for (const CheckpointListEntry& e : listing->checkpoints)
                if (saved.count(e.prefix)) bytes += e.bytes;
        return bytes;
    };
    if (!run.ok()) {
        RunOutcome o = failed(run.status(), context.clock());
        o.bytes = savedBytes();
        o.checkpoint = lastSaved;
        if (!saved.empty()) o.note = std::to_string(saved.size()) + " saves before it stopped";
        return o;
    }

    RunOutcome o;
    o.result = RunResult::Ok;
    if (!run->saves.empty() && run->saves.back().savedPath) o.checkpoint = *run->saves.back().savedPath;
    o.bytes = savedBytes();
    o.note =
        std::to_string(saved.size()) + " saves, loss " + std::to_string(run->firstLoss) + " -> " + std::to_string(run->finalLoss);
    if (!gcNote.empty()) o.note += "; " + gcNote;
    o.endedAt = context.clock();
    return o;
}

}  // namespace ckpt::schedule
