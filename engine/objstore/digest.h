#pragma once
// The digests S3 requests and objects carry (platform/digest.h computes
// them): the payload hash, signatures, Content-MD5, and the ETag S3 gives a
// multipart object. Thread-safe, no state.

#include <string>
#include <string_view>
#include <vector>

#include "platform/digest.h"

namespace ckpt::objstore {

using platform::Digest256;
using platform::hexLower;
using platform::hmacSha256;
using platform::md5Base64;
using platform::md5Hex;
using platform::sha256;
using platform::sha256Hex;

// The ETag S3 gives the object a multipart upload of these parts makes:
// the MD5 of the parts' MD5s (their ETags, hex) then "-<parts>". Empty when
// an ETag is not 32 hex digits (a server whose part ETags are not MD5s).
std::string multipartEtag(const std::vector<std::string>& partEtags);

// sha256("") in hex: the payload hash of every request without a body.
inline constexpr std::string_view kEmptyPayloadSha256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

}  // namespace ckpt::objstore
