#pragma once
// NumPy .npy framing, for handing tensor values to Python and taking them
// back: the preamble (magic, version, header length, header dict padded to
// 64 bytes) goes before the raw little-endian, row-major values. Writing
// produces format 1.0; reading accepts 1.0, 2.0 and 3.0.
//   std::string head = npyPreamble(npyDescr(t.dtype), t.shape);
//   Result<Tensor> t = readNpyFile("/tmp/kernel.npy");

#include <string>
#include <string_view>

#include "ckpt/dtype.h"
#include "ckpt/status.h"
#include "ckpt/tensor.h"
#include "ckpt/tensor_info.h"

namespace ckpt {

// NumPy's descr for a dtype whose bytes NumPy reads as they are ("<f4");
// empty when there is none (bfloat16, float8, strings, variants).
std::string_view npyDescr(DataType dtype);
// Everything a .npy file holds before its data.
std::string npyPreamble(std::string_view descr, const TensorShape& shape);

// What a .npy preamble says about the array after it.
struct NpyHeader {
    DataType dtype = DataType::Invalid;
    TensorShape shape;
    bool fortranOrder = false;
    uint64_t dataOffset = 0;  // bytes from the start of the file to the values
};

// The preamble at the start of 'bytes' (format 1.0/2.0/3.0). InvalidArgument
// naming 'source' for a truncated or malformed header, an unsupported descr
// (">f4", "O", "<U", ...) or fortran_order True. 'bytes' may hold more than
// the preamble (the whole file, or its first few KiB).
Result<NpyHeader> parseNpyHeader(std::string_view bytes, std::string_view source);
// A whole .npy file. Every size is bounded by the file's size before
// anything is allocated: the values must fill the file exactly.
Result<Tensor> readNpyFile(std::string_view path);

}  // namespace ckpt
