#include "ckpt/npy.h"

#include <cstdint>

namespace ckpt {

std::string_view npyDescr(DataType dtype) {
    switch (dtype) {
    case DataType::Float: return "<f4";
    case DataType::Double: return "<f8";
    case DataType::Half: return "<f2";
    case DataType::Int8: return "|i1";
    case DataType::Int16: return "<i2";
    case DataType::Int32: return "<i4";
    case DataType::Int64: return "<i8";
    case DataType::UInt8: return "|u1";
    case DataType::UInt16: return "<u2";
    case DataType::UInt32: return "<u4";
    case DataType::UInt64: return "<u8";
    case DataType::Bool: return "|b1";
    case DataType::Complex64: return "<c8";
    case DataType::Complex128: return "<c16";
    default: return {};
    }
}

std::string npyPreamble(std::string_view descr, const TensorShape& shape) {
    std::string dims = "(";
    for (int64_t d : shape.dims) dims += std::to_string(d) + ", ";
    // "(3,)" for rank 1, "(3, 4)" above: Python's tuple spelling.
    if (shape.rank() > 1) dims.resize(dims.size() - 2);
    else if (shape.rank() == 1) dims.pop_back();
    dims += ")";
    std::string header = "{'descr': '" + std::string(descr) + "', 'fortran_order': False, 'shape': " + dims + ", }";
    // Magic (6) + version (2) + length (2) + header + '\n' is a multiple of 64.
    const size_t unpadded = 10 + header.size() + 1;
    header.append((64 - unpadded % 64) % 64, ' ');
    header += '\n';
    std::string out("\x93NUMPY\x01\x00", 8);
    const auto len = static_cast<uint16_t>(header.size());
    out += static_cast<char>(len & 0xff);
    out += static_cast<char>(len >> 8);
    return out + header;
}

}  // namespace ckpt
