#include "objstore/http_transport.h"

#include <curl/curl.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <mutex>
#include <random>
#include <thread>

#include "objstore/text.h"
#include "platform/cancellation_scope.h"

namespace ckpt::objstore {

namespace {

using Clock = std::chrono::steady_clock;

constexpr size_t kMaxErrorBodyBytes = 64u << 10;  // S3 error documents are < 1 KiB
constexpr size_t kMaxHeaderCount = 100;
constexpr size_t kMaxHeaderLineBytes = 16u << 10;
constexpr size_t kMaxIdleEasyHandles = 64;
constexpr long kReceiveBufferBytes = 512L << 10;  // fewer, larger write callbacks than the 16 KiB default

void initCurlOnce() {
    static std::once_flag once;
    std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

bool isRetryableCurl(CURLcode code) {
    switch (code) {
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_CONNECT:
    case CURLE_OPERATION_TIMEDOUT:
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_PARTIAL_FILE:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_SEND_FAIL_REWIND: return true;
    default: return false;
    }
}

std::chrono::milliseconds backoffDelay(const RetryPolicy& policy, int attemptsSoFar) {
    thread_local std::mt19937_64 rng{std::random_device{}()};
    const int shift = std::clamp(attemptsSoFar - 1, 0, 20);
    const auto cap = std::min<int64_t>(policy.maxDelay.count(), policy.baseDelay.count() << shift);
    std::uniform_int_distribution<int64_t> pick(0, std::max<int64_t>(cap, 0));
    return std::chrono::milliseconds(pick(rng));
}

}  // namespace

std::string_view HttpResponseHead::header(std::string_view name) const {
    for (const auto& [n, v] : headers)
        if (n == name) return v;
    return {};
}

bool isRetryableHttp(long httpStatus, const std::optional<ErrorBody>& error) {
    if (httpStatus == 500 || httpStatus == 502 || httpStatus == 503 || httpStatus == 504 || httpStatus == 429) return true;
    if (error && (error->code == "SlowDown" || error->code == "RequestTimeout" || error->code == "InternalError" ||
                  error->code == "ServiceUnavailable"))
        return true;
    return false;
}

Status statusForHttpError(long httpStatus, const std::optional<ErrorBody>& error, const std::string& what, const Secret& redactA,
                          const Secret& redactB) {
    std::string msg = what + ": HTTP " + std::to_string(httpStatus);
    if (!error) {
        // A HEAD answer, or a body that is not S3's XML: the status's name.
        static const std::pair<long, const char*> kReasons[] = {
            {400, "Bad Request"},         {401, "Unauthorized"},          {403, "Forbidden"},
            {404, "Not Found"},           {412, "Precondition Failed"},   {416, "Range Not Satisfiable"},
            {429, "Too Many Requests"},   {500, "Internal Server Error"}, {502, "Bad Gateway"},
            {503, "Service Unavailable"}, {504, "Gateway Timeout"}};
        for (const auto& [code, reason] : kReasons)
            if (code == httpStatus) msg += std::string(" ") + reason;
    } else {
        msg += " " + redact(error->code, redactA, redactB);
        if (!error->message.empty()) msg += ": " + redact(error->message, redactA, redactB);
    }
    const std::string code = error ? error->code : std::string();
    if (code == "SignatureDoesNotMatch")
        msg += " (the secret access key does not match the access key ID; the secret is never shown)";
    else if (code == "InvalidAccessKeyId") msg += " (the server does not know this access key ID)";
    switch (httpStatus) {
    case 404: return notFound(msg);
    case 401:
    case 403: return {StatusCode::PermissionDenied, msg};
    case 412: return failedPrecondition(msg);
    case 416: return outOfRange(msg);
    case 301:
    case 307:
    case 308:
        if (error && !error->region.empty())
            msg += " (the bucket is in region " + redact(error->region, redactA, redactB) + ": set AWS_REGION)";
        else if (error && !error->endpoint.empty())
            msg += " (the bucket answers at " + redact(error->endpoint, redactA, redactB) + ")";
        return failedPrecondition(msg);
    case 400:
        if (error && !error->region.empty())
            msg += " (the bucket is in region " + redact(error->region, redactA, redactB) + ": set AWS_REGION)";
        return invalidArgument(msg);
    default:
        if (httpStatus >= 500 || httpStatus == 429) return {StatusCode::ResourceExhausted, msg};
        return failedPrecondition(msg);
    }
}

// A multi handle, its connection cache, and idle easy handles to reuse.
struct HttpTransport::Session {
    CURLM* multi = nullptr;
    std::vector<CURL*> idleEasy;
    ~Session() {
        for (CURL* e : idleEasy) curl_easy_cleanup(e);
        if (multi) curl_multi_cleanup(multi);
    }
};

HttpTransport::HttpTransport(TransferOptions options, Secret redactA, Secret redactB)
    : m_options(options), m_redactA(std::move(redactA)), m_redactB(std::move(redactB)) {
    initCurlOnce();
    if (m_options.maxInFlight <= 0) m_options.maxInFlight = defaultMaxInFlight();
    m_options.retry.maxAttempts = std::clamp(m_options.retry.maxAttempts, 1, 10);
}

HttpTransport::~HttpTransport() = default;

std::unique_ptr<HttpTransport::Session> HttpTransport::borrowSession() {
    {
        std::lock_guard lock(m_mutex);
        if (!m_idle.empty()) {
            auto s = std::move(m_idle.back());
            m_idle.pop_back();
            return s;
        }
    }
    auto s = std::make_unique<Session>();
    s->multi = curl_multi_init();
    if (s->multi) {
        curl_multi_setopt(s->multi, CURLMOPT_MAX_HOST_CONNECTIONS, static_cast<long>(m_options.maxInFlight));
        curl_multi_setopt(s->multi, CURLMOPT_MAXCONNECTS, static_cast<long>(m_options.maxInFlight) * 2);
    }
    return s;
}

void HttpTransport::returnSession(std::unique_ptr<Session> session) {
    std::lock_guard lock(m_mutex);
    m_idle.push_back(std::move(session));
}

TransferStats HttpTransport::stats() const {
    TransferStats s;
    s.requests = m_requests.load();
    s.retries = m_retries.load();
    s.bytesReceived = m_bytesReceived.load();
    s.bytesSent = m_bytesSent.load();
    s.maxAttempts = m_maxAttempts.load();
    return s;
}

// One call of run(): the exchanges, their attempts in flight, and the
// schedule of retries.
class TransferLoop {
public:
    TransferLoop(HttpTransport& transport, HttpTransport::Session& session) : m_t(transport), m_session(session) {}

    struct Attempt {
        HttpExchange* exchange = nullptr;
        CURL* easy = nullptr;
        curl_slist* headers = nullptr;
        HttpRequest request;
        HttpResponseHead head;
        bool begun = false;      // begin() delivered for this attempt
        bool satisfied = false;  // cut short on purpose: the exchange has its bytes
        bool headerTooBig = false;
        std::string errorBody;  // non-2xx body, bounded
        Status abort;           // the exchange refused its response
        size_t uploaded = 0;
        char errorText[CURL_ERROR_SIZE] = {};
        TransferLoop* loop = nullptr;
    };

    Status run(std::span<HttpExchange* const> exchanges, const CancellationToken* cancel) {
        if (m_session.multi == nullptr) {
            for (HttpExchange* e : exchanges) e->m_status = {StatusCode::ResourceExhausted, "cannot start libcurl"};
            return okStatus();
        }
        const auto now = Clock::now();
        for (HttpExchange* e : exchanges) {
            e->m_attempts = 0;
            e->m_status = {StatusCode::Internal, "request was not run"};
            m_waiting.push_back({now, e});
        }
        const size_t maxInFlight = static_cast<size_t>(m_t.m_options.maxInFlight);
        // The caller's token, and the one of the engine call this runs
        // under (a Checkpoint::open through the storage interface).
        const CancellationToken* ambient = platform::currentCancellation();
        while (!m_waiting.empty() || !m_active.empty()) {
            if ((cancel != nullptr && cancel->isCancelled()) || (ambient != nullptr && ambient->isCancelled())) {
                abandonAll();
                return cancelled("cancelled");
            }
            startReady(maxInFlight);
            if (m_active.empty()) {
                sleepUntilNext();
                continue;
            }
            int running = 0;
            curl_multi_perform(m_session.multi, &running);
            collectDone();
            if (!m_active.empty()) curl_multi_poll(m_session.multi, nullptr, 0, pollTimeoutMs(), nullptr);
        }
        return okStatus();
    }

private:
    struct Waiting {
        Clock::time_point notBefore;
        HttpExchange* exchange;
    };

    void startReady(size_t maxInFlight) {
        const auto now = Clock::now();
        for (size_t i = 0; i < m_waiting.size() && m_active.size() < maxInFlight;) {
            if (m_waiting[i].notBefore > now) {
                ++i;
                continue;
            }
            HttpExchange* e = m_waiting[i].exchange;
            m_waiting.erase(m_waiting.begin() + static_cast<std::ptrdiff_t>(i));
            start(e);
        }
    }

    void sleepUntilNext() {
        auto next = Clock::time_point::max();
        for (const auto& w : m_waiting) next = std::min(next, w.notBefore);
        const auto cap = Clock::now() + std::chrono::milliseconds(100);  // cancellation is checked this often
        std::this_thread::sleep_until(std::min(next, cap));
    }

    int pollTimeoutMs() const {
        int ms = 100;
        const auto now = Clock::now();
        for (const auto& w : m_waiting) {
            const auto d = std::chrono::duration_cast<std::chrono::milliseconds>(w.notBefore - now).count();
            ms = static_cast<int>(std::clamp<int64_t>(d, 0, ms));
        }
        return ms;
    }

    CURL* takeEasy() {
        if (!m_session.idleEasy.empty()) {
            CURL* e = m_session.idleEasy.back();
            m_session.idleEasy.pop_back();
            curl_easy_reset(e);
            return e;
        }
        return curl_easy_init();
    }

    void releaseEasy(CURL* easy) {
        if (m_session.idleEasy.size() < kMaxIdleEasyHandles) {
            m_session.idleEasy.push_back(easy);
        } else {
            curl_easy_cleanup(easy);
        }
    }

    void start(HttpExchange* e) {
        ++e->m_attempts;
        m_t.m_requests++;
        if (e->m_attempts > 1) m_t.m_retries++;
        for (int seen = m_t.m_maxAttempts.load(); e->m_attempts > seen;)
            if (m_t.m_maxAttempts.compare_exchange_weak(seen, e->m_attempts)) break;

        auto a = std::make_unique<Attempt>();
        a->exchange = e;
        a->loop = this;
        a->request = e->prepare(e->m_attempts);
        a->easy = takeEasy();
        if (a->easy == nullptr) {
            e->m_status = {StatusCode::ResourceExhausted, e->what() + ": cannot create a libcurl handle"};
            return;
        }
        m_t.m_bytesSent += a->request.body.size();
        configure(*a);
        if (curl_multi_add_handle(m_session.multi, a->easy) != CURLM_OK) {
            e->m_status = {StatusCode::Internal, e->what() + ": libcurl refused the request"};
            curl_slist_free_all(a->headers);
            releaseEasy(a->easy);
            return;
        }
        m_active.push_back(std::move(a));
    }

    void configure(Attempt& a) {
        CURL* h = a.easy;
        const TransferOptions& o = m_t.m_options;
        curl_easy_setopt(h, CURLOPT_URL, a.request.url.c_str());
        // Object keys are taken literally: "a/./b" and "a/../b" are keys, not paths to squash.
        curl_easy_setopt(h, CURLOPT_PATH_AS_IS, 1L);
        curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
        curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);
        curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
        curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, 1L);
        curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, 2L);
        curl_easy_setopt(h, CURLOPT_HTTP_VERSION, static_cast<long>(CURL_HTTP_VERSION_1_1));
        curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(o.connectTimeout.count() * 1000));
        curl_easy_setopt(h, CURLOPT_LOW_SPEED_LIMIT, 1L);
        curl_easy_setopt(h, CURLOPT_LOW_SPEED_TIME, static_cast<long>(std::max<int64_t>(1, o.stallTimeout.count())));
        curl_easy_setopt(h, CURLOPT_BUFFERSIZE, kReceiveBufferBytes);
        curl_easy_setopt(h, CURLOPT_ERRORBUFFER, a.errorText);
        curl_easy_setopt(h, CURLOPT_PRIVATE, &a);
        curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, &TransferLoop::onHeader);
        curl_easy_setopt(h, CURLOPT_HEADERDATA, &a);
        curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, &TransferLoop::onWrite);
        curl_easy_setopt(h, CURLOPT_WRITEDATA, &a);
        // A loopback endpoint is never reached through a proxy from the environment.
        if (a.request.url.find("://127.") != std::string::npos || a.request.url.find("://localhost") != std::string::npos ||
            a.request.url.find("://[::1]") != std::string::npos)
            curl_easy_setopt(h, CURLOPT_NOPROXY, "*");
        const std::string& m = a.request.method;
        if (m == "HEAD") {
            curl_easy_setopt(h, CURLOPT_NOBODY, 1L);
        } else if (m == "PUT") {
            curl_easy_setopt(h, CURLOPT_UPLOAD, 1L);
            curl_easy_setopt(h, CURLOPT_READFUNCTION, &TransferLoop::onRead);
            curl_easy_setopt(h, CURLOPT_READDATA, &a);
            curl_easy_setopt(h, CURLOPT_INFILESIZE_LARGE, static_cast<curl_off_t>(a.request.body.size()));
            // curl rewinds the body when it resends on a fresh connection
            // after a reused one died; without this it gives up (error 65).
            curl_easy_setopt(h, CURLOPT_SEEKFUNCTION, &TransferLoop::onSeek);
            curl_easy_setopt(h, CURLOPT_SEEKDATA, &a);
        } else if (m == "POST") {
            curl_easy_setopt(h, CURLOPT_POST, 1L);
            curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(a.request.body.size()));
            curl_easy_setopt(h, CURLOPT_POSTFIELDS, a.request.body.data());
        } else if (m != "GET") {
            curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, m.c_str());
        }
        for (const auto& [name, value] : a.request.headers)
            a.headers = curl_slist_append(a.headers, (name + ": " + value).c_str());
        // No 100-continue round trip; no compressed ranges; curl's own
        // Accept header is not part of what we sign and not needed.
        a.headers = curl_slist_append(a.headers, "Expect:");
        a.headers = curl_slist_append(a.headers, "Accept:");
        curl_easy_setopt(h, CURLOPT_HTTPHEADER, a.headers);
    }

    static size_t onHeader(char* data, size_t size, size_t count, void* user) {
        auto& a = *static_cast<Attempt*>(user);
        const size_t n = size * count;
        const std::string_view line(data, n);
        if (line.rfind("HTTP/", 0) == 0) {  // a new response (after a 1xx, the final one)
            a.head.headers.clear();
            const size_t sp = line.find(' ');
            a.head.status = sp == std::string_view::npos ? 0 : std::strtol(data + sp + 1, nullptr, 10);
            return n;
        }
        if (n > kMaxHeaderLineBytes || a.head.headers.size() >= kMaxHeaderCount) {
            a.headerTooBig = true;
            return 0;  // aborts the transfer
        }
        const size_t colon = line.find(':');
        if (colon != std::string_view::npos)
            a.head.headers.emplace_back(lowerAscii(trimWhitespace(line.substr(0, colon))),
                                        std::string(trimWhitespace(line.substr(colon + 1))));
        return n;
    }

    static size_t onWrite(char* data, size_t size, size_t count, void* user) {
        auto& a = *static_cast<Attempt*>(user);
        const size_t n = size * count;
        if (a.head.status < 200 || a.head.status > 299) {
            if (a.errorBody.size() < kMaxErrorBodyBytes)
                a.errorBody.append(data, std::min(n, kMaxErrorBodyBytes - a.errorBody.size()));
            return n;
        }
        if (!a.begun) {
            a.begun = true;
            a.abort = a.exchange->begin(a.head);
            if (!a.abort.isOk()) return 0;
        }
        a.abort = a.exchange->body(data, n);
        if (!a.abort.isOk()) return 0;
        a.loop->m_t.m_bytesReceived += n;
        if (a.exchange->satisfied()) {
            a.satisfied = true;
            return 0;  // ends the transfer (CURLE_WRITE_ERROR), taken as complete below
        }
        return n;
    }

    static size_t onRead(char* buffer, size_t size, size_t count, void* user) {
        auto& a = *static_cast<Attempt*>(user);
        const size_t n = std::min(size * count, a.request.body.size() - a.uploaded);
        std::memcpy(buffer, a.request.body.data() + a.uploaded, n);
        a.uploaded += n;
        return n;
    }

    static int onSeek(void* user, curl_off_t offset, int origin) {
        auto& a = *static_cast<Attempt*>(user);
        if (origin != SEEK_SET || offset < 0 || static_cast<uint64_t>(offset) > a.request.body.size())
            return CURL_SEEKFUNC_CANTSEEK;
        a.uploaded = static_cast<size_t>(offset);
        return CURL_SEEKFUNC_OK;
    }

    void collectDone() {
        int left = 0;
        while (CURLMsg* msg = curl_multi_info_read(m_session.multi, &left)) {
            if (msg->msg != CURLMSG_DONE) continue;
            Attempt* raw = nullptr;
            curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, &raw);
            const CURLcode code = msg->data.result;
            curl_multi_remove_handle(m_session.multi, msg->easy_handle);
            auto it = std::find_if(m_active.begin(), m_active.end(), [&](const auto& p) { return p.get() == raw; });
            if (it == m_active.end()) continue;
            std::unique_ptr<Attempt> a = std::move(*it);
            m_active.erase(it);
            finishAttempt(*a, code);
            curl_slist_free_all(a->headers);
            releaseEasy(a->easy);
        }
    }

    void retryOrFail(HttpExchange* e, Status failure) {
        if (e->m_attempts < m_t.m_options.retry.maxAttempts) {
            m_waiting.push_back({Clock::now() + backoffDelay(m_t.m_options.retry, e->m_attempts), e});
            return;
        }
        if (e->m_attempts > 1)
            failure = Status(failure.code(), failure.message() + " (after " + std::to_string(e->m_attempts) + " attempts)");
        e->m_status = std::move(failure);
    }

    void finishAttempt(Attempt& a, CURLcode code) {
        HttpExchange* e = a.exchange;
        if (!a.abort.isOk()) {
            e->m_status = a.abort;
            return;
        }
        if (a.headerTooBig) {
            e->m_status = dataLoss(e->what() + ": the response's headers are over the size limit");
            return;
        }
        if (a.satisfied) {
            e->m_status = e->finish(a.head);
            return;
        }
        if (code != CURLE_OK) {
            const std::string detail = (a.errorText[0] != '\0' ? std::string(a.errorText) : curl_easy_strerror(code)) +
                                       " (curl error " + std::to_string(static_cast<int>(code)) + ")";
            Status failure = failedPrecondition(e->what() + ": " + redact(detail, m_t.m_redactA, m_t.m_redactB));
            if (isRetryableCurl(code)) return retryOrFail(e, std::move(failure));
            e->m_status = std::move(failure);
            return;
        }
        long status = 0;
        curl_easy_getinfo(a.easy, CURLINFO_RESPONSE_CODE, &status);
        a.head.status = status;
        if (status == 304) {
            e->m_status = e->notModified(a.head);
            return;
        }
        if (status >= 200 && status <= 299) {
            if (!a.begun) {
                a.begun = true;
                Status begun = e->begin(a.head);
                if (!begun.isOk()) {
                    e->m_status = std::move(begun);
                    return;
                }
            }
            e->m_status = e->finish(a.head);
            return;
        }
        const std::optional<ErrorBody> error = parseErrorBody(a.errorBody);
        Status failure = statusForHttpError(status, error, e->what(), m_t.m_redactA, m_t.m_redactB);
        if (isRetryableHttp(status, error)) return retryOrFail(e, std::move(failure));
        e->m_status = std::move(failure);
    }

    void abandonAll() {
        for (auto& a : m_active) {
            curl_multi_remove_handle(m_session.multi, a->easy);
            curl_slist_free_all(a->headers);
            releaseEasy(a->easy);
            a->exchange->m_status = cancelled(a->exchange->what() + ": cancelled");
        }
        m_active.clear();
        for (auto& w : m_waiting) w.exchange->m_status = cancelled(w.exchange->what() + ": cancelled");
        m_waiting.clear();
    }

    HttpTransport& m_t;
    HttpTransport::Session& m_session;
    std::vector<std::unique_ptr<Attempt>> m_active;
    std::vector<Waiting> m_waiting;
};

Status HttpExchange::notModified(const HttpResponseHead& /*head*/) {
    return failedPrecondition(what() + ": HTTP 304 Not Modified to a request without a condition");
}

Status HttpTransport::run(std::span<HttpExchange* const> exchanges, const CancellationToken* cancel) {
    if (exchanges.empty()) return okStatus();
    auto session = borrowSession();
    TransferLoop loop(*this, *session);
    Status s = loop.run(exchanges, cancel);
    returnSession(std::move(session));
    return s;
}

Status HttpTransport::runOne(HttpExchange& exchange, const CancellationToken* cancel) {
    HttpExchange* one[] = {&exchange};
    CKPT_RETURN_IF_ERROR(run(one, cancel));
    return exchange.status();
}

}  // namespace ckpt::objstore
