#pragma once
// What every surgery operation shares: opening its sources, copying a
// stored tensor into the save pipeline, the destination rule, and the
// verified write of the result (write beside the destination, verify,
// check the object graph's keys, move into place; a result that fails any
// of these, or is cancelled, is removed again).

#include <memory>
#include <string>
#include <vector>

#include "ckpt/bundle_reader.h"
#include "ckpt/checkpoint.h"
#include "ckpt/save.h"
#include "ckpt/surgery.h"

namespace ckpt::surgery {

struct Source {
    std::string argument;  // as the user gave it
    std::string prefix;
    std::unique_ptr<BundleReader> reader;
};
Result<std::vector<Source>> openSources(const std::vector<std::string>& arguments);

// A stored tensor as the save pipeline takes it, under 'key': values of
// decodable types (partitioned ones assembled), variants as their encoded
// region. Unimplemented for anything else, naming the tensor and file.
Result<SaveTensor> storedTensorForSave(const BundleReader& reader, const TensorInfo& info, std::string key);

// The source's tensors in data order (shard, then offset), the object
// graph tensor last: a rewrite then reads each data file front to back.
std::vector<const TensorInfo*> inDataOrder(const BundleReader& reader);

// Fails with Cancelled when the token was cancelled.
Status checkCancelled(const SurgeryOptions& options);

// ckpt/destination.h's rule for 'dst' against 'sources' and the options'
// open checkpoints and overwrite: the path to write at, or its refusal.
Result<std::string> checkedDestination(const std::string& dst, const std::vector<std::string>& sources,
                                       const SurgeryOptions& options);

// Writes 'tensors' beside 'dst' (the checked destination), verifies them,
// checks that every key the object graph names is stored, except those in
// 'missingBefore' (keys the source already lacked), and only then moves
// the result into place (pipeline/staged_checkpoint.h). Anything written
// is removed on failure; a checkpoint already at 'dst' stays until then.
Result<SurgeryResult> writeVerified(const std::string& dst, std::vector<SaveTensor> tensors, const SurgeryOptions& options,
                                    std::vector<std::string> notes, const std::vector<std::string>& missingBefore = {});

// The object graph stored as a tensor.
SaveTensor graphTensor(std::string serialized);

}  // namespace ckpt::surgery
