#pragma once
// Retention: which checkpoints of a directory to keep and which to delete,
// decided as a plan before anything is deleted (`ckpt retention plan`, the
// explorer's retention preview, the checkpoint manager and the scheduler
// all use this one planner). A checkpoint is kept when any rule keeps it
// (rules are a union); then the safety invariants override every rule:
//   - only owned checkpoints are ever deleted: metadata whose owner is the
//     context's owner (checkpoint_metadata.h); foreign ones are left alone
//     unless the context adopts them explicitly;
//   - the newest complete checkpoint, the state file's latest, the best by
//     the metric rule and any pinned one (tagged "pin", "best" or one of the
//     policy's keep_tags) are never deleted;
//   - nothing younger than minAge is deleted;
//   - steps come from the checkpoint itself (metadata or stored step), and
//     order is numeric, never by name.
// The disk budget then deletes the oldest unprotected kept checkpoints
// until the total kept fits (or says it cannot); foreign checkpoints are
// not counted against it. Rules judge only owned, complete checkpoints;
// an owned incomplete one (data file missing, index unreadable) is
// deleted unless an invariant protects it.
//   auto policy = parseRetentionPolicy(R"({"keep_latest": 3, "keep_daily": 7})", "policy.json");
//   auto plan = planDirectoryRetention("/runs/a", *policy, {.now = nowSeconds(), .owner = "run-a"});
//   for (const RetentionDecision& d : plan->decisions) print(d.name, d.verdict, d.reason);
//   CKPT_RETURN_IF_ERROR(applyRetention(*plan).status());

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ckpt/status.h"

namespace ckpt {

struct BestRule {
    std::string metric;  // a key of CheckpointMetadata::metrics
    int count = 1;
    enum class Mode { Min, Max } mode = Mode::Min;
    // A checkpoint without the metric: Keep keeps it (it cannot be judged),
    // Ignore leaves it to the other rules.
    enum class IfMissing { Keep, Ignore } ifMissing = IfMissing::Ignore;
};

// restic's --keep-hourly/daily/...: for each of the last N periods that
// have a checkpoint, keep the newest checkpoint in it.
struct CalendarRule {
    int hourly = 0, daily = 0, weekly = 0, monthly = 0, yearly = 0;
    bool utc = false;  // periods in UTC instead of local time
    bool any() const { return hourly || daily || weekly || monthly || yearly; }
};

struct RetentionPolicy {
    std::optional<int> keepLatest;            // the newest N by step
    std::optional<double> keepOnePerHours;    // TensorFlow's keep_checkpoint_every_n_hours, with keepLatest as max_to_keep
    std::optional<int64_t> keepEverySteps;    // the first checkpoint of each N-step bucket
    std::optional<double> keepWithinSeconds;  // saved less than this long ago
    CalendarRule calendar;
    std::optional<BestRule> best;
    std::vector<std::string> keepTags;        // pinned: any checkpoint carrying one of these tags
    double minAgeSeconds = 0;                 // nothing younger is deleted
    std::optional<uint64_t> diskBudgetBytes;  // total size of what is kept

    // No rule that selects (keep_tags, min_age and the disk budget only
    // protect or trim): everything is kept, then the budget applies.
    bool keepsEverything() const;
};

// InvalidArgument naming the field: zero or negative counts and intervals,
// a best rule without a metric, ...
Status validateRetentionPolicy(const RetentionPolicy& policy);

// JSON (docs/scheduling.md): {"keep_latest": 5, "keep_one_per_hours": 2,
// "keep_every_steps": 1000, "keep_within": "7d", "keep_hourly": 24,
// "keep_daily": 7, "keep_weekly": 4, "keep_monthly": 12, "keep_yearly": 1,
// "calendar_utc": false, "keep_best": {"metric": "val_loss", "count": 3,
// "mode": "min", "if_missing": "ignore"}, "keep_tags": ["pin"],
// "min_age": "1h", "disk_budget": "50GiB"}. Durations are seconds or
// "90s", "30m", "12h", "7d", "2w"; sizes bytes or "500MB", "2GiB". Unknown
// fields are errors (a typo must not silently keep or delete).
Result<RetentionPolicy> parseRetentionPolicy(std::string_view json, std::string_view source);
std::string retentionPolicyToJson(const RetentionPolicy& policy);

// "90s" / "30m" / "12h" / "7d" / "2w" or plain seconds; "500MB", "2GiB" or bytes.
Result<double> parseDuration(std::string_view text);
Result<uint64_t> parseByteSize(std::string_view text);

// One checkpoint as retention sees it.
struct RetentionCandidate {
    std::string prefix;  // absolute or as listed
    std::string name;    // base name, "ckpt-12"
    std::optional<int64_t> step;
    double time = 0;  // metadata savedAt, else the .index mtime
    uint64_t bytes = 0;
    std::map<std::string, double> metrics;
    std::vector<std::string> tags;
    std::string owner;  // empty: no metadata, foreign
    bool hasMetadata = false;
    bool complete = true;  // index readable and every data file present
    std::string problem;   // why it is not complete ("1 data file missing")
    bool isStateLatest = false;
    // Listed in the state file's all_model_checkpoint_paths, with its
    // all_model_checkpoint_timestamps entry when it has one (what
    // keep_one_per_hours judges, as TensorFlow's CheckpointManager does).
    bool inStateFile = false;
    std::optional<double> stateTimestamp = std::nullopt;
    // Why it may not be touched whatever the rules say (a name or state-file
    // path that leaves the directory, an index that is a symlink out of it).
    std::string unsafe;
    // The .index as seen when listed: applyRetention deletes nothing whose
    // index has changed since (a save reused the name).
    uint64_t indexBytes = 0;
    double indexModified = 0;
};

struct RetentionContext {
    double now = 0;             // wall seconds; tests inject any time
    std::string owner;          // deletes only this owner's checkpoints
    bool adoptForeign = false;  // treat checkpoints without metadata as owned
    // The state file's last_preserved_timestamp, where keep_one_per_hours
    // counts from; nullopt when the directory has no state file.
    // planDirectoryRetention reads it from the directory.
    std::optional<double> lastPreservedTimestamp = std::nullopt;
};

enum class RetentionVerdict {
    Keep,        // a rule or an invariant keeps it
    Delete,      // owned, and nothing keeps it
    LeaveAlone,  // not ours (foreign, another owner) or unsafe to touch
};
std::string_view retentionVerdictName(RetentionVerdict verdict);  // "keep", "delete", "leave"

struct RetentionDecision {
    RetentionCandidate candidate;
    RetentionVerdict verdict = RetentionVerdict::Keep;
    // Every rule or invariant that keeps it ("latest 3", "daily 2026-11-24",
    // "newest complete", "pinned: pin", "best val_loss #1", "younger than min age").
    std::vector<std::string> keptBy;
    // For Delete and LeaveAlone: why ("no rule keeps it", "over the disk
    // budget", "incomplete: 1 data file missing", "foreign: no metadata").
    std::string reason;
};

struct RetentionPlan {
    std::string dir;                           // empty for plans over a given list
    std::vector<RetentionDecision> decisions;  // in step order (then time, then name), oldest first
    uint64_t keptBytes = 0, deletedBytes = 0, leftAloneBytes = 0;
    int kept = 0, deleted = 0, leftAlone = 0;
    std::vector<std::string> notes;  // "disk budget 10 GiB cannot be met: 12 GiB protected"
    // keep_one_per_hours only: the last_preserved_timestamp TensorFlow's
    // manager would record after this sweep; applyRetention writes it into
    // the state file it rewrites.
    std::optional<double> lastPreservedTimestamp = std::nullopt;
};

// Pure: no I/O. Candidates in any order.
RetentionPlan planRetention(std::vector<RetentionCandidate> candidates, const RetentionPolicy& policy,
                            const RetentionContext& context);

// The candidates of a directory: listCheckpoints plus each checkpoint's
// metadata and the state file's latest. NotFound / PermissionDenied as
// listCheckpoints; a damaged metadata file makes its checkpoint unsafe.
Result<std::vector<RetentionCandidate>> retentionCandidates(std::string_view dir);
Result<RetentionPlan> planDirectoryRetention(std::string_view dir, const RetentionPolicy& policy,
                                             const RetentionContext& context);

struct RetentionApplyReport {
    std::vector<std::string> deleted;  // prefixes
    uint64_t bytesFreed = 0;
    // Planned deletions not carried out, each with why ("ckpt-3: changed since planning").
    std::vector<std::string> skipped;
};

// Deletes the plan's Delete decisions: for each, the .index first, then its
// data files and .info.json, only entries directly inside plan.dir with
// exactly those names (a symlink is unlinked, never followed). Re-checks
// that each checkpoint is still there and unchanged since planning. The
// state file is rewritten first, without the checkpoints about to go and
// without any already gone (commitCheckpointState's rule), so it is true at
// every instant; that happens even when nothing is deleted, which repairs
// a state file naming missing checkpoints. Stops at the first error.
// The unchanged check compares each candidate's indexBytes/indexModified
// with the .index now, so plans to apply come from planDirectoryRetention
// (or candidates from retentionCandidates); a candidate built by hand
// without them is skipped, never deleted blind.
Result<RetentionApplyReport> applyRetention(const RetentionPlan& plan);

// The one function that removes a checkpoint's files (the manager's
// rotation and applyRetention): index first, then data files, then metadata.
Status deleteCheckpointFiles(std::string_view dir, std::string_view name);

}  // namespace ckpt
