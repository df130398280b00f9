#pragma once
// A checkpoint as users name it: a prefix, a directory, or a SavedModel,
// opened into its bundle plus (for object-based checkpoints) its object graph.
//   auto ckpt = Checkpoint::open("runs/exp1");      // latest in the directory
//   if (!ckpt) { report(ckpt.status()); return; }
//   for (const TensorInfo& t : (*ckpt)->bundle().tensors()) ...

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "ckpt/bundle_reader.h"
#include "ckpt/cancellation.h"
#include "ckpt/object_graph.h"
#include "ckpt/status.h"

namespace ckpt {

enum class CheckpointStyle { ObjectBased, NameBased };

struct ResolvedCheckpoint {
    std::string prefix;
    // How the prefix was found: "prefix", "state file", "only index",
    // "highest-numbered index", "SavedModel".
    std::string how;
};

// Turns what a user typed into a bundle prefix:
//  - PREFIX, PREFIX.index or PREFIX.data-NNNNN-of-NNNNN;
//  - a directory: its `checkpoint` state file's latest (read first); without
//    one (or when it names a missing checkpoint) a SavedModel's variables
//    bundle, the only *.index, else the highest-numbered one.
Result<ResolvedCheckpoint> resolveCheckpoint(std::string_view path);

// The bundle prefix inside a SavedModel directory, "<dir>/variables/variables",
// when its index exists: the one test of "is this a SavedModel" that
// opening, listing, averaging and history share.
std::optional<std::string> savedModelVariablesPrefix(std::string_view dir);
inline bool isSavedModelDirectory(std::string_view dir) { return savedModelVariablesPrefix(dir).has_value(); }

struct CheckpointOpenOptions {
    // Cancel() stops the open: Cancelled, with a remote location's requests
    // dropped mid-transfer (within about 100 ms, docs/remote.md).
    const CancellationToken* cancel = nullptr;
};

class Checkpoint {
public:
    // Resolves, opens the index and decodes the object graph (one small
    // read of the data files). Errors name the file and the problem.
    static Result<std::shared_ptr<const Checkpoint>> open(std::string_view path);
    static Result<std::shared_ptr<const Checkpoint>> open(std::string_view path, const CheckpointOpenOptions& options);

    const std::string& prefix() const { return m_bundle->prefix(); }
    const ResolvedCheckpoint& resolved() const { return m_resolved; }
    const BundleReader& bundle() const { return *m_bundle; }
    CheckpointStyle style() const { return m_graph ? CheckpointStyle::ObjectBased : CheckpointStyle::NameBased; }
    // nullptr for name-based (TF1) checkpoints.
    const ObjectGraph* objectGraph() const { return m_graph ? &*m_graph : nullptr; }

    // The tensor an attribute's checkpoint_key names: exact key, else the
    // first key that extends it (legacy multi-spec saveables, docs/format.md, "Keys").
    const TensorInfo* tensorForAttribute(const ObjectAttribute& attribute) const;

private:
    Checkpoint() = default;
    static Result<std::shared_ptr<const Checkpoint>> openUnderScope(std::string_view path);
    ResolvedCheckpoint m_resolved;
    std::unique_ptr<BundleReader> m_bundle;
    std::optional<ObjectGraph> m_graph;
};

}  // namespace ckpt
