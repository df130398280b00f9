#pragma once
// A save schedule: where checkpoints come from, where they go, when, how
// they are sharded and which of them the destination keeps. Schedules are
// stored in the ScheduleStore (schedule_store.h) and run by the Scheduler
// (scheduler.h); `ckpt schedule add` and the explorer's Schedules view
// build them and check them with validateSchedule() before storing.
// Plain values: copy freely, use from any thread.
//   Schedule s;
//   s.name = "nightly"; s.source = ScheduleSource::Directory;
//   s.sourcePath = "/runs/a"; s.destination = "/archive/a";
//   s.triggers.everySeconds = 24 * 3600; s.retention.keepLatest = 7;
//   CKPT_RETURN_IF_ERROR(validateSchedule(s));   // "destination ... is inside the source ..."

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "ckpt/retention.h"
#include "ckpt/save.h"
#include "ckpt/save_triggers.h"
#include "ckpt/status.h"

namespace ckpt {

enum class ScheduleSource {
    // The latest complete checkpoint of sourcePath, copied (resharded and
    // verified) into the destination: backup / consolidation of a run.
    Directory,
    // The demo trainer run into the destination (the explorer's default).
    DemoTrainer,
    // A live program's ScheduledCheckpointer that registered itself: shown
    // and logged, never started by the scheduler (the program saves).
    Program,
};
// "directory", "demo", "program" (the JSON and CLI spelling).
std::string_view scheduleSourceName(ScheduleSource source);
std::optional<ScheduleSource> scheduleSourceFromName(std::string_view name);

// How the destination's checkpoints are sharded. Neither set: one shard
// per task (SaveOptions' default). At most one of the two may be set.
struct ScheduleSharding {
    std::optional<int64_t> maxShardBytes;  // MaxShardSizePolicy
    std::optional<int> shardCount;         // FixedShardCountPolicy
};
SaveOptions saveOptionsFor(const ScheduleSharding& sharding);

struct Schedule {
    int64_t id = 0;    // assigned by the store; 0 = not stored yet
    std::string name;  // unique in the store; letters, digits, '.', '_', '-'
    ScheduleSource source = ScheduleSource::Directory;
    // Directory: the directory whose latest checkpoint is copied.
    // Program: what the program says it is (its executable or run name).
    // DemoTrainer: unused (empty).
    std::string sourcePath;
    std::string destination;  // a directory; created on the first run
    // Directory and DemoTrainer: the scheduler starts a run every
    // triggers.everySeconds (required). DemoTrainer also passes every
    // trigger to the training run (every_steps etc. decide its saves).
    // Directory runs copy one checkpoint, so step triggers are refused.
    SaveTriggers triggers;
    RetentionPolicy retention;  // applied to the destination after each durable save
    ScheduleSharding sharding;
    bool async = false;  // DemoTrainer: asynchronous saves
    bool enabled = true;
    int64_t demoSteps = 200;  // DemoTrainer: training steps per run
    double createdAt = 0;     // seconds since the Unix epoch; set by the store
};

// The owner recorded in the metadata of checkpoints a schedule writes, and
// the only owner whose checkpoints its retention deletes: "schedule:<name>".
std::string scheduleOwner(std::string_view scheduleName);

// How often the scheduler starts the schedule (triggers.everySeconds);
// nullopt for Program schedules and schedules without an interval.
std::optional<double> scheduleInterval(const Schedule& schedule);

// InvalidArgument naming the problem in words a user understands (the
// explorer shows it as they type): an empty or ill-formed name, a missing,
// zero or negative interval, a trigger the source kind cannot honour, a
// bad retention policy or sharding, a destination equal to the source or
// inside it, a source inside the destination (canonical paths: symlinks
// and ".." resolved), a source directory that does not exist, or a
// destination that cannot be created (its nearest existing ancestor is not
// a writable directory). Reads the file system; creates nothing.
Status validateScheduleName(std::string_view name);
Status validateSchedule(const Schedule& schedule);

// {"id": 3, "name": "nightly", "source": "directory", "source_path": "/runs/a",
//  "destination": "/archive/a", "triggers": {...save_triggers.h...},
//  "retention": {...retention.h...}, "sharding": {"max_shard_bytes": 1048576}
//  or {"shards": 4} or {}, "async": false, "enabled": true, "demo_steps": 200,
//  "created_at": 1764000000.0}
// Parsing checks types and names the field in errors ('source' names the
// file or input); it does not call validateSchedule(). Unknown fields are errors.
std::string scheduleToJson(const Schedule& schedule);
Result<Schedule> parseSchedule(std::string_view json, std::string_view source);

}  // namespace ckpt
