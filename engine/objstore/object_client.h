#pragma once
// An S3 (and S3-compatible, and GCS XML API) client: HEAD, ranged and
// suffix GETs, many ranges in parallel, ListObjectsV2 pages, single PUTs
// with optional conditions, and the requests of a multipart upload
// (create, parts, a completion with the same conditions, abort, and the
// listing of uploads still open). Requests are built by requestTarget()
// and signed by sigv4.h with the payload hash (x-amz-content-sha256) that
// AWS requires on every request; they run on one HttpTransport (connection
// reuse, retries, counters). Ranged reads that fail midway resume where
// they stopped, pinned to the object's ETag (If-Match) so a resumed read
// never mixes two versions of an object.
//
// Thread-safe; one client per store settings, shared by every reader.
//   auto client = ObjectClient::create(*settings);
//   auto info = (*client)->stat({"bkt", "runs/ckpt-1.index"});
//   std::vector<uint8_t> buf(4096);
//   CKPT_RETURN_IF_ERROR((*client)->read({"bkt", "runs/ckpt-1.index"}, 0, buf).status());

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ckpt/cancellation.h"
#include "ckpt/status.h"
#include "objstore/http_transport.h"
#include "objstore/s3_xml.h"
#include "objstore/store_settings.h"

namespace ckpt::objstore {

struct ObjectRef {
    std::string bucket;
    std::string key;
};

struct ObjectInfo {
    uint64_t size = 0;
    std::string etag;  // without quotes; a generation to pin later reads to
    std::string lastModified;
    // GCS: the object's generation number (x-goog-generation), what its
    // write conditions compare; empty elsewhere, and in a listing.
    std::string generation;
};
// Size aside (callers know which header states it): ETag, Last-Modified
// and x-goog-generation of a response.
ObjectInfo objectInfoFromHead(const HttpResponseHead& head);

// One range of a parallel read. 'out' receives exactly out.size() bytes at
// 'offset'; with a non-empty 'ifMatch' the read fails (FailedPrecondition)
// if the object is no longer that generation.
struct RangeRead {
    ObjectRef object;
    uint64_t offset = 0;
    std::span<uint8_t> out;
    std::string ifMatch;
    // Results.
    Status status;
    ObjectInfo info;  // size and etag as the response stated them
};

// A condition on a PUT or a multipart completion: the write-only-if-absent
// and compare-and-swap a commit without rename needs (docs/remote.md).
struct PutCondition {
    bool ifNoneMatch = false;  // create-only (412 if an object is there)
    std::string ifMatch;       // the generation token the object must still have
};
// The headers that carry 'condition' to a store of 'kind': one rule for a
// PUT and a completion. S3: If-None-Match: * and If-Match: "<etag>". GCS's
// XML API: x-goog-if-generation-match: 0 for create-only, and
// x-goog-if-generation-match: <generation> for a token that is a
// generation number (all digits: what x-goog-generation gave); a token
// from an ETag (a response without x-goog-generation) goes as If-Match.
HeaderList conditionHeaders(const PutCondition& condition, StoreKind kind);

// S3's multipart limits: parts numbered 1..10,000, each 5 MiB to 5 GiB
// except the last, which may be shorter; an object of at most 5 TiB.
inline constexpr int kMaxUploadParts = 10000;
inline constexpr uint64_t kMinPartBytes = 5ull << 20;
inline constexpr uint64_t kMaxPartBytes = 5ull << 30;
inline constexpr uint64_t kMaxObjectBytes = 5ull << 40;

class ObjectClient {
public:
    static Result<std::unique_ptr<ObjectClient>> create(StoreSettings settings);
    ~ObjectClient();
    ObjectClient(const ObjectClient&) = delete;
    ObjectClient& operator=(const ObjectClient&) = delete;

    // HEAD: size, ETag, Last-Modified. NotFound for a missing object.
    Result<ObjectInfo> stat(const ObjectRef& object, const CancellationToken* cancel = nullptr);
    // Exactly out.size() bytes at 'offset'; OutOfRange when the object ends
    // before offset + out.size().
    Result<ObjectInfo> read(const ObjectRef& object, uint64_t offset, std::span<uint8_t> out, const std::string& ifMatch = {},
                            const CancellationToken* cancel = nullptr);
    // All ranges at once, options().maxInFlight in flight; each RangeRead
    // gets its own status. Returns the first failure (or Cancelled).
    Status readRanges(std::span<RangeRead> ranges, const CancellationToken* cancel = nullptr);
    // The last min(n, size) bytes of the object, and its size and ETag, in
    // one request (a suffix range). An empty object gives no bytes.
    Result<std::pair<std::vector<uint8_t>, ObjectInfo>> readTail(const ObjectRef& object, uint64_t n,
                                                                 const CancellationToken* cancel = nullptr);
    // As readTail, unless the object's ETag is still 'etag' (If-None-Match):
    // then nullopt, after a 304 without a body (what the on-disk cache of
    // object_cache.h revalidates an entry with).
    Result<std::optional<std::pair<std::vector<uint8_t>, ObjectInfo>>> readTailIfChanged(
        const ObjectRef& object, uint64_t n, const std::string& etag, const CancellationToken* cancel = nullptr);
    // The whole object, refused with InvalidArgument naming both sizes
    // before anything is allocated for it when it is over 'maxBytes'.
    Result<std::pair<std::string, ObjectInfo>> readObject(const ObjectRef& object, size_t maxBytes,
                                                          const CancellationToken* cancel = nullptr);
    // As readObject, unless the object's ETag is still 'etag': then nullopt
    // after a 304 without a body.
    Result<std::optional<std::pair<std::string, ObjectInfo>>> readObjectIfChanged(const ObjectRef& object, size_t maxBytes,
                                                                                  const std::string& etag,
                                                                                  const CancellationToken* cancel = nullptr);
    // One ListObjectsV2 page (at most 'maxKeys' entries, 1..1000) of keys
    // under 'prefix'; with a 'delimiter', keys below the next delimiter are
    // rolled up into commonPrefixes.
    Result<ListPage> listPage(const std::string& bucket, const std::string& prefix, const std::string& delimiter,
                              const std::string& continuationToken, int maxKeys = 1000,
                              const CancellationToken* cancel = nullptr);
    // Every page, at most 'maxEntries' entries in all (then ResourceExhausted).
    Result<ListPage> listAll(const std::string& bucket, const std::string& prefix, const std::string& delimiter,
                             size_t maxEntries, const CancellationToken* cancel = nullptr);
    // A single PUT of 'body' (at most 5 GiB, S3's limit for one PUT).
    Result<ObjectInfo> put(const ObjectRef& object, std::string_view body, const PutCondition& condition = {},
                           const CancellationToken* cancel = nullptr);
    // The same PUT, but a refused condition (412) is returned as it is: no
    // HEAD asks whether an earlier attempt's lost answer hid a success. For
    // probes whose second write must be refused (conditional_writes.h).
    Result<ObjectInfo> putOnce(const ObjectRef& object, std::string_view body, const PutCondition& condition = {},
                               const CancellationToken* cancel = nullptr);
    Status remove(const ObjectRef& object, const CancellationToken* cancel = nullptr);

    // ---- multipart uploads (object_client_multipart.cpp) ----------------
    // Starts an upload; returns its UploadId.
    Result<std::string> createMultipartUpload(const ObjectRef& object, const CancellationToken* cancel = nullptr);
    // Sends part 'partNumber' (1..10,000); returns the part's ETag.
    Result<std::string> uploadPart(const ObjectRef& object, const std::string& uploadId, int partNumber, std::string_view body,
                                   const CancellationToken* cancel = nullptr);
    // Joins the parts into the object if 'condition' holds (412: the
    // condition failed; the upload then stays open: abort it). 'size' is
    // the object's, for the result. A completion answered "200 OK" with an
    // <Error> document is retried as a 5xx would be, or fails with it. A
    // completion that fails with 404 or 412 although the object there is
    // this upload's (its ETag is multipartEtag() of the parts: an earlier
    // attempt completed it and its answer was lost) succeeds.
    Result<ObjectInfo> completeMultipartUpload(const ObjectRef& object, const std::string& uploadId,
                                               const std::vector<CompletedPart>& parts, const PutCondition& condition,
                                               uint64_t size, const CancellationToken* cancel = nullptr);
    // Discards an upload and its parts; an upload already gone is fine.
    Status abortMultipartUpload(const ObjectRef& object, const std::string& uploadId, const CancellationToken* cancel = nullptr);
    // One ListMultipartUploads page (at most 'maxUploads', 1..1000) of the
    // uploads still open under 'prefix', after the markers.
    Result<UploadListPage> listUploadsPage(const std::string& bucket, const std::string& prefix, const std::string& keyMarker,
                                           const std::string& uploadIdMarker, int maxUploads = 1000,
                                           const CancellationToken* cancel = nullptr);
    // Every page, at most 'maxEntries' uploads in all (then ResourceExhausted).
    Result<std::vector<PendingUpload>> listUploads(const std::string& bucket, const std::string& prefix, size_t maxEntries,
                                                   const CancellationToken* cancel = nullptr);
    // PUT bucket (fixtures and the demo; refuses nothing but an invalid name).
    Status createBucket(const std::string& bucket, const CancellationToken* cancel = nullptr);

    // "s3://bucket/key" for messages.
    std::string urlOf(const ObjectRef& object) const;
    const StoreSettings& settings() const { return m_settings; }
    TransferStats stats() const { return m_transport.stats(); }
    HttpTransport& transport() { return m_transport; }

    // The signed request for attempt-independent parts (exchanges call it on
    // every attempt: each gets its own date and signature).
    HttpRequest signedRequest(std::string method, const ObjectRef& object, std::vector<QueryParam> query, HeaderList extraHeaders,
                              std::string_view body, const std::string& bodySha256) const;

private:
    explicit ObjectClient(StoreSettings settings);
    // A completion that failed with 404 or 412: the object, if an earlier
    // attempt completed this very upload; else 'failure'.
    Result<ObjectInfo> completedAfterAll(const ObjectRef& object, const std::vector<CompletedPart>& parts, uint64_t size,
                                         Status failure, const CancellationToken* cancel);
    StoreSettings m_settings;
    HttpTransport m_transport;
};

}  // namespace ckpt::objstore
