#include "objstore/object_client.h"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstring>
#include <functional>

#include "objstore/digest.h"
#include "objstore/small_exchange.h"
#include "objstore/sigv4.h"

namespace ckpt::objstore {

namespace {

constexpr uint64_t kMaxSinglePutBytes = 5ull << 30;

std::optional<uint64_t> parseU64(std::string_view s) {
    uint64_t v = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || end != s.data() + s.size() || s.empty()) return std::nullopt;
    return v;
}

struct ContentRange {
    std::optional<uint64_t> first, last;  // absent for "bytes */size"
    std::optional<uint64_t> total;        // absent for ".../*"
};

std::optional<ContentRange> parseContentRange(std::string_view v) {
    if (v.rfind("bytes ", 0) != 0) return std::nullopt;
    v.remove_prefix(6);
    const size_t slash = v.find('/');
    if (slash == std::string_view::npos) return std::nullopt;
    ContentRange r;
    const std::string_view range = v.substr(0, slash), total = v.substr(slash + 1);
    if (total != "*") {
        r.total = parseU64(total);
        if (!r.total) return std::nullopt;
    }
    if (range != "*") {
        const size_t dash = range.find('-');
        if (dash == std::string_view::npos) return std::nullopt;
        r.first = parseU64(range.substr(0, dash));
        r.last = parseU64(range.substr(dash + 1));
        if (!r.first || !r.last || *r.last < *r.first) return std::nullopt;
    }
    return r;
}

// Reads [offset, offset + out.size()) into 'out', resuming after a failed
// attempt from the first byte it does not have yet.
class RangeExchange : public HttpExchange {
public:
    RangeExchange(const ObjectClient& client, RangeRead& range) : m_client(client), m_range(range) {}

    HttpRequest prepare(int /*attempt*/) override {
        const uint64_t from = m_range.offset + m_received;
        const uint64_t last = m_range.offset + m_range.out.size() - 1;
        HeaderList extra = {{"Range", "bytes=" + std::to_string(from) + "-" + std::to_string(last)}};
        // A resumed attempt continues the same generation or fails.
        const std::string& pin = !m_range.ifMatch.empty() ? m_range.ifMatch : m_etag;
        if (!pin.empty()) extra.emplace_back("If-Match", "\"" + pin + "\"");
        m_skip = 0;
        m_ignoredRange = false;
        return m_client.signedRequest("GET", m_range.object, {}, std::move(extra), {}, std::string(kEmptyPayloadSha256));
    }

    Status begin(const HttpResponseHead& head) override {
        const uint64_t from = m_range.offset + m_received;
        const std::string etag = unquotedEtag(head.header("etag"));
        if (!m_etag.empty() && !etag.empty() && etag != m_etag)
            return failedPrecondition(what() + ": the object changed while it was read (ETag " + m_etag + ", now " + etag + ")");
        if (m_etag.empty()) m_etag = etag;
        m_range.info.etag = m_etag;
        m_range.info.lastModified = std::string(head.header("last-modified"));
        if (head.status == 206) {
            const auto cr = parseContentRange(head.header("content-range"));
            if (!cr || !cr->first || *cr->first != from)
                return dataLoss(what() + ": the server answered a different range (Content-Range \"" +
                                std::string(head.header("content-range")) + "\", asked from " + std::to_string(from) + ")");
            if (cr->total) m_range.info.size = *cr->total;
            return okStatus();
        }
        // 200: the server ignored the Range header and sends the whole
        // object; skip to where this attempt starts.
        const auto length = parseU64(head.header("content-length"));
        if (length) m_range.info.size = *length;
        m_skip = from;
        m_ignoredRange = true;
        return okStatus();
    }

    Status body(const char* data, size_t n) override {
        if (m_skip > 0) {
            const size_t drop = static_cast<size_t>(std::min<uint64_t>(m_skip, n));
            m_skip -= drop;
            data += drop;
            n -= drop;
        }
        const size_t room = m_range.out.size() - static_cast<size_t>(m_received);
        if (n > room) {
            if (!m_ignoredRange) return dataLoss(what() + ": the server sent more bytes than the range holds");
            n = room;  // the rest of a whole-object answer: not ours
        }
        std::memcpy(m_range.out.data() + m_received, data, n);
        m_received += n;
        return okStatus();
    }

    Status finish(const HttpResponseHead& /*head*/) override {
        if (m_received != m_range.out.size())
            return outOfRange(what() + ": object ends before byte " + std::to_string(m_range.offset + m_range.out.size()) +
                              " (read " + std::to_string(m_range.offset + m_received) + " of " +
                              std::to_string(m_range.info.size) + ")");
        return okStatus();
    }

    std::string what() const override { return m_client.urlOf(m_range.object); }
    bool satisfied() const override { return m_ignoredRange && m_received == m_range.out.size(); }

private:
    const ObjectClient& m_client;
    RangeRead& m_range;
    uint64_t m_received = 0;
    uint64_t m_skip = 0;
    bool m_ignoredRange = false;  // a 200 answer: the whole object
    std::string m_etag;
};

// The last n bytes (a suffix range).
// A GET that, given an ETag, asks If-None-Match: an object still at that
// ETag answers 304 without a body, and 'unchanged' says so.
class ConditionalGet : public HttpExchange {
public:
    explicit ConditionalGet(std::string ifNoneMatch) : m_ifNoneMatch(std::move(ifNoneMatch)) {}
    Status notModified(const HttpResponseHead& head) override {
        if (m_ifNoneMatch.empty()) return HttpExchange::notModified(head);
        unchanged = true;
        return okStatus();
    }
    bool unchanged = false;

protected:
    void addCondition(HeaderList& headers) const {
        if (!m_ifNoneMatch.empty()) headers.emplace_back("If-None-Match", "\"" + m_ifNoneMatch + "\"");
    }

private:
    std::string m_ifNoneMatch;
};

class TailExchange : public ConditionalGet {
public:
    TailExchange(const ObjectClient& client, const ObjectRef& object, uint64_t n, std::string ifNoneMatch = {})
        : ConditionalGet(std::move(ifNoneMatch)), m_client(client), m_object(object), m_n(n) {}

    HttpRequest prepare(int /*attempt*/) override {
        m_bytes.clear();
        m_seen = 0;
        HeaderList extra = {{"Range", "bytes=-" + std::to_string(m_n)}};
        addCondition(extra);
        return m_client.signedRequest("GET", m_object, {}, std::move(extra), {}, std::string(kEmptyPayloadSha256));
    }
    Status begin(const HttpResponseHead& head) override {
        info = objectInfoFromHead(head);
        if (head.status == 206) {
            const auto cr = parseContentRange(head.header("content-range"));
            if (!cr || !cr->first || !cr->last || !cr->total || *cr->last + 1 != *cr->total || *cr->last - *cr->first + 1 > m_n)
                return dataLoss(what() + ": the server answered a suffix range with Content-Range \"" +
                                std::string(head.header("content-range")) + "\"");
            info.size = *cr->total;
            m_dropUntil = *cr->first;
            m_base = *cr->first;
        } else {
            // 200: the whole object; keep its last n bytes.
            const auto length = parseU64(head.header("content-length"));
            if (!length) return dataLoss(what() + ": a full response without Content-Length to a suffix range");
            info.size = *length;
            m_base = 0;
            m_dropUntil = info.size > m_n ? info.size - m_n : 0;
        }
        m_bytes.reserve(static_cast<size_t>(info.size - m_dropUntil));
        return okStatus();
    }
    Status body(const char* data, size_t n) override {
        const uint64_t pos = m_base + m_seen;
        m_seen += n;
        if (pos + n <= m_dropUntil) return okStatus();
        const size_t skip = pos < m_dropUntil ? static_cast<size_t>(m_dropUntil - pos) : 0;
        if (m_bytes.size() + (n - skip) > m_n) return dataLoss(what() + ": the server sent more than the suffix asked");
        m_bytes.insert(m_bytes.end(), reinterpret_cast<const uint8_t*>(data) + skip, reinterpret_cast<const uint8_t*>(data) + n);
        return okStatus();
    }
    Status finish(const HttpResponseHead& /*head*/) override {
        if (m_bytes.size() != info.size - m_dropUntil)
            return dataLoss(what() + ": short suffix response (" + std::to_string(m_bytes.size()) + " bytes)");
        return okStatus();
    }
    std::string what() const override { return m_client.urlOf(m_object); }

    std::vector<uint8_t> takeBytes() { return std::move(m_bytes); }
    ObjectInfo info;

private:
    const ObjectClient& m_client;
    const ObjectRef& m_object;
    uint64_t m_n;
    uint64_t m_base = 0, m_dropUntil = 0, m_seen = 0;
    std::vector<uint8_t> m_bytes;
};

// A whole small object, its size checked against a limit before any byte
// is kept.
class WholeExchange : public ConditionalGet {
public:
    WholeExchange(const ObjectClient& client, const ObjectRef& object, size_t maxBytes, std::string ifNoneMatch = {})
        : ConditionalGet(std::move(ifNoneMatch)), m_client(client), m_object(object), m_max(maxBytes) {}
    HttpRequest prepare(int /*attempt*/) override {
        bytes.clear();
        HeaderList extra;
        addCondition(extra);
        return m_client.signedRequest("GET", m_object, {}, std::move(extra), {}, std::string(kEmptyPayloadSha256));
    }
    Status begin(const HttpResponseHead& head) override {
        info = objectInfoFromHead(head);
        if (const auto length = parseU64(head.header("content-length"))) {
            if (*length > m_max)
                return invalidArgument(what() + " is " + std::to_string(*length) + " bytes, over the limit of " +
                                       std::to_string(m_max));
            info.size = *length;
            bytes.reserve(static_cast<size_t>(*length));
        }
        return okStatus();
    }
    Status body(const char* data, size_t n) override {
        if (bytes.size() + n > m_max)
            return invalidArgument(what() + " is over the limit of " + std::to_string(m_max) + " bytes");
        bytes.append(data, n);
        return okStatus();
    }
    Status finish(const HttpResponseHead& /*head*/) override {
        info.size = bytes.size();
        return okStatus();
    }
    std::string what() const override { return m_client.urlOf(m_object); }
    std::string bytes;
    ObjectInfo info;

private:
    const ObjectClient& m_client;
    const ObjectRef& m_object;
    size_t m_max;
};

}  // namespace

ObjectInfo objectInfoFromHead(const HttpResponseHead& head) {
    ObjectInfo info;
    info.etag = unquotedEtag(head.header("etag"));
    info.lastModified = std::string(head.header("last-modified"));
    info.generation = std::string(head.header("x-goog-generation"));
    return info;
}

HeaderList conditionHeaders(const PutCondition& condition, StoreKind kind) {
    HeaderList headers;
    if (kind == StoreKind::Gcs) {
        // GCS's XML API takes its preconditions as generation numbers
        // (0: no live object). An ETag token cannot be one; if an MD5 ever
        // were all digits, the write would be refused and read again.
        const auto isGeneration = [](const std::string& t) {
            return !t.empty() && std::all_of(t.begin(), t.end(), [](char c) { return c >= '0' && c <= '9'; });
        };
        if (condition.ifNoneMatch) headers.emplace_back("x-goog-if-generation-match", "0");
        if (isGeneration(condition.ifMatch)) headers.emplace_back("x-goog-if-generation-match", condition.ifMatch);
        else if (!condition.ifMatch.empty()) headers.emplace_back("If-Match", "\"" + condition.ifMatch + "\"");
        return headers;
    }
    if (condition.ifNoneMatch) headers.emplace_back("If-None-Match", "*");
    if (!condition.ifMatch.empty()) headers.emplace_back("If-Match", "\"" + condition.ifMatch + "\"");
    return headers;
}

ObjectClient::ObjectClient(StoreSettings settings)
    : m_settings(std::move(settings)),
      m_transport(m_settings.transfer, m_settings.credentials.secretAccessKey, m_settings.credentials.sessionToken) {}

ObjectClient::~ObjectClient() = default;

Result<std::unique_ptr<ObjectClient>> ObjectClient::create(StoreSettings settings) {
    if (settings.credentials.accessKeyId.empty() || settings.credentials.secretAccessKey.empty())
        return Status(StatusCode::PermissionDenied, std::string("no credentials for ") + std::string(settings.scheme()) + "://");
    return std::unique_ptr<ObjectClient>(new ObjectClient(std::move(settings)));
}

std::string ObjectClient::urlOf(const ObjectRef& object) const {
    std::string url = std::string(m_settings.scheme()) + "://" + object.bucket;
    if (!object.key.empty()) url += "/" + object.key;
    return url;
}

HttpRequest ObjectClient::signedRequest(std::string method, const ObjectRef& object, std::vector<QueryParam> query,
                                        HeaderList extraHeaders, std::string_view body, const std::string& bodySha256) const {
    const RequestTarget target =
        requestTarget(m_settings.endpoint, m_settings.addressing, object.bucket, object.key, std::move(query));
    const std::string date = amzDate(std::chrono::system_clock::now());
    const SigningScope scope{date.substr(0, 8), m_settings.region, "s3"};
    SigningInput in;
    in.method = method;
    in.canonicalUri = target.canonicalUri;
    in.canonicalQuery = target.canonicalQuery;
    in.payloadHash = bodySha256;
    in.headers = {{"host", target.host}, {"x-amz-content-sha256", bodySha256}, {"x-amz-date", date}};
    if (!m_settings.credentials.sessionToken.empty())
        in.headers.emplace_back("x-amz-security-token", m_settings.credentials.sessionToken.reveal());
    HttpRequest req;
    req.headers = in.headers;
    req.headers.emplace_back("Authorization", authorizationHeader(m_settings.credentials.accessKeyId,
                                                                  m_settings.credentials.secretAccessKey, scope, date, in));
    for (auto& h : extraHeaders) req.headers.push_back(std::move(h));
    req.method = std::move(method);
    req.url = target.url;
    req.body = body;
    return req;
}

Result<ObjectInfo> ObjectClient::stat(const ObjectRef& object, const CancellationToken* cancel) {
    SmallExchange ex(urlOf(object), [&] { return signedRequest("HEAD", object, {}, {}, {}, std::string(kEmptyPayloadSha256)); });
    CKPT_RETURN_IF_ERROR(m_transport.runOne(ex, cancel));
    ObjectInfo info = objectInfoFromHead(ex.head);
    const auto length = parseU64(ex.head.header("content-length"));
    if (!length) return dataLoss(urlOf(object) + ": HEAD answered without a Content-Length");
    info.size = *length;
    return info;
}

Result<ObjectInfo> ObjectClient::read(const ObjectRef& object, uint64_t offset, std::span<uint8_t> out,
                                      const std::string& ifMatch, const CancellationToken* cancel) {
    RangeRead r{object, offset, out, ifMatch, okStatus(), {}};
    CKPT_RETURN_IF_ERROR(readRanges(std::span<RangeRead>(&r, 1), cancel));
    return r.info;
}

Status ObjectClient::readRanges(std::span<RangeRead> ranges, const CancellationToken* cancel) {
    std::vector<std::unique_ptr<RangeExchange>> exchanges;
    std::vector<HttpExchange*> batch;
    for (RangeRead& r : ranges) {
        r.status = okStatus();
        if (r.out.empty()) continue;  // nothing to fetch: no request
        exchanges.push_back(std::make_unique<RangeExchange>(*this, r));
        batch.push_back(exchanges.back().get());
    }
    CKPT_RETURN_IF_ERROR(m_transport.run(batch, cancel));
    Status first;
    size_t i = 0;
    for (RangeRead& r : ranges) {
        if (r.out.empty()) continue;
        r.status = exchanges[i++]->status();
        if (first.isOk() && !r.status.isOk()) first = r.status;
    }
    return first;
}

Result<std::pair<std::vector<uint8_t>, ObjectInfo>> ObjectClient::readTail(const ObjectRef& object, uint64_t n,
                                                                           const CancellationToken* cancel) {
    if (n == 0) return invalidArgument(urlOf(object) + ": a suffix read of 0 bytes");
    TailExchange ex(*this, object, n);
    const Status s = m_transport.runOne(ex, cancel);
    if (s.code() == StatusCode::OutOfRange) {
        // 416: S3 answers a suffix range on an empty object so (and some
        // S3-compatible servers on objects shorter than the suffix).
        CKPT_ASSIGN_OR_RETURN(ObjectInfo info, stat(object, cancel));
        std::vector<uint8_t> bytes(static_cast<size_t>(std::min<uint64_t>(info.size, n)));
        if (!bytes.empty()) CKPT_RETURN_IF_ERROR(read(object, info.size - bytes.size(), bytes, info.etag, cancel).status());
        return std::pair{std::move(bytes), std::move(info)};
    }
    CKPT_RETURN_IF_ERROR(s);
    return std::pair{ex.takeBytes(), ex.info};
}

Result<std::pair<std::string, ObjectInfo>> ObjectClient::readObject(const ObjectRef& object, size_t maxBytes,
                                                                    const CancellationToken* cancel) {
    WholeExchange ex(*this, object, maxBytes);
    CKPT_RETURN_IF_ERROR(m_transport.runOne(ex, cancel));
    return std::pair{std::move(ex.bytes), std::move(ex.info)};
}

Result<std::optional<std::pair<std::vector<uint8_t>, ObjectInfo>>> ObjectClient::readTailIfChanged(
    const ObjectRef& object, uint64_t n, const std::string& etag, const CancellationToken* cancel) {
    if (n == 0 || etag.empty()) return invalidArgument(urlOf(object) + ": a conditional suffix read needs a length and an ETag");
    TailExchange ex(*this, object, n, etag);
    const Status s = m_transport.runOne(ex, cancel);
    if (s.code() == StatusCode::OutOfRange) {  // an empty object: as readTail
        CKPT_ASSIGN_OR_RETURN(auto tail, readTail(object, n, cancel));
        return std::optional(std::move(tail));
    }
    CKPT_RETURN_IF_ERROR(s);
    if (ex.unchanged) return std::optional<std::pair<std::vector<uint8_t>, ObjectInfo>>();
    return std::optional(std::pair{ex.takeBytes(), ex.info});
}

Result<std::optional<std::pair<std::string, ObjectInfo>>> ObjectClient::readObjectIfChanged(const ObjectRef& object,
                                                                                            size_t maxBytes,
                                                                                            const std::string& etag,
                                                                                            const CancellationToken* cancel) {
    if (etag.empty()) return invalidArgument(urlOf(object) + ": a conditional read needs an ETag");
    WholeExchange ex(*this, object, maxBytes, etag);
    CKPT_RETURN_IF_ERROR(m_transport.runOne(ex, cancel));
    if (ex.unchanged) return std::optional<std::pair<std::string, ObjectInfo>>();
    return std::optional(std::pair{std::move(ex.bytes), std::move(ex.info)});
}

Result<ListPage> ObjectClient::listPage(const std::string& bucket, const std::string& prefix, const std::string& delimiter,
                                        const std::string& continuationToken, int maxKeys, const CancellationToken* cancel) {
    if (maxKeys < 1 || maxKeys > 1000) return invalidArgument("a list page holds 1 to 1000 keys");
    std::vector<QueryParam> query = {
        {"list-type", "2"}, {"encoding-type", "url"}, {"max-keys", std::to_string(maxKeys)}, {"prefix", prefix}};
    if (!delimiter.empty()) query.push_back({"delimiter", delimiter});
    if (!continuationToken.empty()) query.push_back({"continuation-token", continuationToken});
    const ObjectRef where{bucket, {}};
    SmallExchange ex(urlOf({bucket, prefix}),
                     [&] { return signedRequest("GET", where, query, {}, {}, std::string(kEmptyPayloadSha256)); });
    CKPT_RETURN_IF_ERROR(m_transport.runOne(ex, cancel));
    auto page = parseListObjectsV2(ex.body_, true);
    if (!page) return page.status().withContext(urlOf({bucket, prefix}));
    return page;
}

Result<ListPage> ObjectClient::listAll(const std::string& bucket, const std::string& prefix, const std::string& delimiter,
                                       size_t maxEntries, const CancellationToken* cancel) {
    ListPage all;
    std::string token;
    // A server that keeps answering "truncated" with the same token would
    // loop forever: every token must be new.
    std::vector<std::string> seenTokens;
    for (;;) {
        CKPT_ASSIGN_OR_RETURN(ListPage page, listPage(bucket, prefix, delimiter, token, 1000, cancel));
        for (auto& o : page.objects) all.objects.push_back(std::move(o));
        for (auto& p : page.commonPrefixes) all.commonPrefixes.push_back(std::move(p));
        if (all.objects.size() + all.commonPrefixes.size() > maxEntries)
            return Status(StatusCode::ResourceExhausted,
                          urlOf({bucket, prefix}) + ": more than " + std::to_string(maxEntries) + " entries");
        if (!page.isTruncated) break;
        if (std::find(seenTokens.begin(), seenTokens.end(), page.nextContinuationToken) != seenTokens.end())
            return dataLoss(urlOf({bucket, prefix}) + ": the listing repeats a continuation token");
        seenTokens.push_back(page.nextContinuationToken);
        token = page.nextContinuationToken;
    }
    return all;
}

Result<ObjectInfo> ObjectClient::putOnce(const ObjectRef& object, std::string_view body, const PutCondition& condition,
                                         const CancellationToken* cancel) {
    if (body.size() > kMaxSinglePutBytes) return invalidArgument(urlOf(object) + ": a single PUT holds at most 5 GiB");
    const std::string hash = sha256Hex(body);
    HeaderList extra = conditionHeaders(condition, m_settings.kind);
    extra.emplace_back("Content-MD5", md5Base64(body));
    SmallExchange ex(urlOf(object), [&] { return signedRequest("PUT", object, {}, extra, body, hash); });
    CKPT_RETURN_IF_ERROR(m_transport.runOne(ex, cancel));
    ObjectInfo info = objectInfoFromHead(ex.head);
    info.size = body.size();
    return info;
}

Result<ObjectInfo> ObjectClient::put(const ObjectRef& object, std::string_view body, const PutCondition& condition,
                                     const CancellationToken* cancel) {
    auto sent = putOnce(object, body, condition, cancel);
    const bool conditional = condition.ifNoneMatch || !condition.ifMatch.empty();
    if (!sent.ok() && sent.status().code() == StatusCode::FailedPrecondition && conditional) {
        // An earlier attempt may have been applied and only its answer lost
        // (curl resends a request whose reused connection broke without
        // telling us, so no count of attempts can say): then the object
        // there is this very body (one PUT's ETag is its MD5), and the
        // write succeeded.
        auto there = stat(object, cancel);
        if (there.ok() && there->size == body.size() && there->etag == md5Hex(body)) return *there;
    }
    return sent;
}

Status ObjectClient::remove(const ObjectRef& object, const CancellationToken* cancel) {
    SmallExchange ex(urlOf(object),
                     [&] { return signedRequest("DELETE", object, {}, {}, {}, std::string(kEmptyPayloadSha256)); });
    return m_transport.runOne(ex, cancel);
}

Status ObjectClient::createBucket(const std::string& bucket, const CancellationToken* cancel) {
    if (!isValidBucketName(bucket)) return invalidArgument("\"" + bucket + "\" is not a valid bucket name");
    SmallExchange ex(urlOf({bucket, {}}), [&] {
        return signedRequest("PUT", {bucket, {}}, {}, {}, {}, std::string(kEmptyPayloadSha256));
    });
    return m_transport.runOne(ex, cancel);
}

}  // namespace ckpt::objstore
