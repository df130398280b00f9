#pragma once
// Converting checkpoints to and from the array files other frameworks
// read: safetensors and numpy's npz (docs/convert.md). Export streams one
// tensor at a time from a checkpoint (checksummed reads) into a temp file
// beside the output, fsyncs it, reads it back and compares every value
// bit for bit with the source, then renames it into place: on any failure
// (disk full, cancel, a mismatch) nothing is left but the error. Import
// fills a model spec's variables from the arrays, writes a checkpoint
// through the save pipeline, verifies it and compares its values back.
// Sources are only read. Callable from any thread; one call per output.
//   ExportOptions o;
//   o.format = ArrayFormat::Safetensors;
//   auto done = exportCheckpoint("runs/a", "/ship/model.safetensors", o);
//   auto back = importArrays("/ship/model.safetensors", "/runs/b/ckpt", "model.json", {});

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ckpt/cancellation.h"
#include "ckpt/checkpoint.h"
#include "ckpt/save.h"
#include "ckpt/status.h"

namespace ckpt {

enum class ArrayFormat { Safetensors, Npz };
std::string_view arrayFormatName(ArrayFormat format);  // "safetensors", "npz"
// From a file name's extension (".safetensors", ".npz"); nullopt otherwise.
std::optional<ArrayFormat> arrayFormatFromPath(std::string_view path);

// How arrays are named (docs/convert.md, "Names").
enum class ArrayNaming {
    ObjectPaths,  // "model.dense.kernel", "optimizer/m/model.dense.kernel"
    Keys,         // the checkpoint keys as stored
};

// A checkpoint's tensors under the names export gives them (docs/convert.md,
// "Names"): the object path where the object graph names the key, else
// the key itself. The object graph's own entry is left out. In key order;
// 'info' points into the checkpoint, which must outlive the list. Python's
// ckpt.Checkpoint.keys() lists the same names.
struct NamedTensor {
    const TensorInfo* info = nullptr;
    std::string name;
    bool optimizerState = false;  // a slot variable, or owned by an optimizer
};
std::vector<NamedTensor> namedTensors(const Checkpoint& checkpoint);

struct ExportOptions {
    ArrayFormat format = ArrayFormat::Safetensors;
    ArrayNaming names = ArrayNaming::ObjectPaths;
    bool weightsOnly = false;      // leave out optimizers and slot variables
    bool skipUnsupported = false;  // leave out tensors the format cannot hold (a note each), else an error
    bool overwrite = false;        // replace an existing output file
    ProgressSink progress;         // bytes; phases "write", "check"
    const CancellationToken* cancel = nullptr;
};

struct ExportResult {
    std::string output;
    std::string sourcePrefix;
    int64_t tensors = 0;     // arrays written (the metadata entry not counted)
    uint64_t dataBytes = 0;  // value bytes written
    uint64_t fileBytes = 0;  // size of the output file
    double seconds = 0;
    std::vector<std::string> notes;  // what was left out and why, one line each
};

// InvalidArgument for an output equal to or inside the source, or one that
// exists without 'overwrite' (AlreadyExists); Unimplemented listing every
// tensor the format cannot hold unless skipUnsupported; InvalidArgument
// listing names that two tensors would share.
Result<ExportResult> exportCheckpoint(const std::string& source, const std::string& output, const ExportOptions& options);

struct ImportOptions {
    SaveOptions save;
    bool overwrite = false;  // replace a checkpoint already at the destination
    ProgressSink progress;   // bytes; phases "read", "check"
    const CancellationToken* cancel = nullptr;
};

struct ImportResult {
    SaveStats stats;
    ArrayFormat format = ArrayFormat::Safetensors;
    int64_t arrays = 0;
    std::vector<std::string> notes;
};

// 'input' is a .safetensors or .npz file (told apart by their first bytes);
// 'specPath' a model spec (docs/model-spec.md). Each spec variable takes the
// array named by its object path or its checkpoint key; a missing array,
// an array no variable takes, or a dtype or shape that differs is an
// InvalidArgument naming each one.
Result<ImportResult> importArrays(const std::string& input, const std::string& dstPrefix, const std::string& specPath,
                                  const ImportOptions& options);

}  // namespace ckpt
