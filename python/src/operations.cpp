// The engine operations that read (verify, list, diff, history, retention)
// as _ckpt functions returning dicts keyed like `ckpt … --json`
// (docs/cli.md). Only conversion here: every figure comes from the engine.
// Long calls run through runCancellable (Ctrl-C, progress).

#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/string_view.h>
#include <nanobind/stl/vector.h>

#include <cmath>

#include "bindings.h"
#include "ckpt/checkpoint_diff.h"
#include "ckpt/checkpoint_history.h"
#include "ckpt/checkpoint_listing.h"
#include "ckpt/checkpoint_state.h"
#include "ckpt/retention.h"
#include "ckpt/verify.h"
#include "conversions.h"
#include "engine_call.h"
#include "python_errors.h"
#include "python_text.h"

namespace nb = nanobind;

namespace ckpt::python {
namespace {

nb::dict verifyDict(const VerifyReport& r) {
    nb::dict d;
    d["prefix"] = toPython(r.prefix);
    d["ok"] = r.ok();
    d["tensors_checked"] = r.tensorsChecked;
    d["bytes_checked"] = r.bytesChecked;
    d["data_files_checked"] = r.dataFilesChecked;
    d["problems"] = verifyProblems(r);
    return d;
}

nb::dict verify(const std::string& path, int threads, nb::object progress) {
    auto report = runCancellable<Result<VerifyReport>>(
        [&](const CallContext& call) {
            VerifyOptions options;
            options.threads = threads;
            options.cancel = call.cancel;
            options.progress = call.progress;
            return verifyCheckpointPath(path, options);
        },
        progress);
    return verifyDict(valueOrThrow(std::move(report)));
}

nb::dict listEntryDict(const CheckpointListEntry& c) {
    nb::dict d;
    d["prefix"] = toPython(c.prefix);
    d["number"] = optionalInt(c.step.number);
    d["step"] = optionalInt(c.step.step);
    d["step_source"] = c.step.source.empty() ? nb::none() : nb::object(toPython(c.step.source));
    d["mtime"] = c.modified;
    d["bytes"] = c.bytes;
    d["tensors"] = c.tensors;
    d["shards"] = c.shards;
    d["in_state_file"] = c.inStateFile;
    d["latest"] = c.isLatest;
    d["missing_shards"] = c.missingShards;
    d["stale_data_files"] = c.staleDataFiles;
    d["error"] = statusOrNone(c.error);
    if (c.metadata) {
        const CheckpointMetadata& m = *c.metadata;
        nb::dict md;
        md["step"] = optionalInt(m.step);
        md["saved_at"] = m.savedAt;
        md["owner"] = toPython(m.owner);
        md["tags"] = stringList(m.tags);
        nb::dict metrics;
        for (const auto& [name, value] : m.metrics) metrics[toPython(name)] = value;
        md["metrics"] = metrics;
        md["schedule"] = toPython(m.schedule);
        md["writer"] = toPython(m.writer);
        d["metadata"] = md;
    } else {
        d["metadata"] = nb::none();
    }
    d["metadata_error"] = statusOrNone(c.metadataError);
    return d;
}

nb::dict list(const std::string& path, bool countTensors) {
    auto listing = runReleased([&] {
        CheckpointListOptions options;
        options.countTensors = countTensors;
        return listCheckpoints(checkpointDirectoryFor(path), options);
    });
    const CheckpointListing l = valueOrThrow(std::move(listing));
    nb::list rows;
    for (const CheckpointListEntry& c : l.checkpoints) rows.append(listEntryDict(c));
    nb::dict d;
    d["directory"] = toPython(l.dir);
    d["checkpoints"] = rows;
    d["state_file_error"] = statusOrNone(l.stateFileError);
    return d;
}

// ---- diff ----------------------------------------------------------------

nb::object indexOrNone(int64_t flat, const TensorShape& shape) {
    if (flat < 0) return nb::none();
    nb::list out;
    for (int64_t i : unravelIndex(flat, shape)) out.append(i);
    return out;
}

nb::dict tensorDiffDict(const TensorDiff& t, const TensorShape& shape) {
    nb::list listed;
    for (const DifferingElement& e : t.firstMismatches) {
        nb::dict m;
        m["index"] = indexOrNone(e.index, shape);
        m["a"] = toPython(e.a);
        m["b"] = toPython(e.b);
        listed.append(m);
    }
    nb::dict d;
    d["elements"] = t.elements;
    d["mismatches"] = t.mismatches;
    d["mismatch_fraction"] = t.mismatchFraction();
    d["exact"] = t.exactCompare;
    d["atol"] = t.tolerance.atol;
    d["rtol"] = t.tolerance.rtol;
    d["max_abs_diff"] = t.maxAbsDiff;
    d["max_abs_index"] = indexOrNone(t.maxAbsIndex, shape);
    d["max_rel_diff"] = t.maxRelDiff;
    d["max_rel_index"] = indexOrNone(t.maxRelIndex, shape);
    d["mean_abs_diff"] = t.meanAbsDiff;
    d["rel_l2"] = t.relL2;
    d["cosine"] = t.cosine;
    d["norm_a"] = t.normA;
    d["norm_b"] = t.normB;
    d["nans_a"] = t.nansA;
    d["nans_b"] = t.nansB;
    d["infs_a"] = t.infsA;
    d["infs_b"] = t.infsB;
    d["nans_appeared"] = t.nansAppeared;
    d["nans_disappeared"] = t.nansDisappeared;
    d["infs_appeared"] = t.infsAppeared;
    d["infs_disappeared"] = t.infsDisappeared;
    d["from_checksums"] = t.fromChecksums;
    d["first_mismatches"] = listed;
    return d;
}

nb::object sideDict(const std::optional<DiffSide>& side) {
    if (!side) return nb::none();
    const DiffSide& s = *side;
    nb::dict d;
    d["path"] = toPython(s.path);
    d["bytes"] = s.bytes;
    if (!s.key.empty()) {
        d["key"] = toPython(s.key);
        d["dtype"] = dataTypeShortName(s.dtype);
        d["shape"] = dims(s.shape);
        if (!s.partitioned) d["crc32c"] = s.maskedCrc32c;
        d["partitioned"] = s.partitioned;
    }
    return d;
}

nb::dict diffDict(const CheckpointDiff& diff) {
    auto style = [](CheckpointStyle s) { return s == CheckpointStyle::ObjectBased ? "object-based" : "name-based"; };
    nb::list entries;
    for (const DiffEntry& e : diff.entries) {
        nb::dict d;
        d["status"] = std::string(1, diffStatusCode(e.status));
        d["status_name"] = diffStatusName(e.status);
        d["role"] = diffRoleName(e.role);
        d["path"] = toPython(e.displayPath());
        d["location"] = stringList(e.location);
        d["a"] = sideDict(e.a);
        d["b"] = sideDict(e.b);
        if (e.role == DiffRole::SlotVariable) {
            nb::dict slot;
            slot["variable"] = toPython(e.slotOf);
            slot["optimizer"] = toPython(e.optimizer);
            slot["name"] = toPython(e.slotName);
            d["slot"] = slot;
        }
        if (e.role == DiffRole::Object) d["members"] = e.members;
        if (e.collapsedInto >= 0) d["collapsed_into"] = e.collapsedInto;
        if (e.values) d["values"] = tensorDiffDict(*e.values, e.a->shape);
        entries.append(d);
    }
    const DiffCounts& c = diff.counts;
    nb::dict counts;
    counts["added"] = c.added;
    counts["deleted"] = c.deleted;
    counts["modified"] = c.modified;
    counts["type_changed"] = c.typeChanged;
    counts["renamed"] = c.renamed;
    counts["unchanged"] = c.unchanged;
    auto check = [](const DiffSideCheck& side) {
        nb::list problems;
        for (const VerifyProblem& p : side.problems) {
            nb::dict problem;
            problem["file"] = toPython(p.file);
            problem["key"] = toPython(p.key);
            problem["message"] = toPython(p.message);
            problems.append(problem);
        }
        nb::dict v;
        v["checked"] = side.full ? "full" : "index_and_state";
        v["ok"] = side.ok();
        v["problems"] = problems;
        return v;
    };
    nb::dict a, b, d;
    a["prefix"] = toPython(diff.prefixA);
    a["style"] = style(diff.styleA);
    a["verification"] = check(diff.checkA);
    b["prefix"] = toPython(diff.prefixB);
    b["style"] = style(diff.styleB);
    b["verification"] = check(diff.checkB);
    d["a"] = a;
    d["b"] = b;
    d["paired_by"] = diff.pairedByPath ? "object_path" : "checkpoint_key";
    d["equal"] = diff.equal();
    d["counts"] = counts;
    d["excluded"] = diff.excluded;
    d["bytes_read"] = diff.bytesRead;
    d["from_checksums"] = diff.fromChecksums;
    d["from_cache"] = diff.fromCache;
    d["entries"] = entries;
    return d;
}

nb::dict diff(const std::string& a, const std::string& b, bool weightsOnly, const std::vector<std::string>& includes,
              const std::vector<std::string>& excludes, std::optional<double> atol, std::optional<double> rtol, bool exact,
              bool nanEqual, int count, std::optional<std::string> slice, bool readAll, bool all, int threads,
              nb::object progress) {
    auto result = runCancellable<Result<CheckpointDiff>>(
        [&](const CallContext& call) {
            DiffOptions opt;
            opt.values.tolerance.atol = atol;
            opt.values.tolerance.rtol = rtol;
            opt.values.tolerance.exact = exact;
            opt.values.tolerance.nanEqual = nanEqual;
            opt.values.maxListed = count;
            opt.values.cpuThreads = threads;
            opt.slice = slice;
            opt.weightsOnly = weightsOnly;
            opt.includes = includes;
            opt.excludes = excludes;
            opt.trustChecksums = !readAll;
            opt.keepUnchanged = all;
            opt.cancel = call.cancel;
            opt.progress = call.progress;
            return diffCheckpoints(a, b, opt);
        },
        progress);
    return diffDict(valueOrThrow(std::move(result)));
}

// ---- history -------------------------------------------------------------

nb::object pointDict(const HistoryPoint& p) {
    if (!p.present) return nb::none();
    nb::dict d;
    d["unchanged"] = p.unchanged;
    d["numeric"] = p.numeric;
    d["count"] = p.count;
    d["norm"] = p.norm;
    d["rel_change"] = p.relChange;
    d["mean"] = p.mean;
    d["std"] = p.std;
    d["min"] = p.min;
    d["max"] = p.max;
    d["nans"] = p.nans;
    d["infs"] = p.infs;
    return d;
}

nb::dict history(const std::vector<std::string>& paths, const std::vector<std::string>& keys,
                 const std::vector<std::string>& excludes, bool weightsOnly, int threads, nb::object progress) {
    auto result = runCancellable<Result<CheckpointHistory>>(
        [&](const CallContext& call) {
            HistoryOptions opt;
            opt.includes = keys;
            opt.excludes = excludes;
            opt.weightsOnly = weightsOnly;
            opt.threads = threads;
            opt.cancel = call.cancel;
            opt.progress = call.progress;
            return computeHistory(paths, opt);
        },
        progress);
    const CheckpointHistory h = valueOrThrow(std::move(result));
    nb::list checkpoints, variables;
    for (const HistoryCheckpoint& c : h.checkpoints) {
        nb::dict d;
        d["prefix"] = toPython(c.prefix);
        d["name"] = toPython(c.name);
        d["step"] = optionalInt(c.step);
        checkpoints.append(d);
    }
    for (const VariableHistory& v : h.variables) {
        nb::list points;
        for (const HistoryPoint& p : v.points) points.append(pointDict(p));
        nb::dict d;
        d["path"] = toPython(v.path);
        d["key"] = toPython(v.key);
        d["dtype"] = dataTypeShortName(v.dtype);
        d["shape"] = dims(v.shape);
        d["total_rel_change"] = v.totalRelChange;
        d["first_non_finite"] = v.firstNonFinite ? nb::object(nb::int_(*v.firstNonFinite)) : nb::none();
        d["points"] = points;
        variables.append(d);
    }
    const HistorySummary& s = h.summary;
    nb::list norms, changes, moved;
    for (double v : s.globalNorm) norms.append(v);
    for (double v : s.globalRelChange) changes.append(v);
    for (int32_t i : s.movedMost) moved.append(toPython(h.variables[static_cast<size_t>(i)].path));
    nb::dict summary;
    summary["global_norm"] = norms;
    summary["global_rel_change"] = changes;
    summary["moved_most"] = moved;
    summary["first_non_finite"] = s.firstNonFinite ? nb::object(nb::int_(*s.firstNonFinite)) : nb::none();
    summary["first_non_finite_variable"] = s.firstNonFinite ? nb::object(toPython(s.firstNonFiniteVariable)) : nb::none();
    nb::dict d;
    d["checkpoints"] = checkpoints;
    d["variables"] = variables;
    d["summary"] = summary;
    d["bytes_read"] = h.bytesRead;
    d["skipped"] = stringList(h.skipped);
    return d;
}

// ---- retention -----------------------------------------------------------

nb::dict planDict(const RetentionPlan& plan, const RetentionPolicy& policy, const RetentionContext& context) {
    nb::list rows;
    for (const RetentionDecision& dec : plan.decisions) {
        const RetentionCandidate& c = dec.candidate;
        nb::dict d;
        d["name"] = toPython(c.name);
        d["prefix"] = toPython(c.prefix);
        d["step"] = optionalInt(c.step);
        d["time"] = c.time;
        d["bytes"] = c.bytes;
        d["owner"] = c.hasMetadata ? nb::object(toPython(c.owner)) : nb::none();
        d["complete"] = c.complete;
        d["verdict"] = retentionVerdictName(dec.verdict);
        d["kept_by"] = stringList(dec.keptBy);
        d["reason"] = toPython(dec.reason);
        rows.append(d);
    }
    nb::dict totals;
    totals["kept"] = plan.kept;
    totals["kept_bytes"] = plan.keptBytes;
    totals["deleted"] = plan.deleted;
    totals["deleted_bytes"] = plan.deletedBytes;
    totals["left_alone"] = plan.leftAlone;
    totals["left_alone_bytes"] = plan.leftAloneBytes;
    nb::dict d;
    d["directory"] = toPython(plan.dir);
    d["owner"] = toPython(context.owner);
    d["adopt"] = context.adoptForeign;
    d["at"] = context.now;
    d["policy"] = jsonToPython(retentionPolicyToJson(policy));
    d["checkpoints"] = rows;
    d["totals"] = totals;
    d["notes"] = stringList(plan.notes);
    d["last_preserved_timestamp"] =
        plan.lastPreservedTimestamp ? nb::object(nb::float_(*plan.lastPreservedTimestamp)) : nb::none();
    return d;
}

nb::dict retention(const std::string& dir, const std::string& policyJson, const std::string& owner, bool adopt, double now,
                   bool apply) {
    RetentionPolicy policy = valueOrThrow(parseRetentionPolicy(policyJson, "policy"));
    RetentionContext context;
    context.owner = owner;
    context.adoptForeign = adopt;
    context.now = now;
    auto plan = runReleased([&] { return planDirectoryRetention(dir, policy, context); });
    const RetentionPlan p = valueOrThrow(std::move(plan));
    nb::dict d = planDict(p, policy, context);
    if (apply) {
        auto applied = runReleased([&] { return applyRetention(p); });
        const RetentionApplyReport report = valueOrThrow(std::move(applied));
        nb::dict a;
        a["deleted"] = stringList(report.deleted);
        a["bytes_freed"] = report.bytesFreed;
        a["skipped"] = stringList(report.skipped);
        d["applied"] = a;
    }
    return d;
}

// TensorFlow's latest_checkpoint(dir): the state file's latest, if its
// index exists; None otherwise. DataLoss for a state file that is not one.
nb::object latest(const std::string& dir) {
    auto found = runReleased([&] { return latestCheckpoint(dir); });
    const std::optional<std::string> path = valueOrThrow(std::move(found));
    return path ? nb::object(toPython(*path)) : nb::none();
}

}  // namespace

void bindOperations(nb::module_& m) {
    m.def("latest_checkpoint", &latest, nb::arg("directory"),
          "TensorFlow's latest_checkpoint(dir): the state file's latest whose index exists, or None.");
    m.def("verify", &verify, nb::arg("path"), nb::arg("threads") = 0, nb::arg("progress") = nb::none(),
          "See ckpt.verify: `ckpt verify --json` as a dict.");
    m.def("list_checkpoints", &list, nb::arg("path"), nb::arg("count_tensors") = true,
          "See ckpt.list_checkpoints: `ckpt list --json` as a dict.");
    m.def("diff", &diff, nb::arg("a"), nb::arg("b"), nb::arg("weights_only"), nb::arg("include"), nb::arg("exclude"),
          nb::arg("atol").none(), nb::arg("rtol").none(), nb::arg("exact"), nb::arg("nan_equal"), nb::arg("count"),
          nb::arg("slice").none(), nb::arg("read_all"), nb::arg("all"), nb::arg("threads"), nb::arg("progress").none(),
          "See ckpt.diff: `ckpt diff --json` as a dict.");
    m.def("history", &history, nb::arg("paths"), nb::arg("keys"), nb::arg("exclude"), nb::arg("weights_only"), nb::arg("threads"),
          nb::arg("progress").none(), "See ckpt.history: `ckpt history --json` as a dict.");
    m.def("retention", &retention, nb::arg("dir"), nb::arg("policy_json"), nb::arg("owner"), nb::arg("adopt"), nb::arg("now"),
          nb::arg("apply"), "See ckpt.retention_plan / retention_apply: `ckpt retention plan|apply --json` as a dict.");
}

}  // namespace ckpt::python
