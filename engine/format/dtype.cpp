#include "ckpt/dtype.h"

#include <array>

namespace ckpt {
namespace {

struct DTypeFacts {
    DataType type;
    std::string_view name;
    std::string_view shortName;
    size_t size;  // 0 = variable length or not storable
};

constexpr std::array<DTypeFacts, 34> kFacts{{
    {DataType::Invalid, "DT_INVALID", "invalid", 0},
    {DataType::Float, "DT_FLOAT", "float32", 4},
    {DataType::Double, "DT_DOUBLE", "float64", 8},
    {DataType::Int32, "DT_INT32", "int32", 4},
    {DataType::UInt8, "DT_UINT8", "uint8", 1},
    {DataType::Int16, "DT_INT16", "int16", 2},
    {DataType::Int8, "DT_INT8", "int8", 1},
    {DataType::String, "DT_STRING", "string", 0},
    {DataType::Complex64, "DT_COMPLEX64", "complex64", 8},
    {DataType::Int64, "DT_INT64", "int64", 8},
    {DataType::Bool, "DT_BOOL", "bool", 1},
    {DataType::QInt8, "DT_QINT8", "qint8", 1},
    {DataType::QUInt8, "DT_QUINT8", "quint8", 1},
    {DataType::QInt32, "DT_QINT32", "qint32", 4},
    {DataType::BFloat16, "DT_BFLOAT16", "bfloat16", 2},
    {DataType::QInt16, "DT_QINT16", "qint16", 2},
    {DataType::QUInt16, "DT_QUINT16", "quint16", 2},
    {DataType::UInt16, "DT_UINT16", "uint16", 2},
    {DataType::Complex128, "DT_COMPLEX128", "complex128", 16},
    {DataType::Half, "DT_HALF", "float16", 2},
    {DataType::Resource, "DT_RESOURCE", "resource", 0},
    {DataType::Variant, "DT_VARIANT", "variant", 0},
    {DataType::UInt32, "DT_UINT32", "uint32", 4},
    {DataType::UInt64, "DT_UINT64", "uint64", 8},
    {DataType::Float8E5M2, "DT_FLOAT8_E5M2", "float8_e5m2", 1},
    {DataType::Float8E4M3FN, "DT_FLOAT8_E4M3FN", "float8_e4m3fn", 1},
    {DataType::Float8E4M3FNUZ, "DT_FLOAT8_E4M3FNUZ", "float8_e4m3fnuz", 1},
    {DataType::Float8E4M3B11FNUZ, "DT_FLOAT8_E4M3B11FNUZ", "float8_e4m3b11fnuz", 1},
    {DataType::Float8E5M2FNUZ, "DT_FLOAT8_E5M2FNUZ", "float8_e5m2fnuz", 1},
    {DataType::Int4, "DT_INT4", "int4", 1},
    {DataType::UInt4, "DT_UINT4", "uint4", 1},
    {DataType::Int2, "DT_INT2", "int2", 1},
    {DataType::UInt2, "DT_UINT2", "uint2", 1},
    {DataType::Float4E2M1FN, "DT_FLOAT4_E2M1FN", "float4_e2m1fn", 1},
}};

const DTypeFacts& facts(DataType t) {
    const auto i = static_cast<size_t>(t);
    return i < kFacts.size() ? kFacts[i] : kFacts[0];
}

}  // namespace

std::optional<DataType> dataTypeFromEnum(int32_t value) {
    if (value > 100) value -= 100;  // *_REF types are stored as their base type
    if (value <= 0 || value >= static_cast<int32_t>(kFacts.size())) return std::nullopt;
    return static_cast<DataType>(value);
}

std::string_view dataTypeName(DataType type) { return facts(type).name; }
std::string_view dataTypeShortName(DataType type) { return facts(type).shortName; }
size_t dataTypeSize(DataType type) { return facts(type).size; }

std::optional<DataType> dataTypeFromName(std::string_view name) {
    for (const DTypeFacts& f : kFacts)
        if (f.type != DataType::Invalid && (name == f.name || name == f.shortName)) return f.type;
    if (name == "float") return DataType::Float;
    if (name == "double") return DataType::Double;
    if (name == "half") return DataType::Half;
    return std::nullopt;
}

bool isFixedSize(DataType type) { return facts(type).size > 0; }

bool isDecodable(DataType type) { return type != DataType::Invalid && type != DataType::Resource && type != DataType::Variant; }

bool isFloating(DataType type) {
    switch (type) {
    case DataType::Float:
    case DataType::Double:
    case DataType::Half:
    case DataType::BFloat16:
    case DataType::Float8E5M2:
    case DataType::Float8E4M3FN:
    case DataType::Float8E4M3FNUZ:
    case DataType::Float8E4M3B11FNUZ:
    case DataType::Float8E5M2FNUZ:
    case DataType::Float4E2M1FN: return true;
    default: return false;
    }
}

bool isComplex(DataType type) { return type == DataType::Complex64 || type == DataType::Complex128; }

bool isSignedInteger(DataType type) {
    switch (type) {
    case DataType::Int8:
    case DataType::Int16:
    case DataType::Int32:
    case DataType::Int64:
    case DataType::QInt8:
    case DataType::QInt16:
    case DataType::QInt32:
    case DataType::Int4:
    case DataType::Int2: return true;
    default: return false;
    }
}

bool isUnsignedInteger(DataType type) {
    switch (type) {
    case DataType::UInt8:
    case DataType::UInt16:
    case DataType::UInt32:
    case DataType::UInt64:
    case DataType::QUInt8:
    case DataType::QUInt16:
    case DataType::UInt4:
    case DataType::UInt2: return true;
    default: return false;
    }
}

}  // namespace ckpt
