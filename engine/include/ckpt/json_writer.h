#pragma once
// Writes JSON as it goes, byte for byte as nlohmann's
// dump(indent, ' ', false, error_handler_t::replace) prints the same
// document (the CLI's printJson uses indent 1), without building the
// document first. For outputs with one entry per tensor or per node: a DOM
// of a 100,000-tensor listing took longer to build than the listing
// itself, and a restore report's DOM took gigabytes (issue #34).
// Callers write object members in nlohmann's order (sorted by key).
// One writer belongs to one thread.
//   JsonWriter w(std::cout);
//   w.beginObject();
//   w.key("id");
//   w.integer(3);
//   w.endObject();
//   w.finish();  // newline, flush

#include <concepts>
#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace ckpt {

class JsonWriter {
public:
    // 'indent' spaces per level as nlohmann's dump takes it; negative: compact.
    explicit JsonWriter(std::ostream& out, int indent = 1);
    ~JsonWriter();  // flushes what is buffered
    JsonWriter(const JsonWriter&) = delete;
    JsonWriter& operator=(const JsonWriter&) = delete;

    void beginObject();
    void endObject();
    void beginArray();
    void endArray();
    // The next value is this member's.
    void key(std::string_view name);

    void string(std::string_view s);
    void integer(std::integral auto v) {
        if constexpr (std::signed_integral<decltype(v)>) signedInteger(v);
        else unsignedInteger(v);
    }
    void boolean(bool v);
    void null();
    // A scalar already in JSON text (a number as nlohmann formats it).
    void formatted(std::string_view json);

    // Ends the document with a newline (as printJson does) and flushes.
    void finish();
    // Writes out what is buffered, adding nothing.
    void flush();

private:
    void signedInteger(int64_t v);
    void unsignedInteger(uint64_t v);
    void beforeValue();  // separator and indentation of an array element
    void newline();      // a line break and the current level's indentation (none when compact)
    void appendQuoted(std::string_view s);
    void beginContainer(char open);
    void endContainer(char close);
    void flushIfFull();

    struct Level {
        bool empty = true;
    };
    std::ostream& m_out;
    std::string m_buffer;
    std::vector<Level> m_levels;
    int m_indent;
    bool m_afterKey = false;
};

}  // namespace ckpt
