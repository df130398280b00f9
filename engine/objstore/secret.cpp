#include "objstore/secret.h"

#include <openssl/crypto.h>

namespace ckpt::objstore {

Secret::~Secret() {
    // Moved-from strings are empty; a live one is wiped before it is freed.
    if (!m_value.empty()) OPENSSL_cleanse(m_value.data(), m_value.size());
}

namespace {
void replaceAll(std::string& text, const std::string& needle) {
    if (needle.empty()) return;
    static constexpr std::string_view kMark = "[redacted]";
    for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + kMark.size()))
        text.replace(at, needle.size(), kMark);
}
}  // namespace

std::string redact(std::string text, const Secret& a, const Secret& b) {
    replaceAll(text, a.reveal());
    replaceAll(text, b.reveal());
    return text;
}

}  // namespace ckpt::objstore
