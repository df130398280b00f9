#pragma once
// Shared by the libFuzzer harnesses (tests/fuzz/fuzz_*.cpp) and the seed
// generator (fuzz_seeds.cpp): a scratch directory for the harnesses that
// hand the engine files, and the sample checkpoints both sides write with
// the engine's own writer, so seed indexes point at valid data.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "ckpt/status.h"
#include "ckpt/trackable.h"

namespace ckpt::fuzz {

// A directory private to this process, made on first use (under /dev/shm
// when it exists: harnesses rewrite files on every input), removed at exit.
const std::string& scratchDir();

// Replaces 'path' with the bytes; aborts on failure (the harness cannot go on).
void writeInput(const std::string& path, std::string_view bytes);

// Aborts with 'what' when 'condition' fails: a property the engine promises
// (a round trip, a count) is broken.
void require(bool condition, const char* what);
// The same for an engine call that must succeed; prints its status.
void requireOk(const Status& status, const char* what);

// A bundle written with BundleWriter alone: fixed-size tensors of several
// dtypes, a string tensor, a partitioned tensor of two slices and an object
// graph. Deterministic: fuzz_index's data file and its seed index agree.
Status writeSampleBundle(const std::string& prefix);

// A small Keras-like program: a model with two dense layers, an Adam-style
// optimizer with slots, a step counter and a string variable.
Result<std::shared_ptr<Trackable>> sampleProgram();

}  // namespace ckpt::fuzz
