#pragma once
// HTTP for the object store: libcurl's multi interface, so one call runs
// many requests at once over reused connections, with one retry policy for
// all of them. Each logical request is an HttpExchange; the transport runs
// its attempts (at most RetryPolicy::maxAttempts, the first included),
// waiting between them with exponential backoff and full jitter, after a
// 5xx, 429, an S3 "SlowDown"/"RequestTimeout", a reset, a timeout or a
// stall. An exchange that already received part of its body builds the
// next attempt to resume where it stopped (object_client.cpp's ranged
// reads do). Counters of requests, retries and bytes are kept per
// transport (TransferStats), for --stats and the request-count tests.
//
// Thread-safe: any number of threads may call run() at once; each call
// borrows its own curl multi handle (and so its own connection cache) from
// a pool and returns it, connections still open, for the next call.
//   HttpTransport http(options);
//   std::vector<HttpExchange*> batch = {&a, &b};
//   http.run(batch, cancel);  // then a.status(), b.status()

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ckpt/cancellation.h"
#include "ckpt/status.h"
#include "objstore/s3_xml.h"
#include "objstore/sigv4.h"
#include "objstore/store_settings.h"

namespace ckpt::objstore {

struct HttpRequest {
    std::string method;  // GET, HEAD, PUT, POST, DELETE
    std::string url;
    HeaderList headers;     // complete: Host and Authorization included
    std::string_view body;  // PUT/POST payload; must outlive the attempt
};

struct HttpResponseHead {
    long status = 0;
    HeaderList headers;  // names lower-cased
    // The first value of header 'name' (lower case), or empty.
    std::string_view header(std::string_view name) const;
};

// One logical request. The transport calls prepare() before every attempt,
// then begin() with the response's status line and headers, then body()
// with the bytes of a 2xx response, then finish() once the 2xx response
// is complete. An error response's body is kept by the transport (bounded)
// and turned into the exchange's status there.
class HttpExchange {
public:
    virtual ~HttpExchange() = default;
    // The request for attempt 'attempt' (1-based), signed anew.
    virtual HttpRequest prepare(int attempt) = 0;
    // A 2xx response begins. A non-OK status ends the exchange with it (no retry).
    virtual Status begin(const HttpResponseHead& head) = 0;
    // Body bytes of the 2xx response, in order. A non-OK status ends the exchange.
    virtual Status body(const char* data, size_t n) = 0;
    // The 2xx response is complete; its result is the exchange's.
    virtual Status finish(const HttpResponseHead& head) = 0;
    // What messages name: "s3://bucket/key".
    virtual std::string what() const = 0;
    // True once the exchange has every byte it needs although the response
    // goes on (a server that ignored a Range header): the transfer is cut
    // there and finish() called, instead of downloading the rest.
    virtual bool satisfied() const { return false; }
    // A 304 Not Modified (the answer to If-None-Match, without a body): the
    // exchange's result. An exchange that sent no condition fails.
    virtual Status notModified(const HttpResponseHead& head);

    const Status& status() const { return m_status; }
    int attempts() const { return m_attempts; }

private:
    friend class HttpTransport;
    friend class TransferLoop;
    Status m_status = {StatusCode::Internal, "request was not run"};
    int m_attempts = 0;
};

struct TransferStats {
    uint64_t requests = 0;       // attempts sent, retries included
    uint64_t retries = 0;        // attempts after a retryable failure
    uint64_t bytesReceived = 0;  // body bytes of 2xx responses
    uint64_t bytesSent = 0;      // request bodies
    int maxAttempts = 0;         // the most attempts any one request took
};

class HttpTransport {
public:
    // 'secrets' are redacted from every message built from server text.
    HttpTransport(TransferOptions options, Secret redactA = {}, Secret redactB = {});
    ~HttpTransport();
    HttpTransport(const HttpTransport&) = delete;
    HttpTransport& operator=(const HttpTransport&) = delete;

    // Runs every exchange to completion (each ends with its status()), at
    // most options.maxInFlight at once. Returns Cancelled if 'cancel' or
    // the thread's platform::currentCancellation() fired (checked at least
    // every 100 ms; exchanges not finished then are Cancelled too, their
    // transfers dropped), else OK: per-request failures are in the exchanges.
    Status run(std::span<HttpExchange* const> exchanges, const CancellationToken* cancel = nullptr);
    // One exchange; returns its status.
    Status runOne(HttpExchange& exchange, const CancellationToken* cancel = nullptr);

    TransferStats stats() const;
    const TransferOptions& options() const { return m_options; }

private:
    friend class TransferLoop;
    struct Session;
    std::unique_ptr<Session> borrowSession();
    void returnSession(std::unique_ptr<Session> session);

    TransferOptions m_options;
    Secret m_redactA, m_redactB;
    std::mutex m_mutex;
    std::vector<std::unique_ptr<Session>> m_idle;  // Guarded by m_mutex.
    std::atomic<uint64_t> m_requests{0}, m_retries{0}, m_bytesReceived{0}, m_bytesSent{0};
    std::atomic<int> m_maxAttempts{0};
};

// The Status for a final (non-retryable) HTTP error: 404 NotFound, 403
// PermissionDenied, 412 FailedPrecondition, 416 OutOfRange, 400
// InvalidArgument, 301/307 FailedPrecondition naming the region or endpoint
// the server asked for; the message names 'what', the status and the S3
// error code, and the server's message with the secrets redacted.
Status statusForHttpError(long httpStatus, const std::optional<ErrorBody>& error, const std::string& what, const Secret& redactA,
                          const Secret& redactB);
// Whether an HTTP response is worth another attempt (5xx, 429, SlowDown, RequestTimeout).
bool isRetryableHttp(long httpStatus, const std::optional<ErrorBody>& error);

}  // namespace ckpt::objstore
