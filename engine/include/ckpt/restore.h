#pragma once
// Restores a checkpoint into a program's object graph the way
// tf.train.Checkpoint.restore does (docs/semantics.md, "Restore"): match from the root
// by local names, assign values to the objects that exist, and restore the
// rest when the program creates them. TF1 name-based checkpoints are matched
// by variable name; SavedModel directories use their variables bundle
// (Checkpoint::open resolves them).
// Call on the thread that owns the program graph.
//   auto ckpt = Checkpoint::open("runs/exp1");
//   auto root = loadModelSpec("model.json");            // or build Trackables in code
//   auto status = restoreCheckpoint(*ckpt, *root, {.assignmentMap = {{"encoder/", "model/encoder/"}}});
//   if (!status) return status.status();
//   Status consumed = status->assertConsumed();
//   MatchReport report = status->report();              // what the UI draws

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ckpt/cancellation.h"
#include "ckpt/checkpoint.h"
#include "ckpt/load_status.h"
#include "ckpt/status.h"
#include "ckpt/trackable.h"

namespace ckpt {

// One assignment-map entry: checkpoint paths under 'from' are matched as if
// they were under 'to' in the program (tf.train.init_from_checkpoint style).
// Both are key paths ("encoder/", "model/encoder") or pretty paths
// ("(root).encoder"); "" or "/" is the root. Name-based checkpoints map
// variable names the same way.
struct PathMapping {
    std::string from;
    std::string to;
};
// Parses "OLD=NEW" (as `ckpt restore --map` takes it).
Result<PathMapping> parsePathMapping(std::string_view text);

struct RestoreOptions {
    std::vector<PathMapping> assignmentMap;
    // Read and assign values. false: match and check dtypes/shapes against
    // the index only (fast previews; no data file is touched).
    bool readValues = true;
    // Like TensorFlow's eager optimizers, create a missing slot variable when
    // both its optimizer and its variable are matched. false: wait until the
    // program calls Optimizer::createSlot.
    bool createSlotsOnRestore = true;
    // CheckpointOptions(experimental_skip_slot_variables=True).
    bool skipSlotVariables = false;
    // Polled between the parts of every read while restoreCheckpoint()
    // runs: a cancelled restore returns Cancelled, and variables keep
    // whatever verified values they had already received (never unverified
    // bytes). Not owned; may be null. Not used by restores deferred past
    // the call (they run when the program creates the objects).
    const CancellationToken* cancel = nullptr;
    // (bytes read, bytes the checkpoint stores, "reading") during the call,
    // from reader threads; (total, total, "reading") at its end.
    ProgressSink progress;
};

// Where the engine chooses a behaviour TensorFlow leaves to the program:
//  - a VARIABLE_VALUE restored into a replicated variable reaches every
//    replica that has no parallel_component_<i> of its own;
//  - name-based matching of a variable without a full name uses its path of
//    local names joined with '/', and a slot without one "<variable name>/<slot>";
//  - program objects are named by their first breadth-first path, written
//    like checkpoint nodes ("(root).model.kernel"), in place of Python reprs.
// Fails only when the checkpoint cannot be used at all (unreadable object
// graph, a mapping that makes two checkpoint paths collide); mismatches are
// recorded in the status (LoadStatus::restoreErrors()) so the report stays whole.
Result<LoadStatus> restoreCheckpoint(const std::shared_ptr<const Checkpoint>& checkpoint, const std::shared_ptr<Trackable>& root,
                                     const RestoreOptions& options = {});
// Opens 'path' (prefix, directory or SavedModel) and restores it.
Result<LoadStatus> restoreCheckpoint(std::string_view path, const std::shared_ptr<Trackable>& root,
                                     const RestoreOptions& options = {});
// restore(None): the initialization-only status whose assertions always fail.
LoadStatus initializationOnlyStatus(std::shared_ptr<Trackable> root);

}  // namespace ckpt
