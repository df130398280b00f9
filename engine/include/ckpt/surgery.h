#pragma once
// Checkpoint surgery from the files alone: merging bundles, averaging
// checkpoints, and editing one (renames, deletions, stripping the
// optimizer, replacing values). Sources are only read. The result is
// written through the save pipeline beside its destination, read back by
// verifyBundle and checked for a consistent object graph, and only then
// moved into place (ckpt/destination.h's rule: a source or an open
// checkpoint is never the destination, an existing checkpoint is replaced
// only with 'overwrite'). `ckpt merge`, `ckpt edit` and the explorer's
// actions share them.
//   SurgeryOptions o;
//   auto plan = planEdit(**Checkpoint::open("runs/a"), EditSpec{.stripOptimizer = true});
//   auto done = applyEdit(*plan, "/ship/model", o);   // done->notes: what was dropped

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ckpt/cancellation.h"
#include "ckpt/checkpoint.h"
#include "ckpt/checkpoint_metadata.h"
#include "ckpt/checkpoint_step.h"
#include "ckpt/object_graph.h"
#include "ckpt/save.h"
#include "ckpt/status.h"
#include "ckpt/tensor.h"
#include "ckpt/tensor_info.h"
#include "ckpt/verify.h"

namespace ckpt {

struct SurgeryOptions {
    SaveOptions save;
    // Replace a checkpoint already at the destination (never a source).
    bool overwrite = false;
    // Checkpoints open in the explorer: never the destination either.
    std::vector<std::string> open;
    // Written beside the result and moved into place with it (a scheduled
    // archive's owner and step); an existing checkpoint's metadata never
    // stays with its replacement.
    std::optional<CheckpointMetadata> metadata;
    ProgressSink progress;  // bytes read and written; phases "read", "write", "verify"
    const CancellationToken* cancel = nullptr;
};

// An average's base: the latest source by step, whose step counters,
// other tensors that are not floating point and object graph the result
// takes (averageCheckpoints).
struct AverageBase {
    std::string prefix;
    CheckpointStep step;  // its step and where it was read
};

struct SurgeryResult {
    SaveStats stats;
    VerifyReport verify;  // ok(): a result that does not verify is an error
    // What the user should know about the result, one line each: the
    // average's step and base, nodes dropped, graphs merged, ...
    std::vector<std::string> notes;
    bool replaced = false;                           // a checkpoint was at the destination and is now this one
    std::optional<AverageBase> base = std::nullopt;  // averages only
};

// ---- save as ---------------------------------------------------------------

// The source's every tensor and object graph unchanged, written with
// options.save's sharding (the explorer's Save As, `ckpt reshard`).
// Partitioned tensors are reassembled, then sharded again by the policy.
Result<SurgeryResult> saveCheckpointAs(const std::string& source, const std::string& dst, const SurgeryOptions& options);

// ---- merge ---------------------------------------------------------------

// TensorFlow's MergeV2Checkpoints for bundles written by several workers:
// disjoint keys combined into one bundle; slices of one partitioned tensor
// from several sources are combined when they agree on dtype and shape. The
// object graphs are combined by object path (identical graphs kept once).
// Conflicting keys are listed in the InvalidArgument error.
Result<SurgeryResult> mergeCheckpoints(const std::vector<std::string>& sources, const std::string& dst,
                                       const SurgeryOptions& options);

// ---- average -------------------------------------------------------------

enum class AverageMethod {
    Mean,   // weighted arithmetic mean (equal weights by default)
    Ema,    // exponential moving average over the sources in step order
    Slerp,  // spherical interpolation between two sources
};

struct AverageSpec {
    AverageMethod method = AverageMethod::Mean;
    std::vector<double> weights;  // Mean: one per source, normalized by their sum; empty = equal
    double emaDecay = 0.9;        // Ema: e = decay * e + (1 - decay) * x, starting at the first
    double slerpT = 0.5;          // Slerp: 0 = the first source, 1 = the second
    bool weightsOnly = false;     // drop the optimizer's state from the result
};

// What `ckpt merge --average` reads for its arguments: a checkpoint path
// as resolveCheckpoint takes it, or a directory, which stands for every
// checkpoint listed in it (a run, in step order). lastK > 0 keeps the K
// highest steps of the whole list. Ema orders the result by step.
Result<std::vector<std::string>> expandAverageSources(const std::vector<std::string>& arguments, int lastK, AverageMethod method);

// Whether the sources can be averaged at all: each opens, and all hold the
// same keys, dtypes and shapes (InvalidArgument naming the differences).
// Reads the indexes only; averageCheckpoints checks the same first.
Status checkAverageSources(const std::vector<std::string>& sources);
// Whether 'spec' applies to that many sources (at least two; Mean: one
// finite weight per source adding up to more than 0, or none; the EMA's
// decay and slerp's t in range, slerp on exactly two). No I/O: the
// explorer's Average dialog asks it as the fields are edited;
// averageCheckpoints checks the same first.
Status checkAverageSpec(const AverageSpec& spec, size_t sources);

// Same-structure checkpoints (the same keys, dtypes and shapes; the
// mismatches are named) combined value by value in float64. Tensors that
// are not floating point (step counters, strings) and the object graph are
// taken from the latest source (the highest step as checkpoint_step.h
// reads it, the last given among equals), which result.base names; notes
// say so. The result thus carries the newest checkpoint's step.
Result<SurgeryResult> averageCheckpoints(const std::vector<std::string>& sources, const std::string& dst, const AverageSpec& spec,
                                         const SurgeryOptions& options);

// ---- edit ----------------------------------------------------------------

// Paths name objects as the tree shows them: "(root).model.dense",
// "model.dense" (the root implied), or as keys do: "model/dense".
struct EditSpec {
    // OLD=NEW: the edge naming OLD is renamed (and moved, when NEW has
    // another parent; missing parents are created as plain objects).
    // Children, slot references and checkpoint keys below it follow.
    std::vector<std::pair<std::string, std::string>> renames;
    // The edge naming PATH is removed with whatever only it reached.
    std::vector<std::string> deletes;
    // Removes every optimizer and all slot variables.
    bool stripOptimizer = false;
    // KEY (a checkpoint key or a variable's path) = a .npy file whose
    // dtype and shape match the stored tensor.
    std::vector<std::pair<std::string, std::string>> sets;
    // Delete what a deletion would leave referring to removed objects
    // (slot variables of a deleted variable) instead of refusing.
    bool force = false;
};

enum class KeyChangeKind { Kept, Renamed, Deleted, Replaced };
std::string_view keyChangeKindName(KeyChangeKind kind);  // "kept", "renamed", ...

struct KeyChange {
    KeyChangeKind kind = KeyChangeKind::Kept;
    std::string oldKey;
    std::string newKey;  // empty when deleted
    std::string detail;  // Replaced: the .npy file
};

// What an edit will write, before anything is written: `ckpt edit
// --dry-run` prints it, the explorer previews its tree.
struct EditPlan {
    std::string source;  // the source's prefix
    std::vector<KeyChange> keys;
    std::vector<std::string> notes;
    // The result's object graph (nullopt for name-based checkpoints) and
    // its tensors by key (for buildDisplayTree; regions are the source's).
    std::optional<ObjectGraph> graph;
    std::string serializedGraph;
    std::vector<TensorInfo> tensors;
    std::map<std::string, Tensor> replacements;  // result key -> value (from --set)
    std::vector<std::string> missingKeys;        // named by the graph, already missing in the source

    int64_t count(KeyChangeKind kind) const;
};

// InvalidArgument for an unknown path, a rename onto an existing name, a
// deletion that would leave dangling references (named) without 'force',
// a .npy whose dtype or shape differs, an edit that changes nothing.
Result<EditPlan> planEdit(const Checkpoint& source, const EditSpec& spec);
Result<SurgeryResult> applyEdit(const EditPlan& plan, const std::string& dst, const SurgeryOptions& options);

}  // namespace ckpt
