#include "json_writer.h"

#include <nlohmann/json.hpp>

#include <charconv>

namespace ckpt::cli {
namespace {

constexpr size_t kFlushBytes = 1u << 16;

// Bytes nlohmann's serializer would change: escapes, and (for invalid
// UTF-8) replacement. Plain ASCII is copied as is.
bool needsSerializer(std::string_view s) {
    for (char c : s) {
        const auto b = static_cast<unsigned char>(c);
        if (b < 0x20 || b >= 0x80 || b == '"' || b == '\\') return true;
    }
    return false;
}

} // namespace

JsonWriter::JsonWriter(std::ostream& out) : m_out(out) { m_buffer.reserve(kFlushBytes + 4096); }

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
    m_buffer += level.empty ? "\n" : ",\n";
    level.empty = false;
    m_buffer.append(m_levels.size(), ' ');
}

void JsonWriter::beginContainer(char open) {
    beforeValue();
    m_buffer.push_back(open);
    m_levels.push_back({});
}

void JsonWriter::endContainer(char close) {
    const bool empty = m_levels.back().empty;
    m_levels.pop_back();
    if (!empty) {
        m_buffer.push_back('\n');
        m_buffer.append(m_levels.size(), ' ');
    }
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
    m_buffer += ": ";
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

void JsonWriter::finish() {
    m_buffer.push_back('\n');
    m_out.write(m_buffer.data(), static_cast<std::streamsize>(m_buffer.size()));
    m_buffer.clear();
    m_out.flush();
}

} // namespace ckpt::cli
