#include "format/ordered_code.h"

#include <cstdint>

namespace ckpt::format {
namespace {

void appendNumIncreasing(std::string& out, uint64_t v) {
    // Length byte, then the value's big-endian bytes without leading zeros.
    unsigned char bytes[8];
    int n = 0;
    while (v) {
        bytes[n++] = static_cast<unsigned char>(v & 0xff);
        v >>= 8;
    }
    out.push_back(static_cast<char>(n));
    while (n) out.push_back(static_cast<char>(bytes[--n]));
}

void appendSignedNumIncreasing(std::string& out, int64_t v) {
    const uint64_t x = v < 0 ? ~static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
    int n = 1;  // smallest n with x < 2^(7n-1)
    while (n < 10 && (7 * n - 1 >= 64 ? false : x >= (uint64_t{1} << (7 * n - 1)))) ++n;
    unsigned char buf[10];
    uint64_t u = static_cast<uint64_t>(v);
    for (int i = n - 1; i >= 0; --i) {
        buf[i] = static_cast<unsigned char>(u & 0xff);
        u = v < 0 ? (u >> 8) | (uint64_t{0xff} << 56) : u >> 8;
    }
    for (int i = 0; i < n; ++i) buf[i / 8] ^= static_cast<unsigned char>(0x80u >> (i % 8));
    out.append(reinterpret_cast<const char*>(buf), static_cast<size_t>(n));
}

class Cursor {
public:
    explicit Cursor(std::string_view s) : m_s(s) {}
    bool empty() const { return m_pos >= m_s.size(); }
    bool byte(unsigned char& b) {
        if (empty()) return false;
        b = static_cast<unsigned char>(m_s[m_pos++]);
        return true;
    }
    bool peek(size_t ahead, unsigned char& b) const {
        if (m_pos + ahead >= m_s.size()) return false;
        b = static_cast<unsigned char>(m_s[m_pos + ahead]);
        return true;
    }

    bool numIncreasing(uint64_t& v) {
        unsigned char len = 0;
        if (!byte(len) || len > 8) return false;
        v = 0;
        for (int i = 0; i < len; ++i) {
            unsigned char b = 0;
            if (!byte(b)) return false;
            v = (v << 8) | b;
        }
        return true;
    }

    bool string(std::string& out) {
        for (;;) {
            unsigned char b = 0;
            if (!byte(b)) return false;
            if (b == 0x00) {
                unsigned char next = 0;
                if (!byte(next)) return false;
                if (next == 0x01) return true;   // terminator
                if (next != 0xff) return false;  // 00 ff encodes 00
                out.push_back('\0');
            } else if (b == 0xff) {
                unsigned char next = 0;
                if (!byte(next) || next != 0x00) return false;  // ff 00 encodes ff
                out.push_back(static_cast<char>(0xff));
            } else {
                out.push_back(static_cast<char>(b));
            }
        }
    }

    bool signedNumIncreasing(int64_t& v) {
        unsigned char first = 0, second = 0;
        if (!peek(0, first)) return false;
        const unsigned char signMask = (first & 0x80) ? 0x00 : 0xff;  // normalise to a run of ones
        const bool haveSecond = peek(1, second);
        const unsigned window =
            (static_cast<unsigned>(first ^ signMask) << 8) | (haveSecond ? static_cast<unsigned>(second ^ signMask) : 0u);
        int n = 0;
        while (n < 16 && (window & (0x8000u >> n))) ++n;
        if (n < 1 || n > 10) return false;
        unsigned char buf[10];
        for (int i = 0; i < n; ++i)
            if (!byte(buf[i])) return false;
        for (int i = 0; i < n; ++i) buf[i / 8] ^= static_cast<unsigned char>(0x80u >> (i % 8));
        uint64_t u = (buf[0] & 0x80) ? ~uint64_t{0} : 0;
        for (int i = 0; i < n; ++i) u = (u << 8) | buf[i];
        v = static_cast<int64_t>(u);
        return true;
    }

private:
    std::string_view m_s;
    size_t m_pos = 0;
};

}  // namespace

std::string encodeSliceKey(std::string_view fullKey, const TensorSlice& slice) {
    std::string out;
    appendNumIncreasing(out, 0);
    for (char c : fullKey) {
        const auto b = static_cast<unsigned char>(c);
        if (b == 0x00) out.append("\x00\xff", 2);
        else if (b == 0xff) out.append("\xff\x00", 2);
        else out.push_back(c);
    }
    out.append("\x00\x01", 2);
    appendNumIncreasing(out, slice.extents.size());
    for (const SliceExtent& e : slice.extents) {
        appendSignedNumIncreasing(out, e.isFull() ? 0 : e.start);
        appendSignedNumIncreasing(out, e.isFull() ? -1 : e.length);
    }
    return out;
}

Result<SliceKey> decodeSliceKey(std::string_view key, std::string_view where) {
    auto bad = [&](const char* what) {
        return dataLoss("malformed slice key " + printableKey(key) + " in " + std::string(where) + ": " + what);
    };
    Cursor c(key);
    uint64_t zero = 1, rank = 0;
    if (!c.numIncreasing(zero) || zero != 0) return bad("does not start with 0");
    SliceKey out;
    if (!c.string(out.fullKey)) return bad("unterminated tensor name");
    if (!c.numIncreasing(rank) || rank > 64) return bad("bad rank");
    for (uint64_t d = 0; d < rank; ++d) {
        int64_t start = 0, length = 0;
        if (!c.signedNumIncreasing(start) || !c.signedNumIncreasing(length)) return bad("bad extent");
        if (length == -1) out.slice.extents.push_back({0, -1});
        else if (start < 0 || length < 0) return bad("negative extent");
        else out.slice.extents.push_back({start, length});
    }
    if (!c.empty()) return bad("trailing bytes");
    return out;
}

std::string printableKey(std::string_view key) {
    static const char* kHex = "0123456789abcdef";
    std::string out = "\"";
    for (char ch : key) {
        const auto b = static_cast<unsigned char>(ch);
        if (b >= 0x20 && b < 0x7f && b != '"' && b != '\\') {
            out.push_back(ch);
        } else {
            out += "\\x";
            out.push_back(kHex[b >> 4]);
            out.push_back(kHex[b & 15]);
        }
    }
    out.push_back('"');
    return out;
}

}  // namespace ckpt::format
