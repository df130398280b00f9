#include "objstore/digest.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>

namespace ckpt::objstore {

Digest256 sha256(std::string_view data) {
    Digest256 out{};
    unsigned int length = 0;
    // EVP_Digest fails only on allocation failure inside OpenSSL; the zero
    // digest then signs nothing the server accepts (a 403, not a crash).
    EVP_Digest(data.data(), data.size(), out.data(), &length, EVP_sha256(), nullptr);
    return out;
}

Digest256 hmacSha256(std::string_view key, std::string_view data) {
    Digest256 out{};
    unsigned int length = 0;
    HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()), reinterpret_cast<const unsigned char*>(data.data()), data.size(),
         out.data(), &length);
    return out;
}

namespace {

std::string hexOf(const uint8_t* bytes, size_t n) {
    static constexpr char kHex[] = "0123456789abcdef";
    std::string out;
    out.reserve(n * 2);
    for (size_t i = 0; i < n; ++i) {
        out.push_back(kHex[bytes[i] >> 4]);
        out.push_back(kHex[bytes[i] & 0xf]);
    }
    return out;
}

int hexDigit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

}  // namespace

std::string hexLower(const Digest256& digest) { return hexOf(digest.data(), digest.size()); }

std::string multipartEtag(const std::vector<std::string>& partEtags) {
    std::string md5s;
    md5s.reserve(partEtags.size() * 16);
    for (const std::string& etag : partEtags) {
        if (etag.size() != 32) return {};
        for (size_t i = 0; i < 32; i += 2) {
            const int hi = hexDigit(etag[i]), lo = hexDigit(etag[i + 1]);
            if (hi < 0 || lo < 0) return {};
            md5s.push_back(static_cast<char>(hi * 16 + lo));
        }
    }
    std::array<uint8_t, 16> md5{};
    unsigned int length = 0;
    EVP_Digest(md5s.data(), md5s.size(), md5.data(), &length, EVP_md5(), nullptr);
    return hexOf(md5.data(), md5.size()) + "-" + std::to_string(partEtags.size());
}

}  // namespace ckpt::objstore
