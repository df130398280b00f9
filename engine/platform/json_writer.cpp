#include "ckpt/json_writer.h"

#include <nlohmann/json.hpp>

#include <charconv>
#include <cstring>

namespace ckpt {
namespace {

constexpr size_t kFlushBytes = 1u << 16;

constexpr uint64_t kEveryByte = 0x0101010101010101ull;
constexpr uint64_t kHighBits = 0x8080808080808080ull;

// Whether any byte of 'w' is below 'n' (n <= 128), eight bytes at a time.
constexpr uint64_t anyByteBelow(uint64_t w, uint8_t n) { return (w - kEveryByte * n) & ~w & kHighBits; }

bool isSpecial(unsigned char b) { return b < 0x20 || b >= 0x80 || b == '"' || b == '\\'; }

// Bytes nlohmann's serializer would change: escapes, and (for invalid
// UTF-8) replacement. Plain ASCII is copied as is. Checked a word at a
// time: byte by byte this scan was the writer's largest cost.
bool needsSerializer(std::string_view s) {
    size_t i = 0;
    for (; i + 8 <= s.size(); i += 8) {
        uint64_t w = 0;
        std::memcpy(&w, s.data() + i, 8);
        if ((w & kHighBits) | anyByteBelow(w, 0x20) | anyByteBelow(w ^ (kEveryByte * '"'), 1) |
            anyByteBelow(w ^ (kEveryByte * '\\'), 1))
            return true;
    }
    for (; i < s.size(); ++i)
        if (isSpecial(static_cast<unsigned char>(s[i]))) return true;
    return false;
}

}  // namespace

JsonWriter::JsonWriter(std::ostream& out, int indent) : m_out(out), m_indent(indent) { m_buffer.reserve(kFlushBytes + 4096); }

JsonWriter::~JsonWriter() {
    if (!m_buffer.empty()) m_out.write(m_buffer.data(), static_cast<std::streamsize>(m_buffer.size()));
}

void JsonWriter::flushIfFull() {
    if (m_buffer.size() < kFlushBytes) return;
    m_out.write(m_buffer.data(), static_cast<std::streamsize>(m_buffer.size()));
    m_buffer.clear();
}

void JsonWriter::beforeValue() {
    if (m_afterKey) {
        m_afterKey = false;
        return;
    }
    if (m_levels.empty()) return;  // the top-level value
    Level& level = m_levels.back();
    if (!level.empty) m_buffer.push_back(',');
    level.empty = false;
    newline();
}

void JsonWriter::newline() {
    if (m_indent < 0) return;
    m_buffer.push_back('\n');
    m_buffer.append(m_levels.size() * static_cast<size_t>(m_indent), ' ');
}

void JsonWriter::beginContainer(char open) {
    beforeValue();
    m_buffer.push_back(open);
    m_levels.push_back({});
}

void JsonWriter::endContainer(char close) {
    const bool empty = m_levels.back().empty;
    m_levels.pop_back();
    if (!empty) newline();
    m_buffer.push_back(close);
    flushIfFull();
}

void JsonWriter::beginObject() { beginContainer('{'); }
void JsonWriter::endObject() { endContainer('}'); }
void JsonWriter::beginArray() { beginContainer('['); }
void JsonWriter::endArray() { endContainer(']'); }

void JsonWriter::key(std::string_view name) {
    beforeValue();
    appendQuoted(name);
    m_buffer += m_indent < 0 ? ":" : ": ";
    m_afterKey = true;
}

void JsonWriter::string(std::string_view s) {
    beforeValue();
    appendQuoted(s);
}

void JsonWriter::appendQuoted(std::string_view s) {
    if (!needsSerializer(s)) {
        m_buffer.push_back('"');
        m_buffer.append(s);
        m_buffer.push_back('"');
        return;
    }
    // Rare: let nlohmann escape it, so escapes and the replacement of
    // invalid UTF-8 stay exactly its own. Its escaper (serializer::
    // dump_escaped) is private, hence a one-string document.
    m_buffer += nlohmann::json(std::string(s)).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

void JsonWriter::signedInteger(int64_t v) {
    beforeValue();
    char buf[24];
    const auto end = std::to_chars(buf, buf + sizeof buf, v).ptr;
    m_buffer.append(buf, end);
}

void JsonWriter::unsignedInteger(uint64_t v) {
    beforeValue();
    char buf[24];
    const auto end = std::to_chars(buf, buf + sizeof buf, v).ptr;
    m_buffer.append(buf, end);
}

void JsonWriter::boolean(bool v) {
    beforeValue();
    m_buffer += v ? "true" : "false";
}

void JsonWriter::null() {
    beforeValue();
    m_buffer += "null";
}

void JsonWriter::formatted(std::string_view json) {
    beforeValue();
    m_buffer += json;
}

void JsonWriter::finish() {
    m_buffer.push_back('\n');
    flush();
}

void JsonWriter::flush() {
    m_out.write(m_buffer.data(), static_cast<std::streamsize>(m_buffer.size()));
    m_buffer.clear();
    m_out.flush();
}

}  // namespace ckpt
