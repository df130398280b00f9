#pragma once
// Checkpoints on object storage: s3:// and gs:// locations are accepted
// wherever a command reads a checkpoint path (docs/remote.md). The engine
// resolves endpoint, region and credentials the way the AWS CLI does; the
// settings here are what a command line adds on top, and the counters are
// what `--stats` prints. Thread-safe.
//   ckpt::ObjectStoreOptions o;
//   o.endpointUrl = "http://127.0.0.1:9000";
//   CKPT_RETURN_IF_ERROR(ckpt::configureObjectStores(o));
//   ... open "s3://bucket/run/ckpt-3" like a local prefix ...
//   ckpt::ObjectStoreStats s = ckpt::objectStoreStats();

#include <cstdint>
#include <string>
#include <string_view>

#include "ckpt/status.h"

namespace ckpt {

struct ObjectStoreOptions {
    std::string endpointUrl;  // --endpoint-url; empty: AWS_ENDPOINT_URL, the profile, AWS's endpoint
    std::string profile;      // --profile; empty: AWS_PROFILE or "default"
    std::string addressing;   // "path", "virtual" or empty (custom endpoints path-style, AWS virtual-host)
    bool allowHttp = false;   // --allow-http: plain http to a host that is not loopback
};

// Applies 'options' to s3:// and gs:// locations opened after the call.
// InvalidArgument for a malformed endpoint or addressing style (checked
// now; credentials are looked up on first use).
Status configureObjectStores(const ObjectStoreOptions& options);

// The on-disk cache of remote objects: indexes and state files read whole,
// and reads up to 4 MiB (an object graph, a tensor shown), each kept with
// its ETag and served only while the store still has that ETag: a reopen
// costs a listing or a 304 answer instead of the downloads (docs/remote.md,
// "Caching"). Entries are keyed by endpoint, bucket and key, never by a
// credential; the directory is made 0700 and may be shared by processes.
struct ObjectCacheOptions {
    std::string directory;         // --cache-dir; empty: CKPT_CACHE_DIR, else defaultDirectory
    std::string defaultDirectory;  // the explorer's per-user cache; ckpt has none (no cache unless asked)
    uint64_t maxBytes = 0;         // 0: CKPT_CACHE_MAX_MIB, else 1 GiB
};
struct ObjectCacheState {
    std::string directory;  // in use; empty: no cache
    uint64_t maxBytes = 0;
    std::string warning;  // why a cache that was asked for is off (never an error)
};
// Applies 'options' to reads from now on. A directory that cannot be
// created or written turns the cache off with a warning.
ObjectCacheState configureObjectCache(const ObjectCacheOptions& options);
// Why the cache stopped writing during the run (disk full, directory
// gone), or empty.
std::string objectCacheWarning();

// Requests, retries and bytes of every s3:// and gs:// access in this
// process so far.
struct ObjectStoreStats {
    uint64_t requests = 0;       // HTTP requests sent, retries included
    uint64_t retries = 0;        // requests that repeated a failed one
    uint64_t bytesReceived = 0;  // response body bytes
    uint64_t bytesSent = 0;      // request body bytes
    int maxAttempts = 0;         // the most attempts one request needed
};
ObjectStoreStats objectStoreStats();

// Whether 'location' is an s3:// or gs:// URL.
bool isObjectStoreLocation(std::string_view location);

// Whether 'location' is well formed, judged by its text alone (no settings
// read, no request made: a dialog checks it as the user types). OK for a
// plain path; for s3:// and gs:// the rules the store applies before any
// request (a bucket, a valid bucket name, a key within bounds), and for any
// other scheme the refusal an open would give. InvalidArgument naming the
// location and the problem.
Status checkLocationText(std::string_view location);

}  // namespace ckpt
