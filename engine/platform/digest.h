#pragma once
// SHA-256, HMAC-SHA256 and MD5 through OpenSSL's libcrypto (the one
// Debian's libcurl links): what SigV4 signs with and the payload hash every
// S3 request carries, the Content-MD5 of a body (every S3-compatible server
// checks it against the bytes it received: SeaweedFS does not check the
// signed payload hash, and a PUT cut off after its headers by a killed
// writer would otherwise store an empty object), a single PUT's ETag, and
// the digest the writers of one checkpoint compare their plans by.
// Thread-safe, no state.

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace ckpt::platform {

using Digest256 = std::array<uint8_t, 32>;

Digest256 sha256(std::string_view data);
Digest256 hmacSha256(std::string_view key, std::string_view data);
// Lower-case hex, as SigV4 writes hashes and signatures.
std::string hexLower(const Digest256& digest);
inline std::string sha256Hex(std::string_view data) { return hexLower(sha256(data)); }

// The base64 of the MD5 of 'data': a Content-MD5 header's value.
std::string md5Base64(std::string_view data);
// The MD5 of 'data' in lower-case hex: the ETag a store gives an object
// written by one PUT (not a multipart upload's).
std::string md5Hex(std::string_view data);

}  // namespace ckpt::platform
