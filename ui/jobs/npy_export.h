#pragma once
// Writes a tensor as a NumPy .npy file (format version 1.0), so values can be
// checked in Python with np.load. bfloat16 and float8 have no NumPy dtype and
// are widened to float32; strings are refused (NumPy would need pickles).

#include <QString>

#include "ckpt/tensor.h"

namespace ckpt::ui {

// Empty on success, else a message naming the file or the reason.
QString writeNpy(const Tensor& tensor, const QString& path);

}  // namespace ckpt::ui
