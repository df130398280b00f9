// The requests of a multipart upload (object_client.h): create, parts,
// completion under the same conditions as a PUT, abort, and the listing of
// uploads still open. Each request runs on the client's transport, so it is
// retried as every other request is (docs/remote.md, "Retries").

#include <algorithm>
#include <string>

#include "objstore/digest.h"
#include "objstore/object_client.h"
#include "objstore/small_exchange.h"

namespace ckpt::objstore {

namespace {

std::string what(const ObjectClient& client, const ObjectRef& object, std::string_view step) {
    return client.urlOf(object) + " (" + std::string(step) + ")";
}

}  // namespace

Result<std::string> ObjectClient::createMultipartUpload(const ObjectRef& object, const CancellationToken* cancel) {
    // POST needs a body pointer even when empty (curl would read stdin otherwise).
    static constexpr std::string_view kNoBody = "";
    SmallExchange ex(what(*this, object, "starting a multipart upload"), [&] {
        return signedRequest("POST", object, {{"uploads", ""}}, {}, kNoBody, std::string(kEmptyPayloadSha256));
    });
    CKPT_RETURN_IF_ERROR(m_transport.runOne(ex, cancel));
    auto id = parseInitiateMultipartUpload(ex.body_);
    if (!id) return id.status().withContext(ex.what());
    return id;
}

Result<std::string> ObjectClient::uploadPart(const ObjectRef& object, const std::string& uploadId, int partNumber,
                                             std::string_view body, const CancellationToken* cancel) {
    if (partNumber < 1 || partNumber > kMaxUploadParts)
        return invalidArgument(urlOf(object) + ": part number " + std::to_string(partNumber) + " is outside 1.." +
                               std::to_string(kMaxUploadParts));
    if (body.size() > kMaxPartBytes) return invalidArgument(urlOf(object) + ": a part holds at most 5 GiB");
    const std::string hash = sha256Hex(body);
    const std::vector<QueryParam> query = {{"partNumber", std::to_string(partNumber)}, {"uploadId", uploadId}};
    // As a PUT's: a part cut off after its headers must not be stored empty.
    const HeaderList headers = {{"Content-MD5", md5Base64(body)}};
    SmallExchange ex(what(*this, object, "part " + std::to_string(partNumber)),
                     [&] { return signedRequest("PUT", object, query, headers, body, hash); });
    CKPT_RETURN_IF_ERROR(m_transport.runOne(ex, cancel));
    std::string etag = unquotedEtag(ex.head.header("etag"));
    if (etag.empty()) return dataLoss(ex.what() + ": the server answered without an ETag");
    return etag;
}

Result<ObjectInfo> ObjectClient::completeMultipartUpload(const ObjectRef& object, const std::string& uploadId,
                                                         const std::vector<CompletedPart>& parts, const PutCondition& condition,
                                                         uint64_t size, const CancellationToken* cancel) {
    const std::string body = completeMultipartUploadXml(parts);
    const std::string hash = sha256Hex(body);
    const std::vector<QueryParam> query = {{"uploadId", uploadId}};
    const HeaderList headers = conditionHeaders(condition, m_settings.kind);
    const std::string step = what(*this, object, "completing a multipart upload of " + std::to_string(parts.size()) + " parts");
    // S3 may answer a completion "200 OK" and report an error in the body
    // (the answer is sent before the work is done): a retryable one is
    // tried again, as the transport retries a 5xx.
    const int attempts = std::max(1, m_settings.transfer.retry.maxAttempts);
    for (int attempt = 1;; ++attempt) {
        SmallExchange ex(step, [&] { return signedRequest("POST", object, query, headers, body, hash); });
        if (Status s = m_transport.runOne(ex, cancel); !s.isOk())
            return completedAfterAll(object, parts, size, std::move(s), cancel);
        auto answer = parseCompleteMultipartUpload(ex.body_);
        if (!answer) return answer.status().withContext(step);
        if (!answer->error) {
            ObjectInfo info;
            info.etag = answer->etag.empty() ? unquotedEtag(ex.head.header("etag")) : answer->etag;
            info.generation = std::string(ex.head.header("x-goog-generation"));
            info.size = size;
            return info;
        }
        const bool retryable = isRetryableHttp(200, answer->error);
        if (!retryable || attempt >= attempts) {
            const Status s = statusForHttpError(200, answer->error, step, m_settings.credentials.secretAccessKey,
                                                m_settings.credentials.sessionToken);
            if (!retryable) return s;
            return Status(StatusCode::ResourceExhausted, s.message() + " (after " + std::to_string(attempt) + " attempts)");
        }
    }
}

Result<ObjectInfo> ObjectClient::completedAfterAll(const ObjectRef& object, const std::vector<CompletedPart>& parts,
                                                   uint64_t size, Status failure, const CancellationToken* cancel) {
    // An attempt whose answer was lost may have completed the upload: the
    // retry then finds no upload (404 NoSuchUpload) or, create-only, the
    // object it made itself (412). The object is ours exactly when its
    // ETag is the one S3 derives from our parts' ETags.
    if (failure.code() != StatusCode::NotFound && failure.code() != StatusCode::FailedPrecondition) return failure;
    std::vector<std::string> etags;
    for (const CompletedPart& p : parts) etags.push_back(p.etag);
    const std::string ours = multipartEtag(etags);
    auto head = stat(object, cancel);
    if (ours.empty() || !head || head->etag != ours || head->size != size) return failure;
    return *head;
}

Status ObjectClient::abortMultipartUpload(const ObjectRef& object, const std::string& uploadId, const CancellationToken* cancel) {
    const std::vector<QueryParam> query = {{"uploadId", uploadId}};
    SmallExchange ex(what(*this, object, "aborting a multipart upload"),
                     [&] { return signedRequest("DELETE", object, query, {}, {}, std::string(kEmptyPayloadSha256)); });
    Status s = m_transport.runOne(ex, cancel);
    if (s.code() == StatusCode::NotFound) return okStatus();  // NoSuchUpload: already gone
    return s;
}

Result<UploadListPage> ObjectClient::listUploadsPage(const std::string& bucket, const std::string& prefix,
                                                     const std::string& keyMarker, const std::string& uploadIdMarker,
                                                     int maxUploads, const CancellationToken* cancel) {
    if (maxUploads < 1 || maxUploads > 1000) return invalidArgument("an upload list page holds 1 to 1000 uploads");
    std::vector<QueryParam> query = {
        {"uploads", ""}, {"encoding-type", "url"}, {"max-uploads", std::to_string(maxUploads)}, {"prefix", prefix}};
    if (!keyMarker.empty()) query.push_back({"key-marker", keyMarker});
    if (!uploadIdMarker.empty()) query.push_back({"upload-id-marker", uploadIdMarker});
    const ObjectRef where{bucket, {}};
    SmallExchange ex(urlOf({bucket, prefix}) + " (listing multipart uploads)",
                     [&] { return signedRequest("GET", where, query, {}, {}, std::string(kEmptyPayloadSha256)); });
    CKPT_RETURN_IF_ERROR(m_transport.runOne(ex, cancel));
    auto page = parseListMultipartUploads(ex.body_, true);
    if (!page) return page.status().withContext(ex.what());
    return page;
}

Result<std::vector<PendingUpload>> ObjectClient::listUploads(const std::string& bucket, const std::string& prefix,
                                                             size_t maxEntries, const CancellationToken* cancel) {
    std::vector<PendingUpload> all;
    std::string keyMarker, idMarker;
    std::vector<std::pair<std::string, std::string>> seenMarkers;
    for (;;) {
        CKPT_ASSIGN_OR_RETURN(UploadListPage page, listUploadsPage(bucket, prefix, keyMarker, idMarker, 1000, cancel));
        for (PendingUpload& u : page.uploads) {
            // A hostile or confused server: only what was asked for.
            if (u.key.compare(0, prefix.size(), prefix) == 0) all.push_back(std::move(u));
        }
        if (all.size() > maxEntries)
            return Status(StatusCode::ResourceExhausted,
                          urlOf({bucket, prefix}) + ": more than " + std::to_string(maxEntries) + " multipart uploads open");
        if (!page.isTruncated) return all;
        // A server that keeps answering "truncated" with the same markers
        // would keep us here forever: every pair must be new.
        auto markers = std::make_pair(page.nextKeyMarker, page.nextUploadIdMarker);
        if (std::find(seenMarkers.begin(), seenMarkers.end(), markers) != seenMarkers.end())
            return dataLoss(urlOf({bucket, prefix}) + ": the upload listing repeats its markers");
        seenMarkers.push_back(std::move(markers));
        keyMarker = std::move(page.nextKeyMarker);
        idMarker = std::move(page.nextUploadIdMarker);
    }
}

}  // namespace ckpt::objstore
