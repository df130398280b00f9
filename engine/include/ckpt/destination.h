#pragma once
// Where a writer may write: the one rule behind every command and dialog
// that writes a checkpoint or a file (restore --out, reshard, merge,
// average, edit, import, export, Save As, scheduled archives, the
// explorer's dialogs). It returns data — what is at the destination now
// and whether and why it is refused — which the CLI and the explorer word
// themselves (a flag to pass, a question to ask); the engine's operations
// apply the same rule before they write and fail with status().
//
// The rule:
//  - The path must name something: not empty, no control characters (a
//    newline in a name breaks every listing and log that shows it), and a
//    last component that is a name (not "", "." or "..").
//  - Sources of the operation and checkpoints open in the explorer are never
//    written, overwrite or not, in any spelling: paths are compared once
//    made absolute with symlinks and ".." resolved, and a checkpoint's
//    .index or data file stands for its prefix. Nothing is written inside
//    a source given as a directory.
//  - Its directory must be writable, judged before what is there. Something
//    there (a checkpoint at the prefix; for a file, the file) is replaced
//    only with 'overwrite', a directory never; replacements are written
//    beside it and swapped in once they verify (docs/reliability.md).
//
// Safe from any thread; it looks at the file system (stat calls, and the
// existing checkpoint's index, which it reads for the step and the tensor
// count), so the explorer runs it on jobPool().
//   DestinationRequest r{.path = "runs/exp1/ckpt-5", .sources = {"shipped/ckpt-1"}};
//   DestinationCheck c = checkDestination(r);
//   if (c.problem == DestinationProblem::Exists) ask(*c.existing);  // step, size, tensors
//   else if (!c.ok()) refuse(c.message);

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ckpt/status.h"

namespace ckpt {

enum class DestinationKind {
    Checkpoint,  // a prefix: <path>.index and <path>.data-*
    File,        // one file (an export's output)
};

struct DestinationRequest {
    std::string path{};  // as the user gave it
    DestinationKind kind = DestinationKind::Checkpoint;
    // What the operation reads: checkpoint paths (a prefix, an .index,
    // a directory) or plain files (an import's input, a model spec).
    std::vector<std::string> sources{};
    // Checkpoints open elsewhere (the explorer's open checkpoint).
    std::vector<std::string> open{};
    bool overwrite = false;
};

enum class DestinationProblem {
    None,
    BadPath,           // empty, a control character, no file name, a file where a directory must be
    IsDirectory,       // names a directory; a prefix or file in it was meant
    IsSource,          // a source of the operation (or one of its files)
    InsideSource,      // inside a source given as a directory
    IsOpen,            // a checkpoint open in the explorer
    IsCheckpointFile,  // a file destination that is part of a checkpoint or its state file
    Exists,            // something is there and 'overwrite' was not given
    CannotReplace,     // a checkpoint is there on storage without rename (an object store): never replaced
    NotWritable,       // its directory cannot be written (permissions, a read-only file system)
};
std::string_view destinationProblemName(DestinationProblem problem);  // "exists", "is-source", ...

// What is at the destination now.
struct ExistingDestination {
    bool checkpoint = true;       // false: a file
    std::optional<int64_t> step;  // checkpoint_step.h's step
    uint64_t bytes = 0;           // on disk: the index and its data files, or the file
    int64_t tensors = -1;         // -1 when the index cannot be read
    int32_t shards = 0;
    std::string error;  // why the index cannot be read
};

struct DestinationCheck {
    // Where the writer writes: the path as given, a checkpoint's ".index"
    // or data-file spelling taken back to its prefix.
    std::string path;
    std::string canonical;  // absolute, symlinks and ".." resolved: what was compared
    DestinationProblem problem = DestinationProblem::None;
    std::string conflict;  // the source or open checkpoint involved, as given
    // The problem in one line, naming the path (printable: control
    // characters escaped), without a remedy: callers add theirs.
    std::string message;
    // Set whenever something is there (also when it is not a problem
    // because 'overwrite' was given).
    std::optional<ExistingDestination> existing;

    bool ok() const { return problem == DestinationProblem::None; }
    // Writing replaces what is there.
    bool replaces() const { return ok() && existing.has_value(); }
    // OK, or the problem as a Status: AlreadyExists for Exists,
    // PermissionDenied for NotWritable, InvalidArgument for the rest.
    Status status() const;
};

DestinationCheck checkDestination(const DestinationRequest& request);

// "step 5, 7 tensors, 1.2 MiB" (a file: "1.2 MiB"): how messages describe
// what would be replaced.
std::string describeExisting(const ExistingDestination& existing);

// The refusal of a checkpoint already at 'path' where its storage cannot
// rename ('what': what is known of it, e.g. describeExisting's words): the
// destination check's and a save's commit-time check's one message.
std::string cannotReplaceMessage(std::string_view path, std::string_view what);

// A path as messages show it: control characters escaped ("\n", "\x1b").
std::string printablePath(std::string_view path);

}  // namespace ckpt
