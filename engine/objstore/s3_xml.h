#pragma once
// The XML documents the object store's requests exchange, parsed with
// libexpat (Debian's libexpat1): ListObjectsV2 results, error bodies, and
// the multipart upload answers (initiate, complete, ListMultipartUploads). Expat streams, so
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

// An ETag as headers and listings quote it ("\"abc\""), without the quotes.
std::string unquotedEtag(std::string_view etag);

// nullopt when 'xml' is not a well-formed <Error> document within the bounds.
std::optional<ErrorBody> parseErrorBody(std::string_view xml);

// ---- multipart uploads ----------------------------------------------------

// The UploadId of an InitiateMultipartUploadResult.
Result<std::string> parseInitiateMultipartUpload(std::string_view xml);

// A CompleteMultipartUploadResult's ETag (without quotes). S3 may answer a
// completion "200 OK" with an <Error> document: that comes back in 'error'.
struct CompletionAnswer {
    std::string etag;
    std::optional<ErrorBody> error;
};
Result<CompletionAnswer> parseCompleteMultipartUpload(std::string_view xml);

struct PendingUpload {
    std::string key;
    std::string uploadId;
    std::string initiated;    // ISO 8601, as the server wrote it
    int64_t initiatedNs = 0;  // the same, ns since the Unix epoch (0: unreadable)
};

struct UploadListPage {
    std::vector<PendingUpload> uploads;
    bool isTruncated = false;
    std::string nextKeyMarker;
    std::string nextUploadIdMarker;
};

// A ListMultipartUploadsResult; with 'urlEncoded' keys are %-decoded.
Result<UploadListPage> parseListMultipartUploads(std::string_view xml, bool urlEncoded);

// The body of a CompleteMultipartUpload request: parts by number, ETags quoted.
struct CompletedPart {
    int number = 0;
    std::string etag;  // without quotes
};
std::string completeMultipartUploadXml(const std::vector<CompletedPart>& parts);

}  // namespace ckpt::objstore
