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

std::string hexLower(const Digest256& digest) {
    static constexpr char kHex[] = "0123456789abcdef";
    std::string out;
    out.reserve(digest.size() * 2);
    for (uint8_t b : digest) {
        out.push_back(kHex[b >> 4]);
        out.push_back(kHex[b & 0xf]);
    }
    return out;
}

}  // namespace ckpt::objstore
