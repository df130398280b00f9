#pragma once
// One pass over a variable's tensors in consecutive checkpoints (ckpt
// history): each tensor is read once, a window at a time, and its checksum,
// statistics and change from the tensor before it are computed while the
// window is in cache. The checkpoints' windows are taken in turn (window w
// of every tensor before window w + 1 of any), so the previous tensor's
// window is still in cache when the next tensor's arrives: every byte comes
// from memory once. The figures have the bits that computeStats and
// diffTensors give on the whole tensors (one thread per tensor; only the
// sign of a zero minimum or maximum may differ from a multi-threaded
// computeStats, whose threads meet the zeros in another order).

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "ckpt/cancellation.h"
#include "ckpt/checkpoint.h"
#include "ckpt/preview.h"
#include "ckpt/status.h"

namespace ckpt::compare {

struct StreamedTensor {
    const Checkpoint* checkpoint = nullptr;
    const TensorInfo* info = nullptr;
    int previous = -1;    // the tensor (index in the list, earlier) this one is compared with; -1: none
    bool figures = true;  // false: read only as another's previous (its checksum and figures are another pass's)
};

struct StreamedFigures {
    TensorStats stats;
    bool compared = false;    // had a previous tensor
    double normPrevious = 0;  // diffTensors' normA
    double relChange = 0;     // diffTensors' relL2
};

// Fixed-size numbers stored whole and not empty: what streamTensors reads.
bool canStream(const TensorInfo& info);

// The tensors, all of one dtype and shape; figures[i] for each tensor with
// 'figures'. A checksum mismatch or read error fails the call, naming the
// tensor's checkpoint; 'progress' gets the bytes of each window read for
// figures.
Status streamTensors(std::span<const StreamedTensor> tensors, const CancellationToken* cancel,
                     const std::function<void(int64_t)>& progress, std::vector<StreamedFigures>& figures);

}  // namespace ckpt::compare
