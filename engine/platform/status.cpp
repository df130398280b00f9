#include "ckpt/status.h"

namespace ckpt {

std::string_view statusCodeName(StatusCode code) {
    switch (code) {
    case StatusCode::Ok: return "OK";
    case StatusCode::InvalidArgument: return "InvalidArgument";
    case StatusCode::NotFound: return "NotFound";
    case StatusCode::DataLoss: return "DataLoss";
    case StatusCode::Unimplemented: return "Unimplemented";
    case StatusCode::FailedPrecondition: return "FailedPrecondition";
    case StatusCode::OutOfRange: return "OutOfRange";
    case StatusCode::PermissionDenied: return "PermissionDenied";
    case StatusCode::ResourceExhausted: return "ResourceExhausted";
    case StatusCode::AlreadyExists: return "AlreadyExists";
    case StatusCode::Cancelled: return "Cancelled";
    case StatusCode::Internal: return "Internal";
    }
    return "Unknown";
}

std::string Status::toString() const {
    if (isOk()) return "OK";
    return std::string(statusCodeName(m_code)) + ": " + m_message;
}

Status Status::withContext(std::string_view context) const {
    if (isOk()) return *this;
    return {m_code, std::string(context) + ": " + m_message};
}

}  // namespace ckpt
