#pragma once
// The one progress line of every long command (diff, history, export,
// import, merge, edit, reshard, restore, catalog scan, schedule run-now):
// "\rcomparing  42%" rewritten in place on stderr when stderr is a
// terminal, nothing otherwise (a pipe or a log file stays clean).

#include <string>

#include "ckpt/cancellation.h"

namespace ckpt::cli {

// A sink that prints 'label' (or, when empty, the engine's phase: "read",
// "verify", "copying ckpt-3") and the percentage when the total is known.
// Repeats of the same line are skipped. Thread-safe: engine workers report
// from their own threads.
ProgressSink terminalProgress(std::string label);
// Clears the line terminalProgress printed (nothing for an empty sink).
void clearTerminalProgress(const ProgressSink& sink);

}  // namespace ckpt::cli
