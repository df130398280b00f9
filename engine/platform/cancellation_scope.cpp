#include "platform/cancellation_scope.h"

namespace ckpt::platform {

namespace {
thread_local const CancellationToken* t_current = nullptr;
}  // namespace

CancellationScope::CancellationScope(const CancellationToken* token) : m_previous(t_current) {
    if (token != nullptr) t_current = token;
}

CancellationScope::~CancellationScope() { t_current = m_previous; }

const CancellationToken* currentCancellation() { return t_current; }

}  // namespace ckpt::platform
