#pragma once
// Checkpoints whose every value is their number ("ckpt-7" holds 7.0
// everywhere), and the invariants a crash or a fault must never break in a
// directory of them. Shared by the fault-injection, kill and containment
// suites. Each check returns an empty string when it holds, else what broke.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ckpt/trackable.h"

namespace ckpt::testing {

struct NumberedProgram {
    std::shared_ptr<Trackable> root;
    std::vector<std::shared_ptr<Variable>> vars;

    NumberedProgram(int variables, int64_t elements);
    // Every element of every variable becomes 'value'.
    void fill(float value);
    // The next save is numbered n + 1 (what a restore would set).
    void setSaveCounter(int64_t n);
};

// The number in "<dir>/<name>-<number>" (or "...-<number>-run<id>", an
// archived second copy), or -1.
int64_t checkpointNumber(const std::string& prefix);

// Verifies every block and checks that each of the program's variables
// holds the checkpoint's number; with 'restore', also restores it into a
// fresh program (every object consumed) and checks the values there.
std::string checkNumbered(const std::string& prefix, int variables, int64_t elements, bool restore = true);

// The directory is consistent: the state file (if any) parses, its
// model_checkpoint_path is a complete checkpoint holding its number, every
// path it lists is a complete checkpoint (never one whose index is gone),
// and every .index in the directory belongs to a complete checkpoint.
std::string checkDirectory(const std::string& dir, int variables, int64_t elements);

}  // namespace ckpt::testing
