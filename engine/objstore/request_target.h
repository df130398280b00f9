#pragma once
// Where an S3 request goes and how it is written: the one function that
// builds every request URL (requestTarget), so the URL curl sends and the
// canonical URI and query SigV4 signs are the same bytes. curl 7.88's own
// signer gets this wrong (unsorted query, curl/curl#9717; value-less
// parameters such as ?uploads, curl/curl#10129), which is why we build and
// sign it ourselves (sigv4.h). Pure functions, thread-safe.
//   auto ep = parseEndpoint("http://127.0.0.1:9000");
//   RequestTarget t = requestTarget(*ep, Addressing::Path, "bkt", "runs/ckpt-1.index",
//                                   {{"list-type", "2"}});

#include <string>
#include <string_view>
#include <vector>

#include "ckpt/status.h"

namespace ckpt::objstore {

// An S3 endpoint: scheme and authority only (no path, user or query).
struct Endpoint {
    std::string scheme;  // "http" or "https"
    std::string host;    // lower case; an IPv6 literal keeps its brackets
    int port = 0;        // 0: the scheme's default port
    // "host" or "host:port" (the port left out when it is the default), as
    // the Host header carries it and SigV4 signs it.
    std::string authority() const;
    // "scheme://authority": how messages name the endpoint.
    std::string toString() const { return scheme + "://" + authority(); }
};

// Parses "http(s)://host[:port][/]". Refuses user info (credentials never
// travel in a URL), paths, queries and fragments, other schemes, and ports
// outside 1..65535, with InvalidArgument naming 'what' (the setting's name).
Result<Endpoint> parseEndpoint(std::string_view url, std::string_view what = "endpoint");

// 127.0.0.0/8, ::1 or "localhost": the only hosts plain http is allowed to
// without an explicit opt-in.
bool isLoopback(const Endpoint& endpoint);

enum class Addressing {
    Path,         // scheme://endpoint/bucket/key
    VirtualHost,  // scheme://bucket.endpoint/key
};

// S3 and GCS bucket names: 3..222 characters of [a-z0-9._-], starting and
// ending with a letter or digit. Anything else is refused before a request
// is built, so a bucket never needs escaping.
bool isValidBucketName(std::string_view bucket);
// Whether 'bucket' can be a DNS label prefix of the endpoint under TLS: no
// dots (a wildcard certificate covers one label), at most 63 characters.
bool bucketFitsVirtualHost(std::string_view bucket);

struct QueryParam {
    std::string name;
    std::string value;  // a value-less parameter (?uploads) is sent as "uploads="
};

struct RequestTarget {
    std::string url;             // what curl is given
    std::string host;            // the Host header: authority, bucket-prefixed for VirtualHost
    std::string canonicalUri;    // the encoded path, exactly as in 'url'
    std::string canonicalQuery;  // the encoded, sorted query, exactly as in 'url'
};

// The request for 'key' in 'bucket' ('key' empty: the bucket itself), with
// 'query' encoded and sorted. VirtualHost falls back to Path when the bucket
// does not fit a host name (bucketFitsVirtualHost). 'bucket' must satisfy
// isValidBucketName (callers check it when they parse a URL).
RequestTarget requestTarget(const Endpoint& endpoint, Addressing addressing, std::string_view bucket, std::string_view key,
                            std::vector<QueryParam> query = {});

// AWS's URI encoding: every byte but A-Z a-z 0-9 - . _ ~ becomes %XX (upper
// case hex); '/' is kept when !encodeSlash (object keys in paths).
std::string uriEncode(std::string_view text, bool encodeSlash);
// The inverse for %XX sequences; refuses malformed escapes (ListObjectsV2
// with encoding-type=url returns keys this way).
Result<std::string> uriDecode(std::string_view text);
// Parameters encoded, then sorted by name and value, joined with '&'.
std::string canonicalQueryString(std::vector<QueryParam> query);

}  // namespace ckpt::objstore
