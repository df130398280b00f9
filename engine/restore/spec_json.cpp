#include "restore/spec_json.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstring>

namespace ckpt::spec {

// Builds the flat document from nlohmann's SAX events. The children of open
// containers wait on one stack and are copied to m_children when their
// container closes, so every container's children are contiguous.
class SpecJsonBuilder final : public nlohmann::json_sax<nlohmann::json> {
public:
    explicit SpecJsonBuilder(SpecJson& doc) : m_doc(doc) {}

    bool null() override { return value(SpecJson::Node{}); }
    bool boolean(bool v) override {
        SpecJson::Node n;
        n.type = JsonType::Boolean;
        n.number.b = v;
        return value(n);
    }
    bool number_integer(number_integer_t v) override {
        SpecJson::Node n;
        n.type = JsonType::Integer;
        n.number.i = v;
        return value(n);
    }
    bool number_unsigned(number_unsigned_t v) override {
        SpecJson::Node n;
        n.type = JsonType::Unsigned;
        n.number.u = v;
        return value(n);
    }
    bool number_float(number_float_t v, const string_t&) override {
        SpecJson::Node n;
        n.type = JsonType::Float;
        n.number.d = v;
        return value(n);
    }
    bool string(string_t& v) override { return text(v); }
    bool text(std::string_view v) {
        SpecJson::Node n;
        n.type = JsonType::String;
        n.first = static_cast<uint32_t>(m_doc.m_text.size());
        n.count = static_cast<uint32_t>(v.size());
        m_doc.m_text += v;
        return value(n);
    }
    bool binary(binary_t&) override { return false; }  // JSON text has none
    bool start_object(std::size_t) override { return open(JsonType::Object); }
    bool key(string_t& k) override { return name(k); }
    bool name(std::string_view k) {
        auto it = m_doc.m_keyIds.find(k);
        if (it == m_doc.m_keyIds.end()) {
            const std::string& stored = m_doc.m_keys.emplace_back(k);
            it = m_doc.m_keyIds.emplace(stored, static_cast<uint32_t>(m_doc.m_keys.size() - 1)).first;
        }
        m_key = it->second;
        return true;
    }
    bool end_object() override { return close(); }
    bool start_array(std::size_t) override { return open(JsonType::Array); }
    bool end_array() override { return close(); }
    bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& e) override {
        m_error = e.what();
        return false;
    }

    const std::string& error() const { return m_error; }

private:
    // Appends a node as the current container's next child (or the root).
    uint32_t append(SpecJson::Node n) {
        n.key = m_key;
        const auto index = static_cast<uint32_t>(m_doc.m_nodes.size());
        m_doc.m_nodes.push_back(n);
        if (!m_open.empty()) m_pending.push_back(index);
        return index;
    }
    bool value(const SpecJson::Node& n) {
        append(n);
        return true;
    }
    bool open(JsonType type) {
        SpecJson::Node n;
        n.type = type;
        const uint32_t index = append(n);
        m_open.emplace_back(index, m_pending.size());
        return true;
    }
    bool close() {
        const auto [index, start] = m_open.back();
        m_open.pop_back();
        SpecJson::Node& n = m_doc.m_nodes[index];
        n.first = static_cast<uint32_t>(m_doc.m_children.size());
        n.count = static_cast<uint32_t>(m_pending.size() - start);
        m_doc.m_children.insert(m_doc.m_children.end(), m_pending.begin() + static_cast<std::ptrdiff_t>(start), m_pending.end());
        m_pending.resize(start);
        return true;
    }

    SpecJson& m_doc;
    uint32_t m_key = 0;
    std::vector<std::pair<uint32_t, size_t>> m_open;  // open containers: node, where their children start in m_pending
    std::vector<uint32_t> m_pending;                  // children of open containers
    std::string m_error;
};

// A strict RFC 8259 reader for the common case, feeding the same builder
// without nlohmann's per-character lexer, token copies and virtual calls
// (most of the parse's time). It accepts a subset of what nlohmann accepts
// and builds the same document from it; anything else (a syntax error, a
// number it cannot convert exactly as nlohmann would) makes it give up, and
// nlohmann's parser reads the text again: its document, or its message.
class SpecJsonScanner {
public:
    SpecJsonScanner(std::string_view text, SpecJsonBuilder& out)
        : m_p(text.data()), m_end(text.data() + text.size()), m_out(out) {}

    bool run() {
        if (m_end - m_p >= 3 && std::memcmp(m_p, "\xEF\xBB\xBF", 3) == 0) m_p += 3;  // nlohmann skips a UTF-8 BOM
        // Open containers: true for an object. Explicit, so depth costs no stack.
        std::vector<bool> open;
        skipSpace();
        for (;;) {
            // A value.
            if (m_p == m_end) return false;
            switch (*m_p) {
            case '{':
                ++m_p;
                m_out.start_object(0);
                skipSpace();
                if (m_p != m_end && *m_p == '}') {
                    ++m_p;
                    m_out.end_object();
                    break;
                }
                open.push_back(true);
                if (!member()) return false;
                continue;
            case '[':
                ++m_p;
                m_out.start_array(0);
                skipSpace();
                if (m_p != m_end && *m_p == ']') {
                    ++m_p;
                    m_out.end_array();
                    break;
                }
                open.push_back(false);
                continue;
            case '"':
                if (!string()) return false;
                m_out.text(m_string);
                break;
            case 't':
                if (!literal("true")) return false;
                m_out.boolean(true);
                break;
            case 'f':
                if (!literal("false")) return false;
                m_out.boolean(false);
                break;
            case 'n':
                if (!literal("null")) return false;
                m_out.null();
                break;
            default:
                if (!number()) return false;
            }
            // After a value: the next element or member, or the ends of containers.
            for (;;) {
                skipSpace();
                if (open.empty()) return m_p == m_end;
                if (m_p == m_end) return false;
                const char c = *m_p++;
                if (c == ',') {
                    skipSpace();
                    if (open.back() && !member()) return false;
                    break;
                }
                if (c != (open.back() ? '}' : ']')) return false;
                if (open.back()) m_out.end_object();
                else m_out.end_array();
                open.pop_back();
            }
        }
    }

private:
    void skipSpace() {
        while (m_p != m_end && (*m_p == ' ' || *m_p == '\n' || *m_p == '\r' || *m_p == '\t')) ++m_p;
    }

    // "key" : (the value follows).
    bool member() {
        if (m_p == m_end || *m_p != '"' || !string()) return false;
        m_out.name(m_string);
        skipSpace();
        if (m_p == m_end || *m_p != ':') return false;
        ++m_p;
        skipSpace();
        return true;
    }

    bool literal(std::string_view word) {
        if (static_cast<size_t>(m_end - m_p) < word.size() || std::string_view(m_p, word.size()) != word) return false;
        m_p += word.size();
        return true;
    }

    // A string at m_p into m_string: a view of the text when it holds no
    // escape, else the decoded bytes in m_scratch. Control characters,
    // invalid UTF-8 and bad escapes make it give up (nlohmann rejects them).
    bool string() {
        const char* start = ++m_p;
        while (m_p != m_end) {
            const auto c = static_cast<unsigned char>(*m_p);
            if (c == '"') {
                m_string = std::string_view(start, static_cast<size_t>(m_p - start));
                ++m_p;
                return true;
            }
            if (c == '\\' || c < 0x20 || c >= 0x80) break;
            ++m_p;
        }
        m_scratch.assign(start, m_p);
        while (m_p != m_end) {
            const auto c = static_cast<unsigned char>(*m_p);
            if (c == '"') {
                ++m_p;
                m_string = m_scratch;
                return true;
            }
            if (c < 0x20) return false;
            if (c == '\\') {
                if (!escape()) return false;
            } else if (c >= 0x80) {
                if (!utf8()) return false;
            } else {
                m_scratch.push_back(static_cast<char>(c));
                ++m_p;
            }
        }
        return false;
    }

    // One UTF-8 sequence, checked as RFC 3629 (and nlohmann) define it.
    bool utf8() {
        const auto b0 = static_cast<unsigned char>(*m_p);
        int more = 0;
        unsigned char lo = 0x80, hi = 0xBF;  // the second byte's range
        if (b0 >= 0xC2 && b0 <= 0xDF) more = 1;
        else if (b0 == 0xE0) more = 2, lo = 0xA0;
        else if (b0 >= 0xE1 && b0 <= 0xEC) more = 2;
        else if (b0 == 0xED) more = 2, hi = 0x9F;
        else if (b0 >= 0xEE && b0 <= 0xEF) more = 2;
        else if (b0 == 0xF0) more = 3, lo = 0x90;
        else if (b0 >= 0xF1 && b0 <= 0xF3) more = 3;
        else if (b0 == 0xF4) more = 3, hi = 0x8F;
        else return false;
        if (m_end - m_p <= more) return false;
        for (int k = 1; k <= more; ++k) {
            const auto b = static_cast<unsigned char>(m_p[k]);
            if (b < (k == 1 ? lo : 0x80) || b > (k == 1 ? hi : 0xBF)) return false;
        }
        m_scratch.append(m_p, static_cast<size_t>(more) + 1);
        m_p += more + 1;
        return true;
    }

    bool hex4(uint32_t& v) {
        if (m_end - m_p < 4) return false;
        v = 0;
        for (int k = 0; k < 4; ++k) {
            const char c = *m_p++;
            v <<= 4;
            if (c >= '0' && c <= '9') v |= static_cast<uint32_t>(c - '0');
            else if (c >= 'a' && c <= 'f') v |= static_cast<uint32_t>(c - 'a' + 10);
            else if (c >= 'A' && c <= 'F') v |= static_cast<uint32_t>(c - 'A' + 10);
            else return false;
        }
        return true;
    }

    bool escape() {
        if (m_end - m_p < 2) return false;
        const char e = m_p[1];
        m_p += 2;
        switch (e) {
        case '"': m_scratch.push_back('"'); return true;
        case '\\': m_scratch.push_back('\\'); return true;
        case '/': m_scratch.push_back('/'); return true;
        case 'b': m_scratch.push_back('\b'); return true;
        case 'f': m_scratch.push_back('\f'); return true;
        case 'n': m_scratch.push_back('\n'); return true;
        case 'r': m_scratch.push_back('\r'); return true;
        case 't': m_scratch.push_back('\t'); return true;
        case 'u': break;
        default: return false;
        }
        uint32_t cp = 0;
        if (!hex4(cp)) return false;
        if (cp >= 0xDC00 && cp <= 0xDFFF) return false;  // a low surrogate first
        if (cp >= 0xD800 && cp <= 0xDBFF) {
            uint32_t low = 0;
            if (m_end - m_p < 2 || m_p[0] != '\\' || m_p[1] != 'u') return false;
            m_p += 2;
            if (!hex4(low) || low < 0xDC00 || low > 0xDFFF) return false;
            cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
        }
        if (cp < 0x80) {
            m_scratch.push_back(static_cast<char>(cp));
        } else if (cp < 0x800) {
            m_scratch.push_back(static_cast<char>(0xC0 | (cp >> 6)));
            m_scratch.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
        } else if (cp < 0x10000) {
            m_scratch.push_back(static_cast<char>(0xE0 | (cp >> 12)));
            m_scratch.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
            m_scratch.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
        } else {
            m_scratch.push_back(static_cast<char>(0xF0 | (cp >> 18)));
            m_scratch.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
            m_scratch.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
            m_scratch.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
        }
        return true;
    }

    static bool isDigit(char c) { return c >= '0' && c <= '9'; }

    // JSON's number grammar; integers as nlohmann types them (unsigned
    // unless negative), floats correctly rounded as strtod. One that
    // overflows its type, or a float beyond double, makes it give up.
    bool number() {
        const char* start = m_p;
        if (*m_p == '-') ++m_p;
        if (m_p == m_end || !isDigit(*m_p)) return false;
        if (*m_p == '0') ++m_p;
        else
            while (m_p != m_end && isDigit(*m_p)) ++m_p;
        bool integral = true;
        if (m_p != m_end && *m_p == '.') {
            integral = false;
            ++m_p;
            if (m_p == m_end || !isDigit(*m_p)) return false;
            while (m_p != m_end && isDigit(*m_p)) ++m_p;
        }
        if (m_p != m_end && (*m_p == 'e' || *m_p == 'E')) {
            integral = false;
            ++m_p;
            if (m_p != m_end && (*m_p == '+' || *m_p == '-')) ++m_p;
            if (m_p == m_end || !isDigit(*m_p)) return false;
            while (m_p != m_end && isDigit(*m_p)) ++m_p;
        }
        if (integral && *start == '-') {
            int64_t v = 0;
            const auto r = std::from_chars(start, m_p, v);
            return r.ec == std::errc() && r.ptr == m_p && m_out.number_integer(v);
        }
        if (integral) {
            uint64_t v = 0;
            const auto r = std::from_chars(start, m_p, v);
            return r.ec == std::errc() && r.ptr == m_p && m_out.number_unsigned(v);
        }
        double v = 0;
        const auto r = std::from_chars(start, m_p, v);
        return r.ec == std::errc() && r.ptr == m_p && std::isfinite(v) && m_out.number_float(v, m_noText);
    }

    const char* m_p;
    const char* m_end;
    SpecJsonBuilder& m_out;
    std::string_view m_string;  // the last string read
    std::string m_scratch;      // its bytes when it had escapes or UTF-8
    const std::string m_noText;
};

Result<std::unique_ptr<SpecJson>> SpecJson::parse(std::string_view text) {
    auto fast = parseWith(text, true);
    if (fast.ok()) return fast;
    return parseWith(text, false);
}

Result<std::unique_ptr<SpecJson>> SpecJson::parseWith(std::string_view text, bool scanner) {
    std::unique_ptr<SpecJson> doc(new SpecJson);
    // A spec's values take 16 bytes of text or more (a nested array of small
    // numbers less, and then the vectors grow): reserving maps address space
    // only, and spares the copies and page faults of growing.
    doc->m_nodes.reserve(text.size() / 8 + 1);
    doc->m_children.reserve(text.size() / 8 + 1);
    doc->m_text.reserve(text.size() / 4);
    SpecJsonBuilder builder(*doc);
    if (scanner) {
        if (!SpecJsonScanner(text, builder).run()) return invalidArgument("not read by the scanner");
        return doc;
    }
    const bool ok = nlohmann::json::sax_parse(text.begin(), text.end(), &builder);
    if (!ok || doc->m_nodes.empty()) return invalidArgument(builder.error().empty() ? "not valid JSON" : builder.error());
    return doc;
}

bool SpecJson::identical(const SpecJson& other) const {
    if (m_nodes.size() != other.m_nodes.size() || m_children != other.m_children || m_text != other.m_text ||
        m_keys != other.m_keys)
        return false;
    for (size_t i = 0; i < m_nodes.size(); ++i) {
        const Node &a = m_nodes[i], &b = other.m_nodes[i];
        if (a.type != b.type || a.key != b.key || a.first != b.first || a.count != b.count) return false;
        const bool same = a.type == JsonType::Boolean    ? a.number.b == b.number.b
                          : a.type == JsonType::Integer  ? a.number.i == b.number.i
                          : a.type == JsonType::Unsigned ? a.number.u == b.number.u
                          : a.type == JsonType::Float
                              ? std::bit_cast<uint64_t>(a.number.d) == std::bit_cast<uint64_t>(b.number.d)  // -0.0 too
                              : true;
        if (!same) return false;
    }
    return true;
}

JsonType JsonRef::type() const { return m_doc->m_nodes[m_node].type; }

size_t JsonRef::size() const {
    const auto& n = m_doc->m_nodes[m_node];
    return n.type == JsonType::Array || n.type == JsonType::Object ? n.count : 0;
}

JsonRef JsonRef::operator[](size_t index) const { return {m_doc, m_doc->m_children[m_doc->m_nodes[m_node].first + index]}; }

JsonKey SpecJson::key(std::string_view text) const {
    const auto it = m_keyIds.find(text);
    return {it == m_keyIds.end() ? UINT32_MAX : it->second};
}

uint32_t JsonRef::member(uint32_t keyId) const {
    const auto& n = m_doc->m_nodes[m_node];
    if (n.type != JsonType::Object || keyId == UINT32_MAX) return UINT32_MAX;
    // The last one: a repeated key keeps its last value, as in nlohmann's objects.
    for (uint32_t k = n.count; k-- > 0;) {
        const uint32_t child = m_doc->m_children[n.first + k];
        if (m_doc->m_nodes[child].key == keyId) return child;
    }
    return UINT32_MAX;
}

bool JsonRef::contains(std::string_view key) const { return contains(m_doc->key(key)); }

JsonRef JsonRef::operator[](std::string_view key) const { return (*this)[m_doc->key(key)]; }

std::string_view JsonRef::keyAt(size_t index) const {
    const auto& n = m_doc->m_nodes[m_node];
    return m_doc->m_keys[m_doc->m_nodes[m_doc->m_children[n.first + index]].key];
}

int64_t JsonRef::asInt64() const {
    const auto& n = m_doc->m_nodes[m_node];
    switch (n.type) {
    case JsonType::Integer: return n.number.i;
    case JsonType::Unsigned: return static_cast<int64_t>(n.number.u);
    case JsonType::Float: return static_cast<int64_t>(n.number.d);
    default: return 0;
    }
}

uint64_t JsonRef::asUint64() const {
    const auto& n = m_doc->m_nodes[m_node];
    switch (n.type) {
    case JsonType::Integer: return static_cast<uint64_t>(n.number.i);
    case JsonType::Unsigned: return n.number.u;
    case JsonType::Float: return static_cast<uint64_t>(n.number.d);
    default: return 0;
    }
}

double JsonRef::asDouble() const {
    const auto& n = m_doc->m_nodes[m_node];
    switch (n.type) {
    case JsonType::Integer: return static_cast<double>(n.number.i);
    case JsonType::Unsigned: return static_cast<double>(n.number.u);
    case JsonType::Float: return n.number.d;
    default: return 0;
    }
}

bool JsonRef::asBool() const { return m_doc->m_nodes[m_node].type == JsonType::Boolean && m_doc->m_nodes[m_node].number.b; }

std::string_view JsonRef::asString() const {
    const auto& n = m_doc->m_nodes[m_node];
    if (n.type != JsonType::String) return {};
    return std::string_view(m_doc->m_text).substr(n.first, n.count);
}

bool JsonRef::equals(int64_t number) const {
    switch (type()) {
    case JsonType::Integer: return asInt64() == number;
    case JsonType::Unsigned: return number >= 0 && asUint64() == static_cast<uint64_t>(number);
    case JsonType::Float: return asDouble() == static_cast<double>(number);
    default: return false;
    }
}

bool JsonRef::equals(std::string_view text) const { return is_string() && asString() == text; }

}  // namespace ckpt::spec
