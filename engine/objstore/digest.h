#pragma once
// SHA-256 and HMAC-SHA256 through OpenSSL's libcrypto (the one Debian's
// libcurl links): what SigV4 signs with and the payload hash every S3
// request carries; the Content-MD5 of a body, which every S3-compatible
// server checks against the bytes it received (SeaweedFS does not check the
// signed payload hash: a PUT cut off after its headers, by a killed writer,
// would otherwise store an empty object); and the ETags S3 gives objects.
// Thread-safe, no state.

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ckpt::objstore {

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
// The ETag S3 gives the object a multipart upload of these parts makes:
// the MD5 of the parts' MD5s (their ETags, hex) then "-<parts>". Empty when
// an ETag is not 32 hex digits (a server whose part ETags are not MD5s).
std::string multipartEtag(const std::vector<std::string>& partEtags);

// sha256("") in hex: the payload hash of every request without a body.
inline constexpr std::string_view kEmptyPayloadSha256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

}  // namespace ckpt::objstore
