#include "platform/digest.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <span>

namespace ckpt::platform {

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

using Md5 = std::array<uint8_t, 16>;

Md5 md5(std::string_view data) {
    Md5 out{};
    unsigned int length = 0;
    EVP_Digest(data.data(), data.size(), out.data(), &length, EVP_md5(), nullptr);
    return out;
}

std::string hex(std::span<const uint8_t> bytes) {
    static constexpr char kHex[] = "0123456789abcdef";
    std::string out;
    out.reserve(bytes.size() * 2);
    for (uint8_t b : bytes) {
        out.push_back(kHex[b >> 4]);
        out.push_back(kHex[b & 0xf]);
    }
    return out;
}

}  // namespace

std::string md5Base64(std::string_view data) {
    const Md5 digest = md5(data);
    // 24 characters for 16 bytes, and the terminator EVP_EncodeBlock writes.
    std::string out(25, '\0');
    const int written =
        EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()), digest.data(), static_cast<int>(digest.size()));
    out.resize(written > 0 ? static_cast<size_t>(written) : 0);
    return out;
}

std::string md5Hex(std::string_view data) { return hex(md5(data)); }

std::string hexLower(const Digest256& digest) { return hex(digest); }

}  // namespace ckpt::platform
