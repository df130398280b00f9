// Built instead of preview/cuda/ when CMake found no CUDA toolkit.

#include "preview/preview_backend.h"

namespace ckpt::preview {

Result<std::unique_ptr<PreviewBackend>> makeCudaBackend(size_t) { return failedPrecondition("built without CUDA"); }

bool cudaContextStarted() { return false; }

std::string cudaRuntimeDescription() { return "built without CUDA"; }

}  // namespace ckpt::preview
