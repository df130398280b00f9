#pragma once
// What changed between two checkpoints, git-style: every variable (and
// every other serialized value) of A and B paired by where it lives, with a
// status letter and, for pairs of one dtype and shape, a TensorDiff.
// `ckpt diff` prints it, the explorer's compare view shows it.
//   DiffOptions opt; opt.weightsOnly = true;
//   auto diff = diffCheckpoints("runs/a/ckpt-10", "runs/a/ckpt-20", opt);
//   if (!diff) return diff.status();   // the message names side A or B
//   for (const DiffEntry& e : diff->entries) print(diffStatusLetter(e.status), e.displayPath());
//
// Pairing (docs/cli.md "diff"): two object-based checkpoints by TensorFlow's
// object path ("(root).model.dense.kernel"), with slot variables under their
// variable and optimizer; otherwise by checkpoint key, an object-based
// side's variables by their TF1 name (full_name) where they record one, as
// TensorFlow's name-based restore pairs them. A value present on one
// side only is renamed (R) when the other side has exactly one unpaired
// value of the same dtype, shape, size and stored crc32c (or the rename of
// its parent object explains it); when every value below an object moved
// together, the object's rename is reported once, its values below it.
// Pairs whose stored crc32c and size agree are equal without reading data;
// the others are streamed part by part (two parts in memory per thread).

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ckpt/cancellation.h"
#include "ckpt/checkpoint.h"
#include "ckpt/status.h"
#include "ckpt/tensor_diff.h"
#include "ckpt/tensor_info.h"

namespace ckpt {

enum class DiffStatus { Unchanged, Added, Deleted, Modified, TypeChanged, Renamed };
char diffStatusLetter(DiffStatus status);  // ' ', 'A', 'D', 'M', 'T', 'R'
// The letter in machine-readable output, where a blank would vanish:
// '=' for unchanged, else diffStatusLetter.
char diffStatusCode(DiffStatus status);
std::string_view diffStatusName(DiffStatus status);  // "unchanged", "added", ...

enum class DiffRole {
    Variable,      // a variable's value (or a name-based checkpoint's key)
    SlotVariable,  // an optimizer's per-variable state
    Attribute,     // any other serialized value (replica components, hash tables, ...)
    Object,        // an object whose whole subtree was added, deleted or renamed
};
std::string_view diffRoleName(DiffRole role);  // "variable", "slot", "attribute", "object"

// One side of an entry, as that checkpoint stores it.
struct DiffSide {
    std::string path;  // object path for object-based pairing, else the key
    std::string key;   // checkpoint key ("" for Object rows)
    DataType dtype = DataType::Invalid;
    TensorShape shape;
    int64_t bytes = 0;          // stored bytes (a subtree's total for Object rows)
    uint32_t maskedCrc32c = 0;  // as stored; 0 for partitioned tensors
    bool partitioned = false;
};

struct DiffEntry {
    DiffStatus status = DiffStatus::Unchanged;
    DiffRole role = DiffRole::Variable;
    std::optional<DiffSide> a, b;  // absent on the side that lacks the value
    // Where the entry sits in a merged tree: the path's components on the
    // side that has it (B for renames), e.g. {"model", "dense", "kernel"};
    // a slot variable sits under its variable as "m (optimizer)".
    std::vector<std::string> location;
    // Slot variables: the variable, optimizer and slot they belong to.
    std::string slotOf, optimizer, slotName;
    // Pairs of equal dtype and shape: how their values differ.
    std::optional<TensorDiff> values;
    // Object rows: how many values moved (or came or went) with the object.
    int64_t members = 0;
    // Values inside a collapsed Object row: that row's index in entries.
    int32_t collapsedInto = -1;

    // B's path for additions, A's otherwise.
    const std::string& displayPath() const { return a ? a->path : b->path; }
};

struct DiffCounts {
    int64_t added = 0, deleted = 0, modified = 0, typeChanged = 0, renamed = 0, unchanged = 0;
    int64_t changed() const { return added + deleted + modified + typeChanged + renamed; }
    void count(DiffStatus status);  // one more row of that status
    DiffCounts& operator+=(const DiffCounts& other);
};

struct DiffOptions;

// Figures of pairs already compared, kept between runs (the catalog's
// results cache implements it: catalog_cache.h). Asked, on the diff's own
// thread, before a pair is read; told, on the same thread, after.
class DiffFigureCache {
public:
    virtual ~DiffFigureCache() = default;
    virtual std::optional<TensorDiff> find(const TensorInfo& a, const TensorInfo& b, const DiffOptions& options) = 0;
    virtual void store(const TensorInfo& a, const TensorInfo& b, const DiffOptions& options, const TensorDiff& diff) = 0;
};

struct DiffOptions {
    TensorDiffOptions values;            // tolerance, listed mismatches, threads
    std::optional<std::string> slice;    // parseDiffSlice text applied to every compared pair
    bool weightsOnly = false;            // ignore optimizer state, the save counter and the step counter
    std::vector<std::string> includes;   // globs (fnmatch) on paths and keys; empty: all
    std::vector<std::string> excludes;   // globs on paths and keys
    bool trustChecksums = true;          // equal crc32c + size => equal, without reading
    DiffFigureCache* figures = nullptr;  // pairs' figures from and into a cache; none: computed
    // Keep rows for unchanged values (they are counted either way); without
    // them two identical 100,000-value checkpoints cost no rows at all.
    bool keepUnchanged = true;
    const CancellationToken* cancel = nullptr;
    ProgressSink progress;  // bytes compared / total, phase "compare"
};

struct CheckpointDiff {
    std::string prefixA, prefixB;
    CheckpointStyle styleA = CheckpointStyle::ObjectBased, styleB = CheckpointStyle::ObjectBased;
    bool pairedByPath = false;  // object paths (both object-based), else checkpoint keys
    // Tensor rows (status order: by location, a variable's slots after it),
    // then collapsed Object rows' members keep their own rows too.
    std::vector<DiffEntry> entries;
    DiffCounts counts;          // over reported rows: an Object row counts once, its members not
    int64_t excluded = 0;       // values left out by weightsOnly / includes / excludes
    int64_t bytesRead = 0;      // tensor bytes read from both sides
    int64_t fromChecksums = 0;  // pairs answered by the checksum shortcut
    int64_t fromCache = 0;      // pairs answered by DiffOptions::figures

    bool equal() const { return counts.changed() == 0; }
};

struct CheckpointPair {
    std::shared_ptr<const Checkpoint> a, b;
};
// Opens both sides at once (for large graphs opening is most of a diff's
// work); errors name the side as diffCheckpoints words them.
Result<CheckpointPair> openCheckpointPair(std::string_view pathA, std::string_view pathB);

// 'pathA'/'pathB': anything Checkpoint::open accepts. Errors say which side:
// "A (runs/x): NotFound: ..." or "B (runs/y/ckpt-3): DataLoss: ...".
Result<CheckpointDiff> diffCheckpoints(std::string_view pathA, std::string_view pathB, const DiffOptions& options = {});
Result<CheckpointDiff> diffCheckpoints(const Checkpoint& a, const Checkpoint& b, const DiffOptions& options = {});

}  // namespace ckpt
