#pragma once
// TensorFlow's DataType enum as stored in BundleEntryProto.dtype, with the
// facts the reader needs: names, element sizes and which types carry values
// we can decode. docs/format.md, "DataType".

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ckpt {

enum class DataType : int32_t {
    Invalid = 0,
    Float = 1,
    Double = 2,
    Int32 = 3,
    UInt8 = 4,
    Int16 = 5,
    Int8 = 6,
    String = 7,
    Complex64 = 8,
    Int64 = 9,
    Bool = 10,
    QInt8 = 11,
    QUInt8 = 12,
    QInt32 = 13,
    BFloat16 = 14,
    QInt16 = 15,
    QUInt16 = 16,
    UInt16 = 17,
    Complex128 = 18,
    Half = 19,
    Resource = 20,
    Variant = 21,
    UInt32 = 22,
    UInt64 = 23,
    Float8E5M2 = 24,
    Float8E4M3FN = 25,
    Float8E4M3FNUZ = 26,
    Float8E4M3B11FNUZ = 27,
    Float8E5M2FNUZ = 28,
    Int4 = 29,
    UInt4 = 30,
    Int2 = 31,
    UInt2 = 32,
    Float4E2M1FN = 33,
};

// The enum value a file may legally hold, with *_REF (value + 100) mapped to
// its base type as TF itself stores it. nullopt for values TF never defined.
std::optional<DataType> dataTypeFromEnum(int32_t value);

// "DT_FLOAT", "DT_BFLOAT16", ...
std::string_view dataTypeName(DataType type);
// Accepts "DT_FLOAT" and the short forms "float32", "float", "bfloat16", ...
std::optional<DataType> dataTypeFromName(std::string_view name);
// numpy-style short name: "float32", "bfloat16", "int64", "string", ...
std::string_view dataTypeShortName(DataType type);

// Bytes per element in a data file; 0 for variable-length (string, variant)
// and for types that cannot be stored (resource, invalid).
size_t dataTypeSize(DataType type);

// Fixed-size types stored as a memcpy of the array.
bool isFixedSize(DataType type);
// Types whose values the reader can decode to numbers or strings.
bool isDecodable(DataType type);
bool isFloating(DataType type);  // float, double, half, bfloat16, float8/4 variants
bool isComplex(DataType type);
bool isSignedInteger(DataType type);
bool isUnsignedInteger(DataType type);

}  // namespace ckpt
