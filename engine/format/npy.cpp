#include "ckpt/npy.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>

#include "format/npy_preamble.h"
#include "platform/file.h"
#include "storage/dispatch.h"

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

namespace format {
namespace {

// A cursor over numpy's header dict, which is a Python literal:
//   {'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }
// Only the three keys numpy writes, with strings, booleans and int tuples.
class DictParser {
public:
    explicit DictParser(std::string_view text) : m_text(text) {}

    void skipSpace() {
        while (m_pos < m_text.size() && std::isspace(static_cast<unsigned char>(m_text[m_pos]))) ++m_pos;
    }
    bool consume(char c) {
        skipSpace();
        if (m_pos < m_text.size() && m_text[m_pos] == c) {
            ++m_pos;
            return true;
        }
        return false;
    }
    bool peek(char c) {
        skipSpace();
        return m_pos < m_text.size() && m_text[m_pos] == c;
    }
    bool string(std::string& out) {
        skipSpace();
        if (m_pos >= m_text.size() || (m_text[m_pos] != '\'' && m_text[m_pos] != '"')) return false;
        const char quote = m_text[m_pos++];
        const size_t end = m_text.find(quote, m_pos);
        if (end == std::string_view::npos) return false;
        out.assign(m_text.substr(m_pos, end - m_pos));
        m_pos = end + 1;
        return true;
    }
    bool word(std::string_view w) {
        skipSpace();
        if (m_text.substr(m_pos, w.size()) != w) return false;
        m_pos += w.size();
        return true;
    }
    bool integer(int64_t& out) {
        skipSpace();
        const size_t start = m_pos;
        uint64_t value = 0;
        while (m_pos < m_text.size() && std::isdigit(static_cast<unsigned char>(m_text[m_pos]))) {
            const auto digit = static_cast<uint64_t>(m_text[m_pos] - '0');
            if (value > (static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) - digit) / 10) return false;
            value = value * 10 + digit;
            ++m_pos;
        }
        if (m_pos == start) return false;
        if (m_pos < m_text.size() && m_text[m_pos] == 'L') ++m_pos;  // Python 2 longs
        out = static_cast<int64_t>(value);
        return true;
    }
    bool atEnd() {
        skipSpace();
        return m_pos == m_text.size();
    }

private:
    std::string_view m_text;
    size_t m_pos = 0;
};

uint64_t readLe(std::string_view bytes, size_t offset, size_t n) {
    uint64_t v = 0;
    for (size_t i = 0; i < n; ++i) v |= static_cast<uint64_t>(static_cast<uint8_t>(bytes[offset + i])) << (8 * i);
    return v;
}

}  // namespace

Result<NpyPreamble> parseNpyPreamble(std::string_view bytes, std::string_view source) {
    auto bad = [&](const std::string& why) {
        return invalidArgument("not a readable .npy array in " + std::string(source) + ": " + why);
    };
    if (bytes.size() < 10) return bad("truncated before the header length");
    if (bytes.substr(0, 6) != std::string_view("\x93NUMPY", 6)) return bad("no \\x93NUMPY magic");
    const auto major = static_cast<uint8_t>(bytes[6]);
    if (major < 1 || major > 3) return bad("format version " + std::to_string(major) + " is not 1, 2 or 3");
    // 1.0: 2-byte length; 2.0 and 3.0 (utf-8 header): 4-byte length.
    const size_t lengthBytes = major == 1 ? 2 : 4;
    if (bytes.size() < 8 + lengthBytes) return bad("truncated before the header length");
    const uint64_t headerLen = readLe(bytes, 8, lengthBytes);
    if (headerLen > kMaxNpyHeaderBytes) return bad("header length " + std::to_string(headerLen) + " is over 1 MiB");
    const uint64_t start = 8 + lengthBytes;
    if (bytes.size() - start < headerLen)
        return bad("truncated header (" + std::to_string(headerLen) + " bytes claimed, " + std::to_string(bytes.size() - start) +
                   " present)");

    NpyPreamble out;
    out.dataOffset = start + headerLen;
    DictParser p(bytes.substr(start, headerLen));
    bool haveDescr = false, haveOrder = false, haveShape = false;
    if (!p.consume('{')) return bad("header is not a dict");
    while (!p.consume('}')) {
        std::string key;
        if (!p.string(key) || !p.consume(':')) return bad("malformed header dict");
        if (key == "descr") {
            if (!p.string(out.descr)) return bad("descr is not a simple type string (structured dtypes are not read)");
            haveDescr = true;
        } else if (key == "fortran_order") {
            if (p.word("True")) out.fortranOrder = true;
            else if (p.word("False")) out.fortranOrder = false;
            else return bad("fortran_order is not True or False");
            haveOrder = true;
        } else if (key == "shape") {
            if (!p.consume('(')) return bad("shape is not a tuple");
            while (!p.consume(')')) {
                int64_t dim = 0;
                if (!p.integer(dim)) return bad("shape holds something other than non-negative integers");
                out.shape.dims.push_back(dim);
                if (out.shape.dims.size() > 64) return bad("shape has more than 64 dimensions");
                if (!p.consume(',') && !p.peek(')')) return bad("malformed shape tuple");
            }
            haveShape = true;
        } else {
            return bad("unexpected header key '" + key + "'");
        }
        if (!p.consume(',') && !p.peek('}')) return bad("malformed header dict");
    }
    if (!p.atEnd()) return bad("bytes after the header dict");
    if (!haveDescr || !haveOrder || !haveShape) return bad("header lacks descr, fortran_order or shape");
    if (!out.shape.numElements()) return bad("shape " + out.shape.toString() + " overflows an element count");
    return out;
}

}  // namespace format

namespace {

std::optional<DataType> dtypeFromDescr(std::string_view descr) {
    // One-byte types carry '|' from numpy, but '<' and '>' mean the same.
    if (descr.size() == 3 && (descr[0] == '<' || descr[0] == '>') && descr[2] == '1') {
        std::string canonical(descr);
        canonical[0] = '|';
        descr = canonical;
        for (DataType d : {DataType::Int8, DataType::UInt8, DataType::Bool})
            if (npyDescr(d) == descr) return d;
        return std::nullopt;
    }
    for (DataType d : {DataType::Float, DataType::Double, DataType::Half, DataType::Int8, DataType::Int16, DataType::Int32,
                       DataType::Int64, DataType::UInt8, DataType::UInt16, DataType::UInt32, DataType::UInt64, DataType::Bool,
                       DataType::Complex64, DataType::Complex128})
        if (npyDescr(d) == descr) return d;
    return std::nullopt;
}

}  // namespace

Result<NpyHeader> parseNpyHeader(std::string_view bytes, std::string_view source) {
    CKPT_ASSIGN_OR_RETURN(auto pre, format::parseNpyPreamble(bytes, source));
    if (pre.fortranOrder)
        return invalidArgument("cannot read " + std::string(source) +
                               ": fortran_order True (save a C-ordered array, np.ascontiguousarray)");
    const auto dtype = dtypeFromDescr(pre.descr);
    if (!dtype)
        return invalidArgument("cannot read " + std::string(source) + ": unsupported dtype descr '" + pre.descr +
                               "' (little-endian numbers and bool only)");
    const auto elements = pre.shape.numElements();
    if (static_cast<uint64_t>(*elements) > std::numeric_limits<uint64_t>::max() / dataTypeSize(*dtype))
        return invalidArgument("cannot read " + std::string(source) + ": shape " + pre.shape.toString() +
                               " overflows a byte count");
    return NpyHeader{*dtype, std::move(pre.shape), false, pre.dataOffset};
}

Result<Tensor> readNpyFile(std::string_view path) {
    const std::string p(path);
    CKPT_ASSIGN_OR_RETURN(auto file, storage::openRandomAccess(p));
    const uint64_t size = file->size();
    // Enough for the longest header accepted; never more than the file.
    const uint64_t headBytes = std::min<uint64_t>(size, 12 + format::kMaxNpyHeaderBytes);
    std::string head(headBytes, '\0');
    CKPT_RETURN_IF_ERROR(file->read(0, head.size(), head.data()));
    CKPT_ASSIGN_OR_RETURN(auto header, parseNpyHeader(head, p));
    const uint64_t want = static_cast<uint64_t>(*header.shape.numElements()) * dataTypeSize(header.dtype);
    const uint64_t have = size - header.dataOffset;
    if (have != want)
        return invalidArgument("cannot read " + p + ": shape " + header.shape.toString() + " of " +
                               std::string(dataTypeShortName(header.dtype)) + " needs " + std::to_string(want) +
                               " bytes after the header, the file has " + std::to_string(have));
    Tensor t;
    t.dtype = header.dtype;
    t.shape = std::move(header.shape);
    t.bytes.resize(want);
    CKPT_RETURN_IF_ERROR(file->read(header.dataOffset, want, t.bytes.data()));
    return t;
}

}  // namespace ckpt
