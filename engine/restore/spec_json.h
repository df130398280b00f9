#pragma once
// A model spec's JSON read into one flat, compact document: every value a
// 24-byte node in a vector, strings in one arena, object keys interned.
// A spec of 150,000 objects is 23 MB of JSON; nlohmann's own tree of it
// took ~200 MB and most of a second, which `ckpt restore --match-only`
// must not spend (issue #34). Read by a SAX pass, without recursion at any
// depth. JsonRef answers what the spec reader asks, with nlohmann::json's
// semantics (a repeated key keeps its last value; numbers compare and
// convert across integer, unsigned and float). Internal to the engine.
//   auto doc = SpecJson::parse(text);            // InvalidArgument-ready message on bad JSON
//   JsonRef root = doc->root();
//   if (root.is_object() && root.contains("objects")) ...

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ckpt/status.h"

namespace ckpt::spec {

enum class JsonType : uint8_t { Null, Boolean, Integer, Unsigned, Float, String, Array, Object };

class SpecJson;

// A key resolved once (SpecJson::key): looking members up by it costs no
// hashing, which matters at millions of lookups.
struct JsonKey {
    uint32_t id = UINT32_MAX;  // UINT32_MAX: no member anywhere has this key
};

// A value of a SpecJson; cheap to copy, valid while the document lives.
class JsonRef {
public:
    JsonRef(const SpecJson* doc, uint32_t node) : m_doc(doc), m_node(node) {}

    JsonType type() const;
    bool is_null() const { return type() == JsonType::Null; }
    bool is_boolean() const { return type() == JsonType::Boolean; }
    bool is_number_integer() const { return type() == JsonType::Integer || type() == JsonType::Unsigned; }
    bool is_number_unsigned() const { return type() == JsonType::Unsigned; }
    bool is_number() const { return is_number_integer() || type() == JsonType::Float; }
    bool is_string() const { return type() == JsonType::String; }
    bool is_array() const { return type() == JsonType::Array; }
    bool is_object() const { return type() == JsonType::Object; }

    // Arrays: elements; objects: members (in the order written).
    size_t size() const;
    bool empty() const { return size() == 0; }
    JsonRef operator[](size_t index) const;  // an array's element
    // An object's member; a repeated key answers its last value.
    bool contains(std::string_view key) const;
    JsonRef operator[](std::string_view key) const;  // must be contained
    bool contains(JsonKey key) const { return member(key.id) != UINT32_MAX; }
    JsonRef operator[](JsonKey key) const { return {m_doc, member(key.id)}; }  // must be contained
    // The key of an object's member 'index' (index < size()); no copy, so
    // checking every object's keys allocates nothing.
    std::string_view keyAt(size_t index) const;

    // Conversions as nlohmann::json's get<T>() makes them from any number.
    int64_t asInt64() const;
    uint64_t asUint64() const;
    double asDouble() const;
    bool asBool() const;
    std::string_view asString() const;
    std::string stringValue() const { return std::string(asString()); }
    // nlohmann's == between this value and 1 / "text".
    bool equals(int64_t number) const;
    bool equals(std::string_view text) const;

private:
    uint32_t member(uint32_t keyId) const;  // UINT32_MAX when absent
    const SpecJson* m_doc;
    uint32_t m_node;
};

class SpecJson {
public:
    // The document, or the parser's message (the caller words the error).
    // Read by a purpose-built scanner; text it does not take (all invalid
    // JSON among it) is read again by nlohmann's parser, whose document and
    // messages are the reference.
    static Result<std::unique_ptr<SpecJson>> parse(std::string_view text);
    // One reader only: the scanner (any message: it gives up without one)
    // or nlohmann's. For tests and the fuzz harness, which check they agree.
    static Result<std::unique_ptr<SpecJson>> parseWith(std::string_view text, bool scanner);
    // Node for node, key for key, the same document.
    bool identical(const SpecJson& other) const;

    JsonRef root() const { return {this, 0}; }
    JsonKey key(std::string_view text) const;

private:
    friend class JsonRef;
    friend class SpecJsonBuilder;
    friend class SpecJsonScanner;
    struct Node {
        JsonType type = JsonType::Null;
        uint32_t key = 0;    // an object member's key (index into m_keys)
        uint32_t first = 0;  // containers: first child in m_children; strings: offset in m_text
        uint32_t count = 0;  // containers: children; strings: length
        union {
            bool b;
            int64_t i;
            uint64_t u;
            double d;
        } number{};
    };
    static_assert(sizeof(Node) == 24);

    std::vector<Node> m_nodes;
    std::vector<uint32_t> m_children;                         // node indices, each container's contiguous
    std::string m_text;                                       // string values
    std::deque<std::string> m_keys;                           // a deque keeps the views below valid
    std::unordered_map<std::string_view, uint32_t> m_keyIds;  // views into m_keys
};

}  // namespace ckpt::spec
