#pragma once
// The two XML documents an S3 read needs, parsed with libexpat (Debian's
// libexpat1): ListObjectsV2 results and error bodies. Expat streams, so
// every bound is enforced as the document is read, not after a tree is
// built: the document's size, elements, depth and each text's length; a
// DOCTYPE (and with it any entity definition) is refused outright. A
// hostile or broken server gets a DataLoss naming what was wrong.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ckpt/status.h"

namespace ckpt::objstore {

inline constexpr size_t kMaxXmlBytes = 16u << 20;  // a 1000-key page is ~0.5 MB
inline constexpr size_t kMaxListEntries = 10000;   // we ask for 1000 a page
inline constexpr size_t kMaxXmlTextBytes = 8192;   // keys are <= 1024 bytes, x3 when %-encoded
inline constexpr int kMaxXmlDepth = 8;

struct ListedObject {
    std::string key;
    uint64_t size = 0;
    std::string etag;  // without the quotes
    std::string lastModified;
};

struct ListPage {
    std::vector<ListedObject> objects;
    std::vector<std::string> commonPrefixes;
    bool isTruncated = false;
    std::string nextContinuationToken;
};

// A ListBucketResult. With 'urlEncoded' (we ask for encoding-type=url),
// keys and prefixes are %-decoded.
Result<ListPage> parseListObjectsV2(std::string_view xml, bool urlEncoded);

struct ErrorBody {
    std::string code;      // "NoSuchKey", "SlowDown", "AccessDenied", ...
    std::string message;   // the server's text, for messages (callers redact it)
    std::string region;    // <Region>, sent with wrong-region redirects
    std::string endpoint;  // <Endpoint>, sent with PermanentRedirect
};

// nullopt when 'xml' is not a well-formed <Error> document within the bounds.
std::optional<ErrorBody> parseErrorBody(std::string_view xml);

}  // namespace ckpt::objstore
