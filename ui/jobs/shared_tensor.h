#pragma once
// Tensors the UI shares between its pages, freed off the GUI thread. The
// last page to let go of a 512 MiB tensor would otherwise return its pages
// to the kernel on the GUI thread (munmap is proportional to the size: a
// pair and its |A−B| took a third of a second), so a large tensor whose
// last reference drops there is deleted on jobPool() instead.
//   out.tensor = shareTensor(std::move(*read));

#include <memory>

#include "ckpt/tensor.h"

namespace ckpt::ui {

// Tensors at least this large are freed on a worker when released on the
// GUI thread; smaller ones are freed where they are released.
inline constexpr size_t kWorkerReleaseBytes = size_t{16} << 20;

std::shared_ptr<const Tensor> shareTensor(Tensor&& tensor);

}  // namespace ckpt::ui
