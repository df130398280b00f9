#pragma once
// The cancellation token of the engine call running on this thread, for
// the layers that call cannot hand it to: the storage interface's methods
// take no token, so Checkpoint::open installs its caller's token here and
// the object-store transport checks it between transfers (at least every
// 100 ms), so a Cancel stops a remote open's requests mid-flight. Scopes
// nest; each restores the one before it. platform::runWorkers hands it to
// its workers; other threads do not inherit it.
//   platform::CancellationScope scope(options.cancel);
//   ... storage calls ...; platform::currentCancellation() is options.cancel

#include <string>
#include <string_view>
#include <utility>

#include "ckpt/cancellation.h"
#include "ckpt/status.h"

namespace ckpt::platform {

class CancellationScope {
public:
    // nullptr leaves the enclosing scope's token in force.
    explicit CancellationScope(const CancellationToken* token);
    ~CancellationScope();
    CancellationScope(const CancellationScope&) = delete;
    CancellationScope& operator=(const CancellationScope&) = delete;

private:
    const CancellationToken* m_previous;
};

// The innermost scope's token on this thread, or nullptr.
const CancellationToken* currentCancellation();

// An engine entry point's whole body under 'token': call() runs in its
// scope, and when the token fired meanwhile the result is Cancelled
// ("stopped <what>"), whatever call() made of the dropped transfer: an
// aborted request says nothing about the checkpoint.
template <typename Call>
auto runCancellable(const CancellationToken* token, std::string_view what, Call&& call) -> decltype(call()) {
    const CancellationScope scope(token);
    auto result = std::forward<Call>(call)();
    if (token != nullptr && token->isCancelled()) return cancelled("stopped " + std::string(what));
    return result;
}

}  // namespace ckpt::platform
