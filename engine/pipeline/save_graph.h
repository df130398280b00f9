#pragma once
// The tensors a save stores, before their fixed-size bytes are copied: what
// the eager and the deferred snapshot (save_snapshot.cpp) both start from.

#include <vector>

#include "ckpt/save.h"

namespace tensorflow {
class TrackableObjectGraph;
}  // namespace tensorflow

namespace ckpt::pipeline {

struct UnfilledSnapshot {
    // TensorFlow's data order, the object graph tensor last. Strings are
    // copied; fixed-size values have empty bytes.
    std::vector<SaveTensor> tensors;
    // For tensors[i] (i < sources.size()): the value its bytes come from, and
    // the variable holding it. The graph tensor has neither.
    std::vector<const Tensor*> sources;
    std::vector<const Variable*> owners;
};

Result<UnfilledSnapshot> collectSaveTensors(const Trackable& root);

// Sets every node's has_checkpoint_values: true when it or anything below
// it (children, an optimizer's slots) saves a tensor, as TensorFlow marks
// them. For graphs built here and graphs edited by surgery/.
void markCheckpointValues(tensorflow::TrackableObjectGraph& graph);

}  // namespace ckpt::pipeline
