// Saves by N writers (ckpt/distributed_save.h; docs/semantics.md, "Saves by N writers").

#include "ckpt/distributed_save.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <thread>

#include "ckpt/bundle_naming.h"
#include "ckpt/bundle_writer.h"
#include "ckpt/checkpoint_state.h"
#include "pipeline/bundle_merge.h"
#include "pipeline/parts_plan.h"
#include "pipeline/temp_files.h"
#include "platform/digest.h"
#include "platform/clock.h"
#include "platform/file.h"
#include "storage/dispatch.h"

namespace ckpt {
namespace {

using Clock = std::chrono::steady_clock;

constexpr size_t kMaxMarkerBytes = 4096;  // a done or abort marker, as read back
constexpr size_t kMaxReasonBytes = 2048;  // an abort marker's reason, as written
constexpr int kMergerRank = -1;           // abort-merger

std::string rankDigits(int rank) {
    char s[16];
    std::snprintf(s, sizeof s, "%05d", rank);
    return s;
}
std::string doneName(int rank) { return "done-" + rankDigits(rank); }
std::string abortName(int rank) { return rank == kMergerRank ? "abort-merger" : "abort-" + rankDigits(rank); }
std::string partPrefix(const std::string& area, int rank) { return platform::joinPath(area, "part-" + rankDigits(rank)); }
std::string planOf(const std::string& area) { return platform::joinPath(area, "plan"); }

// The rank a marker's name carries after 'head' ("done-00003" -> 3), or -1.
int markerRank(std::string_view name, std::string_view head, int world) {
    if (!name.starts_with(head) || name.size() != head.size() + 5) return -1;
    int rank = -1;
    const char* end = name.data() + name.size();
    if (std::from_chars(name.data() + head.size(), end, rank).ptr != end || rank < 0 || rank >= world) return -1;
    return rank;
}

Status checkPrefix(const std::string& prefix) {
    if (prefix.empty() || prefix.back() == '/' || !isPlainCheckpointName(platform::baseName(prefix)))
        return invalidArgument("invalid checkpoint prefix \"" + prefix + "\"");
    return storage::checkLocation(prefix);
}

Status alreadyCommitted(const std::string& prefix) {
    if (!storage::exists(indexFileName(prefix))) return okStatus();
    return {StatusCode::AlreadyExists, prefix + " is already committed (" + indexFileName(prefix) + " exists)"};
}

// What the parts area holds now: one listing.
struct AreaState {
    std::vector<bool> done;
    int doneCount = 0;
    std::vector<std::string> aborts;  // marker names
    bool plan = false;
};

Result<AreaState> scanArea(const std::string& area, int world) {
    AreaState state;
    state.done.assign(static_cast<size_t>(world), false);
    Status listed = storage::list(area, {}, [&](const storage::ListEntry& e) {
        if (e.kind != storage::ObjectKind::File) return true;
        if (e.name == "plan") state.plan = true;
        else if (e.name.starts_with("abort-") && state.aborts.size() < 16) state.aborts.push_back(e.name);
        else if (const int r = markerRank(e.name, "done-", world); r >= 0 && !state.done[static_cast<size_t>(r)]) {
            state.done[static_cast<size_t>(r)] = true;
            ++state.doneCount;
        }
        return true;
    });
    // A local area not created yet is an empty one (a store lists nothing).
    if (!listed.isOk() && listed.code() != StatusCode::NotFound) return listed;
    std::sort(state.aborts.begin(), state.aborts.end());
    return state;
}

// The failure an abort marker reports: its rank and its reason.
Status abortedBy(const std::string& prefix, const std::string& area, const std::string& marker) {
    const int rank = markerRank(marker, "abort-", kMaxWriters);
    const std::string who = rank >= 0 ? "rank " + std::to_string(rank) : "the merger";
    auto reason = storage::readSmallFile(platform::joinPath(area, marker), kMaxMarkerBytes);
    return failedPrecondition("the save of " + prefix + " was aborted by " + who + ": " +
                              (reason.ok() ? *reason : "(its reason could not be read: " + reason.status().toString() + ")"));
}

Status checkCancelled(const CancellationToken* cancel, const std::string& what) {
    if (cancel && cancel->isCancelled()) return cancelled(what + " cancelled");
    return okStatus();
}

// Polls 'ready' until it says true, with growing pauses (20 ms to 1 s),
// until 'deadline'; the token is checked every 50 ms. 'ready' returns a
// failure to stop at once. False at the deadline.
Result<bool> pollUntil(Clock::time_point deadline, const CancellationToken* cancel, const std::string& what,
                       const std::function<Result<bool>()>& ready) {
    auto pause = std::chrono::milliseconds(20);
    for (;;) {
        CKPT_RETURN_IF_ERROR(checkCancelled(cancel, what));
        CKPT_ASSIGN_OR_RETURN(const bool done, ready());
        if (done) return true;
        const auto now = Clock::now();
        if (now >= deadline) return false;
        const auto until = std::min(deadline, now + pause);
        while (Clock::now() < until) {
            CKPT_RETURN_IF_ERROR(checkCancelled(cancel, what));
            std::this_thread::sleep_for(std::min<Clock::duration>(std::chrono::milliseconds(50), until - Clock::now()));
        }
        pause = std::min(std::chrono::milliseconds(1000), pause * 3 / 2);
    }
}

std::string rankList(const std::vector<int>& ranks) {
    std::string s;
    for (size_t i = 0; i < ranks.size() && i < 20; ++i) s += (i ? ", " : "") + std::to_string(ranks[i]);
    if (ranks.size() > 20) s += " and " + std::to_string(ranks.size() - 20) + " more";
    return s;
}

// Rank 0 stores the plan; every other rank waits for it. Both compare.
// 'aborted' is set when another writer's abort marker stopped the wait.
Status agreeOnPlan(const std::string& prefix, const std::string& area, const pipeline::PartsPlan& plan, const WriterRank& writer,
                   const PartSaveOptions& options, bool& aborted) {
    const std::string path = planOf(area);
    if (writer.rank == 0) {
        auto written = storage::writeObject(path, plan.text, storage::WriteCondition::ifAbsent());
        if (written.ok()) return okStatus();
        if (written.status().code() != StatusCode::AlreadyExists) return written.status();
    } else {
        CKPT_ASSIGN_OR_RETURN(
            const bool there,
            pollUntil(Clock::now() + options.planTimeout, options.cancel, "the save of " + prefix, [&]() -> Result<bool> {
                CKPT_ASSIGN_OR_RETURN(const AreaState state, scanArea(area, writer.world));
                aborted = !state.aborts.empty();
                if (aborted) return abortedBy(prefix, area, state.aborts.front());
                return state.plan;
            }));
        if (!there)
            return failedPrecondition("rank 0 did not store the plan of the save of " + prefix + " in " + area + " within " +
                                      std::to_string(options.planTimeout.count()) + " ms");
    }
    CKPT_ASSIGN_OR_RETURN(const std::string stored, storage::readSmallFile(path, pipeline::kMaxPlanBytes));
    return pipeline::checkSamePlan(plan, writer.rank, stored, path);
}

Status addTensor(BundleWriter& writer, const SaveTensor& t) {
    if (t.source && t.slice)
        return writer.addSliceFromSource(t.key, t.fullShape, *t.slice, t.value.dtype, t.value.shape, *t.source, t.sourceOffset);
    if (t.source) return writer.addFromSource(t.key, t.value.dtype, t.value.shape, *t.source, t.sourceOffset);
    if (t.slice) return writer.addSlice(t.key, t.fullShape, *t.slice, t.data());
    return writer.add(t.key, t.data());
}

std::string doneText(const PartStats& stats) {
    return "rank " + std::to_string(stats.writer.rank) + " of " + std::to_string(stats.writer.world) + "\ndata " +
           platform::baseName(stats.dataFile) + "\ntensors " + std::to_string(stats.tensors) + "\nbytes " +
           std::to_string(stats.dataBytes) + "\nplan " + stats.planDigest + "\n";
}

// The data and partial index of this rank, then its done marker.
Status writeShare(const std::string& area, std::vector<SaveTensor>& tensors, const pipeline::PartsPlan& plan,
                  const PartSaveOptions& options, PartStats& stats) {
    const int rank = stats.writer.rank;
    CKPT_ASSIGN_OR_RETURN(auto bundle, BundleWriter::create(partPrefix(area, rank), {stats.dataFile}));
    for (size_t i = 0; i < tensors.size(); ++i) {
        if (plan.rankOf[i] != rank) continue;
        CKPT_RETURN_IF_ERROR(checkCancelled(options.cancel, "the save of " + stats.prefix));
        CKPT_RETURN_IF_ERROR(addTensor(*bundle, tensors[i]));
        ++stats.tensors;
        stats.dataBytes += tensors[i].byteSize();
    }
    CKPT_RETURN_IF_ERROR(bundle->finish());
    const std::string done = platform::joinPath(area, doneName(rank));
    auto written = storage::writeObject(done, doneText(stats), storage::WriteCondition::ifAbsent());
    if (written.status().code() == StatusCode::AlreadyExists)
        return {StatusCode::AlreadyExists, "rank " + std::to_string(rank) + " of the save in " + area + " finished already (" +
                                               done + " exists): two writers were given one rank"};
    return written.status();
}

std::string withoutNewlines(std::string s) {
    std::replace(s.begin(), s.end(), '\n', ' ');
    return s;
}

}  // namespace

Status checkSaveId(const std::string& saveId) {
    const bool valid =
        !saveId.empty() && saveId.size() <= 64 && saveId[0] != '.' && std::all_of(saveId.begin(), saveId.end(), [](char c) {
            return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
        });
    if (valid) return okStatus();
    return invalidArgument("invalid save id \"" + saveId.substr(0, 80) +
                           "\": 1 to 64 of A-Z a-z 0-9 . _ -, not starting with '.'");
}

std::string partsAreaOf(const std::string& prefix, const std::string& saveId) {
    return platform::joinPath(platform::dirName(prefix),
                              "." + platform::baseName(prefix) + std::string(pipeline::kPartsMarker) + saveId);
}

Status abortCheckpointParts(const std::string& prefix, const std::string& saveId, int rank, const std::string& reason) {
    CKPT_RETURN_IF_ERROR(checkPrefix(prefix));
    CKPT_RETURN_IF_ERROR(checkSaveId(saveId));
    const std::string area = partsAreaOf(prefix, saveId);
    CKPT_RETURN_IF_ERROR(storage::createDirectories(area));
    std::string text = withoutNewlines(reason.substr(0, kMaxReasonBytes));
    auto written = storage::writeObject(platform::joinPath(area, abortName(rank)), text, storage::WriteCondition::ifAbsent());
    if (written.status().code() == StatusCode::AlreadyExists) return okStatus();
    return written.status();
}

Result<PartStats> writeCheckpointPart(const std::string& prefix, const WriterRank& writer, std::vector<SaveTensor> tensors,
                                      const PartSaveOptions& options) {
    const auto start = Clock::now();
    CKPT_RETURN_IF_ERROR(checkWriterRank(writer));
    CKPT_RETURN_IF_ERROR(checkPrefix(prefix));
    CKPT_RETURN_IF_ERROR(checkSaveId(options.saveId));
    CKPT_RETURN_IF_ERROR(alreadyCommitted(prefix));
    CKPT_ASSIGN_OR_RETURN(const pipeline::PartsPlan plan, pipeline::planParts(tensors, writer.world));
    const std::string area = partsAreaOf(prefix, options.saveId);
    CKPT_RETURN_IF_ERROR(storage::createDirectories(area));
    {
        CKPT_ASSIGN_OR_RETURN(const AreaState state, scanArea(area, writer.world));
        if (!state.aborts.empty()) return abortedBy(prefix, area, state.aborts.front());
    }
    // From here on the merger waits for this rank: whatever fails tells it.
    const auto fail = [&](Status s) {
        (void)abortCheckpointParts(prefix, options.saveId, writer.rank, s.toString());
        return s;
    };
    bool aborted = false;
    // A rank that found an abort marker adds none of its own.
    if (Status s = agreeOnPlan(prefix, area, plan, writer, options, aborted); !s.isOk()) return aborted ? s : fail(s);
    PartStats stats;
    stats.prefix = prefix;
    stats.writer = writer;
    stats.dataFile = dataFileName(prefix, writer.rank, writer.world);
    stats.planDigest = plan.digest;
    if (Status s = writeShare(area, tensors, plan, options, stats); !s.isOk()) return fail(s);
    stats.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    return stats;
}

Result<PartsCommit> commitCheckpointParts(const std::string& prefix, int world, const PartsCommitOptions& options) {
    const auto start = Clock::now();
    CKPT_RETURN_IF_ERROR(checkWriterRank(WriterRank{0, world, {}}));
    CKPT_RETURN_IF_ERROR(checkPrefix(prefix));
    CKPT_RETURN_IF_ERROR(checkSaveId(options.saveId));
    CKPT_RETURN_IF_ERROR(alreadyCommitted(prefix));
    const std::string area = partsAreaOf(prefix, options.saveId);
    const std::string what = "the save of " + prefix;
    std::vector<int> missing;
    int lastReported = -1;
    CKPT_ASSIGN_OR_RETURN(const bool allDone, pollUntil(start + options.timeout, options.cancel, what, [&]() -> Result<bool> {
                              CKPT_ASSIGN_OR_RETURN(const AreaState state, scanArea(area, world));
                              if (!state.aborts.empty()) return abortedBy(prefix, area, state.aborts.front());
                              missing.clear();
                              for (int r = 0; r < world; ++r)
                                  if (!state.done[static_cast<size_t>(r)]) missing.push_back(r);
                              if (options.progress && state.doneCount != lastReported) {
                                  lastReported = state.doneCount;
                                  options.progress(state.doneCount, world, "waiting");
                              }
                              return missing.empty();
                          }));
    // Whatever stops the merge from here on stops the save's ranks too.
    const auto fail = [&](Status s) {
        (void)abortCheckpointParts(prefix, options.saveId, kMergerRank, s.toString());
        return s;
    };
    if (!allDone) {
        return fail(failedPrecondition("timed out after " + std::to_string(options.timeout.count()) + " ms waiting for " +
                                       std::to_string(missing.size()) + " of " + std::to_string(world) + " writers of " + prefix +
                                       ": no done marker from rank" + (missing.size() > 1 ? "s " : " ") + rankList(missing) +
                                       " in " + area));
    }
    PartsCommit commit;
    commit.prefix = prefix;
    commit.world = world;
    commit.waitSeconds = std::chrono::duration<double>(Clock::now() - start).count();
    if (options.progress) options.progress(world, world, "committing");

    // Every done marker must come from this plan: a marker of an attempt
    // with another plan (a reused save id) never joins this merge.
    auto plan = storage::readSmallFile(planOf(area), pipeline::kMaxPlanBytes);
    if (!plan.ok()) return fail(plan.status().withContext("the plan of " + what));
    const std::string planLine = "plan " + platform::sha256Hex(*plan) + "\n";
    std::vector<std::string> inputs, inputData;
    for (int r = 0; r < world; ++r) {
        const std::string done = platform::joinPath(area, doneName(r));
        auto marker = storage::readSmallFile(done, kMaxMarkerBytes);
        if (!marker.ok()) return fail(marker.status());
        if (!marker->starts_with("rank " + std::to_string(r) + " of " + std::to_string(world) + "\n") ||
            marker->find(planLine) == std::string::npos)
            return fail(dataLoss(done + " is not rank " + std::to_string(r) + "'s marker for this save's plan"));
        inputs.push_back(partPrefix(area, r));
        inputData.push_back(dataFileName(prefix, r, world));
    }
    auto merged = pipeline::mergeIndexEntries(inputs, inputData);
    if (!merged.ok()) return fail(merged.status());
    // Rank i's data file must become shard i: data files are named for their
    // final place before the merge, and nothing renames them.
    if (merged->dataFiles != inputData)
        return fail(dataLoss("the partial indexes in " + area + " do not name one data file per rank in rank order"));
    for (const std::string& data : inputData)
        if (!storage::isFile(data))
            return fail(notFound(data + " is missing: a writer's data file was removed before the commit"));
    commit.tensors = static_cast<int64_t>(merged->entries.size());
    if (Status s = pipeline::writeMergedIndex(prefix, *merged); !s.isOk())
        return s.code() == StatusCode::AlreadyExists ? s : fail(s);

    // Committed. The state file and the clean-up follow; a failure of either
    // is reported but takes nothing back.
    if (options.updateState) {
        const std::string dir = platform::dirName(prefix);
        CKPT_RETURN_IF_ERROR(recordLatestCheckpoint(dir, platform::baseName(prefix), platform::unixSeconds()));
    }
    CKPT_RETURN_IF_ERROR(storage::removeAll(area));
    commit.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    return commit;
}

}  // namespace ckpt
