#pragma once
// Status and Result<T>: how every fallible engine call reports failure.
// No exception leaves the engine; callers check ok() or use the macros below.
//   Result<Bundle> b = Bundle::open(prefix);
//   if (!b) return b.status();
//   use(*b);

#include <cassert>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace ckpt {

enum class StatusCode {
    Ok,
    InvalidArgument,  // the caller asked for something malformed
    NotFound,         // a file, key or checkpoint does not exist
    DataLoss,         // bytes on disk are corrupt or inconsistent
    Unimplemented,    // a valid feature we do not support (e.g. resource dtype)
    FailedPrecondition,
    OutOfRange,
    PermissionDenied,
    ResourceExhausted,  // disk full, memory limits
    AlreadyExists,
    Cancelled,
    Internal,
};

// "DataLoss", "NotFound", ...: the prefix of Status::toString().
std::string_view statusCodeName(StatusCode code);

class [[nodiscard]] Status {
public:
    Status() = default;
    Status(StatusCode code, std::string message) : m_code(code), m_message(std::move(message)) {}

    bool isOk() const { return m_code == StatusCode::Ok; }
    StatusCode code() const { return m_code; }
    const std::string& message() const { return m_message; }
    // "DataLoss: checksum mismatch for ..." or "OK".
    std::string toString() const;

    // Returns a copy whose message starts with 'context: '.
    Status withContext(std::string_view context) const;

private:
    StatusCode m_code = StatusCode::Ok;
    std::string m_message;
};

// Factories: okStatus() for success, one per error code otherwise. (Tests
// read isOk() on a Status and ok() on a Result.)
inline Status okStatus() { return {}; }
inline Status invalidArgument(std::string msg) { return {StatusCode::InvalidArgument, std::move(msg)}; }
inline Status notFound(std::string msg) { return {StatusCode::NotFound, std::move(msg)}; }
inline Status dataLoss(std::string msg) { return {StatusCode::DataLoss, std::move(msg)}; }
inline Status unimplemented(std::string msg) { return {StatusCode::Unimplemented, std::move(msg)}; }
inline Status failedPrecondition(std::string msg) { return {StatusCode::FailedPrecondition, std::move(msg)}; }
inline Status outOfRange(std::string msg) { return {StatusCode::OutOfRange, std::move(msg)}; }
inline Status cancelled(std::string msg) { return {StatusCode::Cancelled, std::move(msg)}; }
inline Status internalError(std::string msg) { return {StatusCode::Internal, std::move(msg)}; }

// A value or the Status that explains why there is none.
template <typename T>
class [[nodiscard]] Result {
public:
    Result(T value) : m_value(std::move(value)) {}
    // An OK status is no error: returning one as an error is a bug, and it
    // becomes an Internal error here (in release builds too) rather than a
    // Result with neither a value nor a reason.
    Result(Status status) : m_status(std::move(status)) {
        assert(!m_status.isOk());
        if (m_status.isOk()) m_status = Status(StatusCode::Internal, "an OK status was returned as an error");
    }

    bool ok() const { return m_value.has_value(); }
    explicit operator bool() const { return ok(); }
    const Status& status() const { return m_status; }

    T& value() & {
        assert(ok());
        return *m_value;
    }
    const T& value() const& {
        assert(ok());
        return *m_value;
    }
    T&& value() && {
        assert(ok());
        return std::move(*m_value);
    }
    T& operator*() & { return value(); }
    const T& operator*() const& { return value(); }
    T&& operator*() && { return std::move(*this).value(); }
    T* operator->() { return &value(); }
    const T* operator->() const { return &value(); }

private:
    std::optional<T> m_value;
    Status m_status;
};

}  // namespace ckpt

#define CKPT_CONCAT_INNER(a, b) a##b
#define CKPT_CONCAT(a, b) CKPT_CONCAT_INNER(a, b)

#define CKPT_RETURN_IF_ERROR(expr)                     \
    do {                                               \
        ::ckpt::Status ckpt_status_ = (expr);          \
        if (!ckpt_status_.isOk()) return ckpt_status_; \
    } while (0)

// 'lhs' is a declaration ("auto x"): it cannot be parenthesised.
// NOLINTBEGIN(bugprone-macro-parentheses)
#define CKPT_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
    auto tmp = (expr);                             \
    if (!tmp.ok()) return tmp.status();            \
    lhs = std::move(tmp).value()

// CKPT_ASSIGN_OR_RETURN(auto bundle, Bundle::open(p));
#define CKPT_ASSIGN_OR_RETURN(lhs, expr) CKPT_ASSIGN_OR_RETURN_IMPL(CKPT_CONCAT(ckpt_result_, __LINE__), lhs, expr)
// NOLINTEND(bugprone-macro-parentheses)
