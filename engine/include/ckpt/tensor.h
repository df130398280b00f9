#pragma once
// Decoded tensor values in host memory, and element conversions for the
// 16-bit float formats. Values of fixed-size types keep the file's bytes
// (little-endian, row-major); strings are split into elements.

#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "ckpt/dtype.h"
#include "ckpt/tensor_info.h"

namespace ckpt {

float halfToFloat(uint16_t bits);
float bfloat16ToFloat(uint16_t bits);
uint16_t floatToBfloat16(float value);  // round to nearest even, NaN kept quiet
uint16_t floatToHalf(float value);      // round to nearest even

struct Tensor {
    DataType dtype = DataType::Invalid;
    TensorShape shape;
    std::vector<uint8_t> bytes;        // fixed-size types
    std::vector<std::string> strings;  // DT_STRING

    int64_t numElements() const { return shape.numElements().value_or(0); }

    template <typename T>
    std::span<const T> as() const {
        return {reinterpret_cast<const T*>(bytes.data()), bytes.size() / sizeof(T)};
    }
    // Element i as a double: the real part for complex, 0/1 for bool.
    // Meaningless for strings and variants.
    double elementAsDouble(int64_t i) const;
};

}  // namespace ckpt
