#pragma once
// How exported arrays are named after the objects that own them
// (docs/convert.md, "Names"), and which of them are optimizer state.
// The same mapping names a model spec's variables on import, so an export
// named by object paths imports into a spec of the same structure.
//   model.dense.kernel                     (root).model.dense.kernel's VARIABLE_VALUE
//   model.dense.kernel:parallel_component_1  any other attribute
//   optimizer/m/model.dense.kernel         slot 'm' of (root).optimizer for that variable
//   save_counter                           (root).save_counter
// Keys that no object names (and every key of a name-based checkpoint) keep
// their checkpoint key as their name. Internal; pure functions.

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "ckpt/object_graph.h"

namespace ckpt::convert {

struct ArrayName {
    std::string name;
    bool optimizerState = false;  // a slot variable, or owned by an optimizer
};

// Checkpoint key -> its object-path name, for every attribute the graph
// names (a key shared by several attributes takes the first in node order).
std::map<std::string, ArrayName> objectPathNames(const ObjectGraph& graph);

// 'name' as an array may carry it (docs/convert.md, "Names that could leave
// a directory"): unchanged when every '/'-separated part is a plain file
// name, i.e. not empty, "." or "..", without '\\' or control characters;
// otherwise exactly those parts percent-encoded ("../x" -> "%2E%2E/x",
// "/x" -> "%2Fx", "a\\b" -> "a%5Cb"), so that no key, however hostile,
// makes an extractor that honours member paths write outside its directory.
std::string containedName(std::string_view name);

}  // namespace ckpt::convert
