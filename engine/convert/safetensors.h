#pragma once
// The safetensors file format, read and written with our own small code
// (nothing is packaged for C++ in Debian): an 8-byte little-endian header
// length N, N bytes of JSON, then the tensors' raw little-endian bytes.
//   {"__metadata__": {"k": "v"}, "w": {"dtype": "F32", "shape": [2, 3],
//    "data_offsets": [0, 24]}, ...}
// Offsets are relative to the byte after the header and must tile the data
// area exactly (the Python package refuses holes and overlaps too). The
// header is padded with spaces to a multiple of 8, as the package does.
// Internal to the engine (ckpt/convert.h is the API); pure functions.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ckpt/dtype.h"
#include "ckpt/status.h"
#include "ckpt/tensor_info.h"

namespace ckpt::convert {

// The safetensors package's own cap on the header (100 MB).
inline constexpr uint64_t kMaxSafetensorsHeaderBytes = 100'000'000;

// "F32" for DataType::Float, ...; empty for dtypes safetensors cannot hold
// in a way numpy reads (strings, complex, float8, quantized).
std::string_view safetensorsDtype(DataType dtype);
// The reverse; nullopt for names we do not map ("F8_E4M3", "C64", ...).
std::optional<DataType> dataTypeFromSafetensors(std::string_view name);

struct SafetensorsEntry {
    std::string name;
    DataType dtype = DataType::Invalid;
    TensorShape shape;
    uint64_t begin = 0;  // offsets from the start of the data area
    uint64_t end = 0;
};

struct SafetensorsHeader {
    std::map<std::string, std::string> metadata;
    std::vector<SafetensorsEntry> entries;  // in data order
    uint64_t dataStart = 0;                 // 8 + header length
};

// The header text (length prefix included, padded) for 'entries' laid out
// one after another in the given order; each entry's begin/end are set.
// InvalidArgument for a dtype safetensors cannot hold or a duplicate name.
Result<std::string> encodeSafetensorsHeader(std::vector<SafetensorsEntry>& entries,
                                            const std::map<std::string, std::string>& metadata);

// Parses and checks the header of a file of 'fileSize' bytes whose first
// bytes are 'head' (at least 8 + the header length, else the error says
// how many bytes are needed via 'needBytes'). InvalidArgument naming
// 'source' for: a length over the cap or past the file, JSON that is not
// an object of entries, unknown dtypes, shapes whose byte size overflows or
// disagrees with the offsets, offsets that overlap, leave holes or run
// past the file, metadata that is not string to string.
Result<SafetensorsHeader> parseSafetensorsHeader(std::string_view head, uint64_t fileSize, std::string_view source);

}  // namespace ckpt::convert
