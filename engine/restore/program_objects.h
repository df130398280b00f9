#pragma once
// The program side of a restore: the objects reachable from the root, named
// the way checkpoint nodes are named.

#include <memory>
#include <string>
#include <vector>

#include "ckpt/match_report.h"
#include "ckpt/trackable.h"

namespace ckpt::restore {

// A program object seen from the root (TensorFlow's list_objects).
struct ProgramObject {
    std::shared_ptr<Trackable> object;
    std::string path;
    ProgramObjectKind kind = ProgramObjectKind::Object;
    bool hasAttributes = false;
};
std::vector<ProgramObject> listProgramObjects(const std::shared_ptr<Trackable>& root, bool skipSlots);
// "<ckpt.Variable '(root).x' shape=(3,) dtype=float32>".
std::string describeProgramObject(const ProgramObject& o);

}  // namespace ckpt::restore
