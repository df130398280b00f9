#include "python_errors.h"

#include <string>

namespace nb = nanobind;

namespace ckpt::python {
namespace {

// Class names in ckpt/errors.py, one per StatusCode (tf.errors' names).
const char* className(StatusCode code) {
    switch (code) {
    case StatusCode::Ok: break;
    case StatusCode::InvalidArgument: return "InvalidArgumentError";
    case StatusCode::NotFound: return "NotFoundError";
    case StatusCode::DataLoss: return "DataLossError";
    case StatusCode::Unimplemented: return "UnimplementedError";
    case StatusCode::FailedPrecondition: return "FailedPreconditionError";
    case StatusCode::OutOfRange: return "OutOfRangeError";
    case StatusCode::PermissionDenied: return "PermissionDeniedError";
    case StatusCode::ResourceExhausted: return "ResourceExhaustedError";
    case StatusCode::AlreadyExists: return "AlreadyExistsError";
    case StatusCode::Cancelled: return "CancelledError";
    case StatusCode::Internal: return "InternalError";
    }
    return "InternalError";
}

}  // namespace

void raise(StatusCode code, std::string_view message) {
    // Imported when first needed: ckpt/__init__.py imports this module first.
    nb::object cls = nb::module_::import_("ckpt.errors").attr(className(code));
    nb::object error = cls(nb::str(message.data(), message.size()));
    PyErr_SetObject(cls.ptr(), error.ptr());
    throw nb::python_error();
}

void throwIfError(const Status& status) {
    if (!status.isOk()) raise(status.code(), status.message());
}

}  // namespace ckpt::python
