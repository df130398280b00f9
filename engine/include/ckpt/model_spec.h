#pragma once
// Restore targets that are not C++ code: a model-spec JSON file
// (docs/model-spec.md) or another checkpoint used as a template. Both become
// an ordinary Trackable graph; specs can be exported from any graph.
//   auto root = loadModelSpec("model.json");      // errors name the JSON path: $.objects[3].children[1].id
//   auto tmpl = programFromCheckpoint(**Checkpoint::open("runs/b"));
//   std::string json = modelSpecJson(**tmpl);     // what `ckpt spec` prints

#include <memory>
#include <string>
#include <string_view>

#include "ckpt/checkpoint.h"
#include "ckpt/status.h"
#include "ckpt/trackable.h"

namespace ckpt {

struct ModelSpecOptions {
    // false: variables are declared (Variable::declare: dtype and shape, no
    // values) and initial values are checked but not kept. For matching
    // without values and for import, which streams the values: a spec's
    // shapes then allocate nothing.
    bool values = true;
};

// InvalidArgument naming the JSON path of the problem for malformed specs,
// cycles, duplicate local names and slot references to missing objects,
// and for objects nested so deep that their paths would outgrow
// objectPathBudget of the spec's size (object_graph.h), as a checkpoint's
// graph would be refused. Linear in the spec's size.
Result<std::shared_ptr<Trackable>> parseModelSpec(std::string_view jsonText, std::string_view source = "model spec",
                                                  const ModelSpecOptions& options = {});
Result<std::shared_ptr<Trackable>> loadModelSpec(std::string_view path, const ModelSpecOptions& options = {});

// A program with the checkpoint's structure: containers, variables of the
// stored dtype/shape (zero values; no data is read), replicas for
// parallel_component_<i>, optimizers with their slots. Name-based
// checkpoints become a tree of their '/'-separated keys whose variables carry
// the key as full name. Edges that would close a cycle are left out.
Result<std::shared_ptr<Trackable>> programFromCheckpoint(const Checkpoint& checkpoint, const ModelSpecOptions& options = {});

// The graph as spec JSON (objects in breadth-first order, root first).
// includeValues adds each variable's current value as "initial_value".
std::string modelSpecJson(const Trackable& root, bool includeValues = false);

// What `ckpt restore --into TARGET` accepts: a *.json model spec, else a
// checkpoint (prefix, directory, SavedModel) used as a template.
Result<std::shared_ptr<Trackable>> openRestoreTarget(std::string_view target, const ModelSpecOptions& options = {});

}  // namespace ckpt
