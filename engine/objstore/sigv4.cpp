#include "objstore/sigv4.h"

#include <algorithm>
#include <ctime>
#include <map>

#include "objstore/digest.h"
#include "objstore/text.h"

namespace ckpt::objstore {

namespace {

// Trims spaces and tabs at both ends and collapses inner runs to one space
// (SigV4's "Trimall").
std::string trimAll(std::string_view value) {
    std::string out;
    bool pendingSpace = false;
    for (char c : value) {
        if (c == ' ' || c == '\t') {
            pendingSpace = !out.empty();
            continue;
        }
        if (pendingSpace) out.push_back(' ');
        pendingSpace = false;
        out.push_back(c);
    }
    return out;
}

std::string asString(const Digest256& d) { return std::string(reinterpret_cast<const char*>(d.data()), d.size()); }

}  // namespace

CanonicalRequest canonicalRequest(const SigningInput& input) {
    // std::map sorts by the lower-cased name (byte order, as SigV4 asks).
    std::map<std::string, std::string> headers;
    for (const auto& [name, value] : input.headers) {
        std::string& joined = headers[lowerAscii(name)];
        if (!joined.empty()) joined.push_back(',');
        joined += trimAll(value);
    }
    CanonicalRequest out;
    std::string& t = out.text;
    t.append(input.method).push_back('\n');
    t.append(input.canonicalUri.empty() ? std::string_view("/") : input.canonicalUri).push_back('\n');
    t.append(input.canonicalQuery).push_back('\n');
    for (const auto& [name, value] : headers) {
        t.append(name).push_back(':');
        t.append(value).push_back('\n');
        if (!out.signedHeaders.empty()) out.signedHeaders.push_back(';');
        out.signedHeaders += name;
    }
    t.push_back('\n');
    t.append(out.signedHeaders).push_back('\n');
    t.append(input.payloadHash);
    return out;
}

std::string stringToSign(std::string_view amzDateText, const SigningScope& scope, std::string_view canonicalRequestText) {
    std::string s = "AWS4-HMAC-SHA256\n";
    s.append(amzDateText).push_back('\n');
    s.append(scope.toString()).push_back('\n');
    s.append(sha256Hex(canonicalRequestText));
    return s;
}

std::string signature(const Secret& secretAccessKey, const SigningScope& scope, std::string_view stringToSignText) {
    const Digest256 dateKey = hmacSha256("AWS4" + secretAccessKey.reveal(), scope.date);
    const Digest256 regionKey = hmacSha256(asString(dateKey), scope.region);
    const Digest256 serviceKey = hmacSha256(asString(regionKey), scope.service);
    const Digest256 signingKey = hmacSha256(asString(serviceKey), "aws4_request");
    return hexLower(hmacSha256(asString(signingKey), stringToSignText));
}

std::string authorizationHeader(std::string_view accessKeyId, const Secret& secretAccessKey, const SigningScope& scope,
                                std::string_view amzDateText, const SigningInput& input) {
    const CanonicalRequest creq = canonicalRequest(input);
    const std::string sts = stringToSign(amzDateText, scope, creq.text);
    std::string h = "AWS4-HMAC-SHA256 Credential=";
    h.append(accessKeyId).append("/").append(scope.toString());
    h.append(", SignedHeaders=").append(creq.signedHeaders);
    h.append(", Signature=").append(signature(secretAccessKey, scope, sts));
    return h;
}

std::string amzDate(std::chrono::system_clock::time_point when) {
    const std::time_t t = std::chrono::system_clock::to_time_t(when);
    std::tm utc{};
    gmtime_r(&t, &utc);
    char buf[20];
    const size_t n = std::strftime(buf, sizeof buf, "%Y%m%dT%H%M%SZ", &utc);
    return std::string(buf, n);
}

}  // namespace ckpt::objstore
