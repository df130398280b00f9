#pragma once
// The process's object-store clients: one per scheme (s3, gs), made on
// first use from the process environment and the command line's overrides,
// shared by every backend and file of that scheme (one connection pool,
// one set of counters). Thread-safe.

#include <memory>

#include "ckpt/status.h"
#include "objstore/object_client.h"
#include "objstore/store_settings.h"

namespace ckpt::objstore {

// The client for 'kind'; fails (naming no location: callers add it) when
// the settings do not resolve, e.g. without credentials.
Result<std::shared_ptr<ObjectClient>> clientFor(StoreKind kind);
// Overrides from a command line: clients made after the call use them
// (existing ones are dropped; their counters are kept in the totals).
void setStoreOverrides(StoreOverrides overrides);
// Counters summed over every client made in this process.
TransferStats totalTransferStats();

}  // namespace ckpt::objstore
