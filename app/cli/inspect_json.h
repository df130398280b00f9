#pragma once
// The document `ckpt inspect --json` prints (docs/cli.md), streamed: one
// entry per tensor and per object-graph node, so it is written as it is
// walked rather than built as a DOM first.

#include "ckpt/checkpoint.h"
#include "ckpt/json_writer.h"

namespace ckpt::cli {

void writeInspectJson(JsonWriter& out, const Checkpoint& checkpoint);

}  // namespace ckpt::cli
