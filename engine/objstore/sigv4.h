#pragma once
// AWS Signature Version 4 (header form), written against AWS's
// specification and checked with its published test suite
// (tests/data/aws-sig-v4-test-suite). S3 and GCS's XML API take the same
// signature; S3's rules on the URI (encoded once, never normalised) are the
// ones request_target.h builds. Pure functions, thread-safe.
//   SigningInput in{"GET", t.canonicalUri, t.canonicalQuery,
//                   {{"host", t.host}, {"x-amz-date", date}, {"x-amz-content-sha256", hash}}, hash};
//   std::string auth = authorizationHeader(keyId, secret, scope, date, in);

#include <chrono>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "objstore/secret.h"

namespace ckpt::objstore {

using HeaderList = std::vector<std::pair<std::string, std::string>>;

// The parts of a request that are signed. Every header in 'headers' is
// signed; names may be in any case and may repeat (values are then joined
// with ',' in the order given).
struct SigningInput {
    std::string_view method;
    std::string_view canonicalUri;    // already encoded (request_target.h)
    std::string_view canonicalQuery;  // already encoded and sorted
    HeaderList headers;
    std::string_view payloadHash;  // hex sha256 of the body, or "UNSIGNED-PAYLOAD"
};

struct SigningScope {
    std::string date;     // YYYYMMDD, the day of the x-amz-date
    std::string region;   // "us-east-1"; GCS takes "auto"
    std::string service;  // "s3"
    std::string toString() const { return date + "/" + region + "/" + service + "/aws4_request"; }
};

struct CanonicalRequest {
    std::string text;           // the canonical request SigV4 hashes
    std::string signedHeaders;  // "host;x-amz-content-sha256;x-amz-date"
};

// Header names lower-cased and sorted, values trimmed with inner runs of
// spaces collapsed to one, duplicates joined.
CanonicalRequest canonicalRequest(const SigningInput& input);
// "AWS4-HMAC-SHA256\n<amzDate>\n<scope>\n<hex sha256 of the canonical request>".
std::string stringToSign(std::string_view amzDate, const SigningScope& scope, std::string_view canonicalRequestText);
// The derived-key HMAC chain over 'stringToSign', in hex.
std::string signature(const Secret& secretAccessKey, const SigningScope& scope, std::string_view stringToSign);
// "AWS4-HMAC-SHA256 Credential=<id>/<scope>, SignedHeaders=..., Signature=...".
std::string authorizationHeader(std::string_view accessKeyId, const Secret& secretAccessKey, const SigningScope& scope,
                                std::string_view amzDate, const SigningInput& input);

// "20150830T123600Z" (UTC), the x-amz-date form; its first 8 characters are the scope's date.
std::string amzDate(std::chrono::system_clock::time_point when);

}  // namespace ckpt::objstore
