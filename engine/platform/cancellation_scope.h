#pragma once
// The cancellation token of the engine call running on this thread, for
// the layers that call cannot hand it to: the storage interface's methods
// take no token, so Checkpoint::open installs its caller's token here and
// the object-store transport checks it between transfers (at least every
// 100 ms), so a Cancel stops a remote open's requests mid-flight. Scopes
// nest; each restores the one before it. Work handed to other threads does
// not inherit it.
//   platform::CancellationScope scope(options.cancel);
//   ... storage calls ...; platform::currentCancellation() is options.cancel

#include "ckpt/cancellation.h"

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

}  // namespace ckpt::platform
