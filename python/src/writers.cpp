// The engine operations that write (export, import, reshard, merge,
// average, edit) and restore against a model spec, as _ckpt functions
// returning dicts keyed like `ckpt … --json` (docs/cli.md). Destinations,
// verification and refusals are the engine's; only conversion here.

#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/string_view.h>
#include <nanobind/stl/vector.h>

#include "bindings.h"
#include "ckpt/convert.h"
#include "ckpt/destination.h"
#include "ckpt/match_report.h"
#include "ckpt/model_spec.h"
#include "ckpt/reshard.h"
#include "ckpt/restore.h"
#include "ckpt/restored_write.h"
#include "ckpt/surgery.h"
#include "conversions.h"
#include "engine_call.h"
#include "python_errors.h"
#include "python_text.h"

namespace nb = nanobind;

namespace ckpt::python {
namespace {

// --shards N | --max-shard-bytes B | --by-task; null: the pipeline's default.
std::shared_ptr<const ShardingPolicy> shardingPolicy(int shards, int64_t maxShardBytes, bool byTask) {
    if (static_cast<int>(shards > 0) + static_cast<int>(maxShardBytes > 0) + static_cast<int>(byTask) > 1)
        raise(StatusCode::InvalidArgument, "give at most one of shards, max_shard_bytes and by_task");
    if (shards < 0 || maxShardBytes < 0) raise(StatusCode::InvalidArgument, "shard counts and sizes must be positive");
    if (shards > 0) return std::make_shared<FixedShardCountPolicy>(shards);
    if (maxShardBytes > 0) return std::make_shared<MaxShardSizePolicy>(maxShardBytes);
    if (byTask) return std::make_shared<ShardByTaskPolicy>();
    return nullptr;
}

nb::dict surgeryDict(const SurgeryResult& r) {
    nb::dict d;
    d["prefix"] = toPython(r.stats.prefix);
    d["shards"] = r.stats.shards;
    d["tensors"] = r.stats.tensors;
    d["bytes"] = r.stats.dataBytes;
    d["seconds"] = r.stats.seconds;
    d["verified"] = r.verify.ok();
    d["notes"] = stringList(r.notes);
    if (r.base) {
        nb::dict base;
        base["prefix"] = toPython(r.base->prefix);
        base["step"] = optionalInt(r.base->step.step);
        base["step_source"] = toPython(r.base->step.source);
        d["base"] = base;
    }
    return d;
}

using SurgeryCall = std::function<Result<SurgeryResult>(const SurgeryOptions&)>;

SurgeryResult runSurgery(const SurgeryCall& call, std::shared_ptr<const ShardingPolicy> policy, bool overwrite,
                         nb::object progress) {
    auto result = runCancellable<Result<SurgeryResult>>(
        [&](const CallContext& context) {
            SurgeryOptions options;
            options.save.policy = policy;
            options.overwrite = overwrite;
            options.cancel = context.cancel;
            options.progress = context.progress;
            return call(options);
        },
        progress);
    return valueOrThrow(std::move(result));
}

nb::dict exportTo(const std::string& source, const std::string& output, const std::string& names, bool weightsOnly,
                  bool skipUnsupported, bool overwrite, nb::object progress) {
    const auto format = arrayFormatFromPath(output);
    if (!format) raise(StatusCode::InvalidArgument, "cannot tell the format of " + output + ": name it *.safetensors or *.npz");
    if (names != "paths" && names != "keys") raise(StatusCode::InvalidArgument, "names is \"paths\" or \"keys\", not " + names);
    auto result = runCancellable<Result<ExportResult>>(
        [&](const CallContext& context) {
            ExportOptions options;
            options.format = *format;
            options.names = names == "keys" ? ArrayNaming::Keys : ArrayNaming::ObjectPaths;
            options.weightsOnly = weightsOnly;
            options.skipUnsupported = skipUnsupported;
            options.overwrite = overwrite;
            options.cancel = context.cancel;
            options.progress = context.progress;
            return exportCheckpoint(source, output, options);
        },
        progress);
    const ExportResult r = valueOrThrow(std::move(result));
    nb::dict d;
    d["ok"] = true;
    d["source"] = toPython(r.sourcePrefix);
    d["output"] = toPython(r.output);
    d["format"] = arrayFormatName(*format);
    d["names"] = names;
    d["tensors"] = r.tensors;
    d["data_bytes"] = r.dataBytes;
    d["file_bytes"] = r.fileBytes;
    d["seconds"] = r.seconds;
    d["notes"] = stringList(r.notes);
    return d;
}

nb::dict importFrom(const std::string& input, const std::string& dst, const std::string& spec, bool overwrite, int shards,
                    int64_t maxShardBytes, bool byTask, nb::object progress) {
    const auto policy = shardingPolicy(shards, maxShardBytes, byTask);
    auto result = runCancellable<Result<ImportResult>>(
        [&](const CallContext& context) {
            ImportOptions options;
            options.save.policy = policy;
            options.overwrite = overwrite;
            options.cancel = context.cancel;
            options.progress = context.progress;
            return importArrays(input, dst, spec, options);
        },
        progress);
    const ImportResult r = valueOrThrow(std::move(result));
    nb::dict d;
    d["ok"] = true;
    d["input"] = toPython(input);
    d["format"] = arrayFormatName(r.format);
    d["prefix"] = toPython(r.stats.prefix);
    d["arrays"] = r.arrays;
    d["shards"] = r.stats.shards;
    d["entries"] = r.stats.tensors;
    d["seconds"] = r.stats.seconds;
    d["notes"] = stringList(r.notes);
    return d;
}

nb::dict reshard(const std::string& source, const std::string& dst, int shards, int64_t maxShardBytes, bool byTask,
                 bool overwrite) {
    const std::shared_ptr<const ShardingPolicy> policy = shardingPolicy(shards, maxShardBytes, byTask);
    if (!policy) raise(StatusCode::InvalidArgument, "reshard needs one of shards, max_shard_bytes or by_task");
    // saveCheckpointAs, as `ckpt reshard` runs it: its result says whether it replaced a checkpoint.
    const SurgeryResult r =
        runSurgery([&](const SurgeryOptions& o) { return saveCheckpointAs(source, dst, o); }, policy, overwrite, nb::none());
    nb::dict d;
    d["source"] = toPython(source);
    d["prefix"] = toPython(r.stats.prefix);
    d["shards"] = r.stats.shards;
    d["entries"] = r.stats.tensors;
    d["replaced"] = r.replaced;
    d["seconds"] = r.stats.seconds;
    return d;
}

nb::dict merge(const std::vector<std::string>& sources, const std::string& dst, bool overwrite, int shards, int64_t maxShardBytes,
               bool byTask, nb::object progress) {
    const SurgeryResult r = runSurgery([&](const SurgeryOptions& o) { return mergeCheckpoints(sources, dst, o); },
                                       shardingPolicy(shards, maxShardBytes, byTask), overwrite, progress);
    nb::dict d = surgeryDict(r);
    d["sources"] = stringList(sources);
    return d;
}

nb::dict average(const std::vector<std::string>& arguments, const std::string& dst, const std::string& method,
                 const std::vector<double>& weights, double emaDecay, double slerpT, int last, bool weightsOnly, bool overwrite,
                 int shards, int64_t maxShardBytes, bool byTask, nb::object progress) {
    AverageSpec spec;
    if (method == "mean") spec.method = AverageMethod::Mean;
    else if (method == "ema") spec.method = AverageMethod::Ema;
    else if (method == "slerp") spec.method = AverageMethod::Slerp;
    else raise(StatusCode::InvalidArgument, "method is \"mean\", \"ema\" or \"slerp\", not " + method);
    spec.weights = weights;
    spec.emaDecay = emaDecay;
    spec.slerpT = slerpT;
    spec.weightsOnly = weightsOnly;
    // As `ckpt merge --average` does: the destination is checked against
    // the arguments too (a directory stands for all its checkpoints).
    throwIfError(checkDestination({.path = dst, .sources = arguments, .overwrite = overwrite}).status());
    const std::vector<std::string> sources = valueOrThrow(expandAverageSources(arguments, last, spec.method));
    const SurgeryResult r = runSurgery([&](const SurgeryOptions& o) { return averageCheckpoints(sources, dst, spec, o); },
                                       shardingPolicy(shards, maxShardBytes, byTask), overwrite, progress);
    nb::dict d = surgeryDict(r);
    d["sources"] = stringList(sources);
    return d;
}

nb::dict edit(const std::string& source, const std::string& dst, const std::vector<std::pair<std::string, std::string>>& renames,
              const std::vector<std::string>& deletes, bool stripOptimizer,
              const std::vector<std::pair<std::string, std::string>>& sets, bool force, bool dryRun, bool overwrite, int shards,
              int64_t maxShardBytes, bool byTask, nb::object progress) {
    auto checkpoint = valueOrThrow(runReleased([&] { return Checkpoint::open(source); }));
    EditSpec spec;
    spec.renames = renames;
    spec.deletes = deletes;
    spec.stripOptimizer = stripOptimizer;
    spec.sets = sets;
    spec.force = force;
    const EditPlan plan = valueOrThrow(runReleased([&] { return planEdit(*checkpoint, spec); }));
    if (dryRun) {
        nb::list changes;
        for (const KeyChange& k : plan.keys) {
            if (k.kind == KeyChangeKind::Kept) continue;
            nb::dict c;
            c["kind"] = keyChangeKindName(k.kind);
            c["old_key"] = toPython(k.oldKey);
            if (!k.newKey.empty()) c["new_key"] = toPython(k.newKey);
            if (!k.detail.empty()) c["file"] = toPython(k.detail);
            changes.append(c);
        }
        nb::dict d;
        d["dry_run"] = true;
        d["source"] = toPython(plan.source);
        d["destination"] = toPython(dst);
        d["notes"] = stringList(plan.notes);
        d["kept"] = plan.count(KeyChangeKind::Kept);
        d["renamed"] = plan.count(KeyChangeKind::Renamed);
        d["deleted"] = plan.count(KeyChangeKind::Deleted);
        d["replaced"] = plan.count(KeyChangeKind::Replaced);
        d["changes"] = changes;
        return d;
    }
    const SurgeryResult r = runSurgery([&](const SurgeryOptions& o) { return applyEdit(plan, dst, o); },
                                       shardingPolicy(shards, maxShardBytes, byTask), overwrite, progress);
    nb::dict d = surgeryDict(r);
    d["source"] = toPython(plan.source);
    d["renamed"] = plan.count(KeyChangeKind::Renamed);
    d["deleted"] = plan.count(KeyChangeKind::Deleted);
    d["replaced"] = plan.count(KeyChangeKind::Replaced);
    return d;
}

nb::object errorDict(const Status& s) {
    if (s.isOk()) return nb::none();
    nb::dict d;
    d["code"] = statusCodeName(s.code());
    d["message"] = toPython(s.message());
    return d;
}

nb::dict restore(const std::string& source, const std::string& target, const std::vector<std::string>& maps,
                 const std::string& assertion, bool expectPartial, bool matchOnly, const std::string& out, bool force,
                 bool overwrite) {
    RestoreOptions options;
    options.readValues = !matchOnly;
    for (const std::string& m : maps) options.assignmentMap.push_back(valueOrThrow(parsePathMapping(m)));
    std::optional<Assertion> required;
    if (assertion == "consumed") required = Assertion::Consumed;
    else if (assertion == "existing") required = Assertion::ExistingObjectsMatched;
    else if (assertion == "nontrivial") required = Assertion::NontrivialMatch;
    else if (!assertion.empty())
        raise(StatusCode::InvalidArgument, "assertion is \"consumed\", \"existing\" or \"nontrivial\", not " + assertion);
    struct Outcome {
        std::string prefix;
        std::string report;
        Status failure;
        std::optional<RestoredWrite> written;
    };
    auto outcome = runCancellable<Result<Outcome>>([&](const CallContext& context) -> Result<Outcome> {
        CKPT_ASSIGN_OR_RETURN(auto program, openRestoreTarget(target));
        CKPT_ASSIGN_OR_RETURN(auto checkpoint, Checkpoint::open(source));
        CKPT_ASSIGN_OR_RETURN(LoadStatus status, restoreCheckpoint(checkpoint, program, options));
        if (expectPartial) status.expectPartial();
        Outcome o;
        o.prefix = checkpoint->prefix();
        o.report = matchReportJson(status.report());
        o.failure = restoreFailure(status, required);
        if (!out.empty()) {
            RestoredWriteOptions w;
            w.requiredAssertion = required;
            w.writeDespiteFailure = force;
            w.overwrite = overwrite;
            w.sources = {checkpoint->prefix(), target};  // what the restore read is never its output
            w.save.cancel = context.cancel;
            w.verify.cancel = context.cancel;
            o.written = writeRestoredVerified(status, out, w);
        }
        return o;
    });
    Outcome o = valueOrThrow(std::move(outcome));
    // A refused destination raises, as every other writer's does: a caller
    // who only looks for an exception must not take "not written" for done.
    if (o.written && !o.written->destination.ok()) throwIfError(o.written->destination.status());
    nb::dict d;
    d["source"] = toPython(o.prefix);
    d["target"] = toPython(target);
    d["requested_assertion"] = assertion.empty() ? nb::none() : nb::object(nb::str(assertion.c_str()));
    d["ok"] = o.failure.isOk();
    d["error"] = errorDict(o.failure);
    nb::dict report = nb::cast<nb::dict>(jsonToPython(o.report));
    for (auto [k, v] : report) d[k] = v;
    if (o.written) {
        const RestoredWrite& r = *o.written;
        nb::dict w;
        w["prefix"] = toPython(r.prefix);
        w["written"] = r.written();
        w["replaced"] = r.replaced;
        w["refused"] = r.refused;
        w["error"] = errorDict(r.error);
        if (r.stats) {
            w["shards"] = r.stats->shards;
            w["tensors"] = r.stats->tensors;
            w["data_bytes"] = r.stats->dataBytes;
        }
        if (r.verify) {
            nb::dict v;
            v["ok"] = r.verify->ok();
            v["tensors_checked"] = r.verify->tensorsChecked;
            v["bytes_checked"] = r.verify->bytesChecked;
            v["problems"] = verifyProblems(*r.verify);
            w["verify"] = v;
        } else {
            w["verify"] = nb::none();
        }
        d["out"] = w;
    } else {
        d["out"] = nb::none();
    }
    return d;
}

}  // namespace

void bindWriters(nb::module_& m) {
    m.def("export", &exportTo, nb::arg("source"), nb::arg("output"), nb::arg("names"), nb::arg("weights_only"),
          nb::arg("skip_unsupported"), nb::arg("overwrite"), nb::arg("progress").none(),
          "See ckpt.export: `ckpt export --json` as a dict.");
    m.def("import_arrays", &importFrom, nb::arg("input"), nb::arg("dst"), nb::arg("spec"), nb::arg("overwrite"),
          nb::arg("shards"), nb::arg("max_shard_bytes"), nb::arg("by_task"), nb::arg("progress").none(),
          "See ckpt.import_arrays: `ckpt import --json` as a dict.");
    m.def("reshard", &reshard, nb::arg("source"), nb::arg("dst"), nb::arg("shards"), nb::arg("max_shard_bytes"),
          nb::arg("by_task"), nb::arg("overwrite"), "See ckpt.reshard: `ckpt reshard --json` as a dict.");
    m.def("merge", &merge, nb::arg("sources"), nb::arg("dst"), nb::arg("overwrite"), nb::arg("shards"),
          nb::arg("max_shard_bytes"), nb::arg("by_task"), nb::arg("progress").none(),
          "See ckpt.merge: `ckpt merge --json` as a dict.");
    m.def("average", &average, nb::arg("sources"), nb::arg("dst"), nb::arg("method"), nb::arg("weights"), nb::arg("ema_decay"),
          nb::arg("slerp_t"), nb::arg("last"), nb::arg("weights_only"), nb::arg("overwrite"), nb::arg("shards"),
          nb::arg("max_shard_bytes"), nb::arg("by_task"), nb::arg("progress").none(),
          "See ckpt.average: `ckpt merge --average --json` as a dict.");
    m.def("edit", &edit, nb::arg("source"), nb::arg("dst"), nb::arg("renames"), nb::arg("deletes"), nb::arg("strip_optimizer"),
          nb::arg("sets"), nb::arg("force"), nb::arg("dry_run"), nb::arg("overwrite"), nb::arg("shards"),
          nb::arg("max_shard_bytes"), nb::arg("by_task"), nb::arg("progress").none(),
          "See ckpt.edit: `ckpt edit --json` as a dict.");
    m.def("restore", &restore, nb::arg("source"), nb::arg("target"), nb::arg("maps"), nb::arg("assertion"),
          nb::arg("expect_partial"), nb::arg("match_only"), nb::arg("out"), nb::arg("force"), nb::arg("overwrite"),
          "See ckpt.restore: `ckpt restore --json` as a dict.");
}

}  // namespace ckpt::python
