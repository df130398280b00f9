#pragma once
// ASCII text helpers of the object-store code: header names, profile keys
// and host names are compared lower-cased; header values and profile lines
// are trimmed. Locale-free on purpose (a Turkish locale must not change "I").

#include <string>
#include <string_view>

namespace ckpt::objstore {

inline std::string lowerAscii(std::string_view s) {
    std::string out(s);
    for (char& c : out)
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c + ('a' - 'A'));
    return out;
}

// 's' without spaces, tabs, CR or LF at either end.
inline std::string_view trimWhitespace(std::string_view s) {
    const auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; };
    while (!s.empty() && blank(s.front())) s.remove_prefix(1);
    while (!s.empty() && blank(s.back())) s.remove_suffix(1);
    return s;
}

}  // namespace ckpt::objstore
