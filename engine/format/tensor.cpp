#include "ckpt/tensor.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <complex>

#include "ckpt/status.h"

namespace ckpt {

std::optional<int64_t> TensorShape::numElements() const {
    int64_t n = 1;
    for (int64_t d : dims) {
        if (d < 0 || __builtin_mul_overflow(n, d, &n)) return std::nullopt;
    }
    return n;
}

std::string TensorShape::toString() const {
    std::string s = "[";
    for (size_t i = 0; i < dims.size(); ++i) {
        if (i) s += ", ";
        s += std::to_string(dims[i]);
    }
    return s + "]";
}

std::vector<int64_t> unravelIndex(int64_t flat, const TensorShape& shape) {
    std::vector<int64_t> index(shape.dims.size(), 0);
    for (size_t d = shape.dims.size(); d-- > 0;) {
        const int64_t dim = std::max<int64_t>(1, shape.dims[d]);
        index[d] = flat % dim;
        flat /= dim;
    }
    return index;
}

std::string TensorSlice::toString() const {
    std::string s;
    for (size_t i = 0; i < extents.size(); ++i) {
        if (i) s += ':';
        s += extents[i].isFull() ? std::string("-") : std::to_string(extents[i].start) + "," + std::to_string(extents[i].length);
    }
    return s.empty() ? "-" : s;
}

int64_t TensorInfo::storedBytes() const {
    if (slices.empty()) return region.size;
    int64_t total = 0;
    for (const StoredSlice& s : slices) total += s.region.size;
    return total;
}

float halfToFloat(uint16_t h) {
    const uint32_t sign = uint32_t{h & 0x8000u} << 16;
    const uint32_t exp = (h >> 10) & 0x1fu;
    const uint32_t man = h & 0x3ffu;
    if (exp == 0) {
        // Zero or subnormal: value = man * 2^-24.
        const float mag = std::ldexp(static_cast<float>(man), -24);
        return sign ? -mag : mag;
    }
    if (exp == 31) return std::bit_cast<float>(sign | 0x7f800000u | (man << 13));
    return std::bit_cast<float>(sign | ((exp + 112) << 23) | (man << 13));
}

float bfloat16ToFloat(uint16_t bits) { return std::bit_cast<float>(uint32_t{bits} << 16); }

uint16_t floatToBfloat16(float value) {
    const uint32_t u = std::bit_cast<uint32_t>(value);
    if (std::isnan(value)) return static_cast<uint16_t>((u >> 16) | 0x40u);
    const uint32_t roundingBias = 0x7fffu + ((u >> 16) & 1u);
    return static_cast<uint16_t>((u + roundingBias) >> 16);
}

uint16_t floatToHalf(float value) {
    const uint32_t u = std::bit_cast<uint32_t>(value);
    const uint16_t sign = static_cast<uint16_t>((u >> 16) & 0x8000u);
    const uint32_t absu = u & 0x7fffffffu;
    if (absu >= 0x7f800000u) return static_cast<uint16_t>(sign | 0x7c00u | (absu > 0x7f800000u ? 0x200u : 0u));
    if (absu >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // rounds to inf
    if (absu < 0x38800000u) {
        // Subnormal half: scale so the integer part is the half mantissa, round half to even.
        const float mag = std::bit_cast<float>(absu) * 16777216.0f;  // * 2^24
        const float r = std::nearbyint(mag);
        return static_cast<uint16_t>(sign | static_cast<uint16_t>(r));
    }
    const uint32_t mant = absu & 0x7fffffu;
    uint32_t h = ((absu >> 23) - 112) << 10 | (mant >> 13);
    const uint32_t rest = mant & 0x1fffu;
    if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) ++h;
    return static_cast<uint16_t>(sign | h);
}

namespace {

// Small float formats (ml_dtypes semantics). "FN" = finite, NaN only at the
// all-ones pattern; "FNUZ" = finite, unsigned zero, NaN at 0x80.
enum class NanRule { Ieee, AllOnes, NegativeZero, None };

double decodeMiniFloat(uint8_t bits, int expBits, int manBits, int bias, NanRule rule) {
    const int total = 1 + expBits + manBits;
    const bool negative = (bits >> (total - 1)) & 1u;
    const int exp = (bits >> manBits) & ((1 << expBits) - 1);
    const int man = bits & ((1 << manBits) - 1);
    const int maxExp = (1 << expBits) - 1;
    if (rule == NanRule::NegativeZero && negative && exp == 0 && man == 0) return std::nan("");
    if (rule == NanRule::AllOnes && exp == maxExp && man == (1 << manBits) - 1) return std::nan("");
    if (rule == NanRule::Ieee && exp == maxExp) return man ? std::nan("") : (negative ? -INFINITY : INFINITY);
    const double mag = exp == 0 ? std::ldexp(man, 1 - bias - manBits) : std::ldexp((1 << manBits) + man, exp - bias - manBits);
    return negative ? -mag : mag;
}

}  // namespace

double Tensor::elementAsDouble(int64_t i) const {
    const auto idx = static_cast<size_t>(i);
    switch (dtype) {
    case DataType::Float: return as<float>()[idx];
    case DataType::Double: return as<double>()[idx];
    case DataType::Half: return halfToFloat(as<uint16_t>()[idx]);
    case DataType::BFloat16: return bfloat16ToFloat(as<uint16_t>()[idx]);
    case DataType::Int8:
    case DataType::QInt8:
    case DataType::Int4:
    case DataType::Int2: return as<int8_t>()[idx];
    case DataType::Int16:
    case DataType::QInt16: return as<int16_t>()[idx];
    case DataType::Int32:
    case DataType::QInt32: return as<int32_t>()[idx];
    case DataType::Int64: return static_cast<double>(as<int64_t>()[idx]);
    case DataType::UInt8:
    case DataType::QUInt8:
    case DataType::UInt4:
    case DataType::UInt2:
    case DataType::Bool: return as<uint8_t>()[idx];
    case DataType::UInt16:
    case DataType::QUInt16: return as<uint16_t>()[idx];
    case DataType::UInt32: return as<uint32_t>()[idx];
    case DataType::UInt64: return static_cast<double>(as<uint64_t>()[idx]);
    case DataType::Complex64: return as<float>()[2 * idx];
    case DataType::Complex128: return as<double>()[2 * idx];
    case DataType::Float8E5M2: return decodeMiniFloat(as<uint8_t>()[idx], 5, 2, 15, NanRule::Ieee);
    case DataType::Float8E4M3FN: return decodeMiniFloat(as<uint8_t>()[idx], 4, 3, 7, NanRule::AllOnes);
    case DataType::Float8E4M3FNUZ: return decodeMiniFloat(as<uint8_t>()[idx], 4, 3, 8, NanRule::NegativeZero);
    case DataType::Float8E4M3B11FNUZ: return decodeMiniFloat(as<uint8_t>()[idx], 4, 3, 11, NanRule::NegativeZero);
    case DataType::Float8E5M2FNUZ: return decodeMiniFloat(as<uint8_t>()[idx], 5, 2, 16, NanRule::NegativeZero);
    case DataType::Float4E2M1FN: return decodeMiniFloat(as<uint8_t>()[idx] & 0x0f, 2, 1, 1, NanRule::None);
    default: return std::nan("");
    }
}

}  // namespace ckpt
