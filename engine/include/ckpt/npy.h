#pragma once
// NumPy .npy (format 1.0) framing, for handing tensor values to Python:
// the preamble (magic, version, header length, header dict padded to 64
// bytes) goes before the raw little-endian, row-major values.
//   std::string head = npyPreamble(npyDescr(t.dtype), t.shape);

#include <string>
#include <string_view>

#include "ckpt/dtype.h"
#include "ckpt/tensor_info.h"

namespace ckpt {

// NumPy's descr for a dtype whose bytes NumPy reads as they are ("<f4");
// empty when there is none (bfloat16, float8, strings, variants).
std::string_view npyDescr(DataType dtype);
// Everything a .npy file holds before its data.
std::string npyPreamble(std::string_view descr, const TensorShape& shape);

}  // namespace ckpt
