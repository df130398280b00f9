#include "restore/spec_json.h"

#include <nlohmann/json.hpp>

#include <algorithm>

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
    bool string(string_t& v) override {
        SpecJson::Node n;
        n.type = JsonType::String;
        n.first = static_cast<uint32_t>(m_doc.m_text.size());
        n.count = static_cast<uint32_t>(v.size());
        m_doc.m_text += v;
        return value(n);
    }
    bool binary(binary_t&) override { return false; }  // JSON text has none
    bool start_object(std::size_t) override { return open(JsonType::Object); }
    bool key(string_t& k) override {
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

Result<std::unique_ptr<SpecJson>> SpecJson::parse(std::string_view text) {
    std::unique_ptr<SpecJson> doc(new SpecJson);
    // A spec's values take 16 bytes of text or more (a nested array of small
    // numbers less, and then the vectors grow): reserving maps address space
    // only, and spares the copies and page faults of growing.
    doc->m_nodes.reserve(text.size() / 8 + 1);
    doc->m_children.reserve(text.size() / 8 + 1);
    SpecJsonBuilder builder(*doc);
    const bool ok = nlohmann::json::sax_parse(text.begin(), text.end(), &builder);
    if (!ok || doc->m_nodes.empty()) return invalidArgument(builder.error().empty() ? "not valid JSON" : builder.error());
    return doc;
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

std::vector<std::string_view> JsonRef::keys() const {
    std::vector<std::string_view> out;
    const auto& n = m_doc->m_nodes[m_node];
    if (n.type != JsonType::Object) return out;
    for (uint32_t k = 0; k < n.count; ++k) out.push_back(m_doc->m_keys[m_doc->m_nodes[m_doc->m_children[n.first + k]].key]);
    return out;
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
