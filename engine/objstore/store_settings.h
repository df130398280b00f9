#pragma once
// Which endpoint, region, addressing and credentials an s3:// or gs:// URL
// uses, resolved the way the AWS CLI and SDKs resolve them, so a user's
// existing setup works unchanged (docs/remote.md, "Credentials"):
//   credentials  AWS_ACCESS_KEY_ID + AWS_SECRET_ACCESS_KEY (+ AWS_SESSION_TOKEN),
//                else the profile (--profile, AWS_PROFILE, "default") in
//                AWS_SHARED_CREDENTIALS_FILE (~/.aws/credentials), then in
//                AWS_CONFIG_FILE (~/.aws/config); gs:// first tries
//                GS_ACCESS_KEY_ID + GS_SECRET_ACCESS_KEY (HMAC keys)
//   region       AWS_REGION, AWS_DEFAULT_REGION, the profile's region, us-east-1
//                (gs://: "auto")
//   endpoint     --endpoint-url, AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL, the
//                profile's endpoint_url (also under "s3 ="), else AWS's
//                regional endpoint; gs://: CKPT_GS_ENDPOINT_URL, else
//                https://storage.googleapis.com
//   addressing   --addressing, CKPT_S3_ADDRESSING, the profile's
//                s3.addressing_style, else virtual-host for AWS's endpoint
//                and path-style for any other (S3-compatible servers and
//                custom endpoints often serve only path-style)
// Plain http is refused unless the endpoint is loopback or allowHttp is set
// (--allow-http, CKPT_S3_ALLOW_HTTP=1). Resolution reads only the variables
// and files named above; errors name the setting or file and line, never a
// value that could be a secret.

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "ckpt/status.h"
#include "objstore/request_target.h"
#include "objstore/secret.h"

namespace ckpt::objstore {

enum class StoreKind { S3, Gcs };

struct Credentials {
    std::string accessKeyId;
    Secret secretAccessKey;
    Secret sessionToken;  // empty for long-term keys
};

struct RetryPolicy {
    int maxAttempts = 5;  // attempts per request, the first included
    std::chrono::milliseconds baseDelay{100};
    std::chrono::milliseconds maxDelay{5000};
};

struct TransferOptions {
    int maxInFlight = 0;  // requests in flight per operation; 0: from the core count (4..8)
    RetryPolicy retry;
    std::chrono::seconds connectTimeout{10};
    // A transfer that moves no byte for this long is abandoned and retried.
    std::chrono::seconds stallTimeout{30};
    // A written object over one part is sent as a multipart upload of parts
    // this long (at least 5 MiB, S3's minimum; grown so 10,000 parts hold
    // the object). CKPT_S3_PART_SIZE_MIB sets it.
    uint64_t partBytes = 8ull << 20;
};

struct StoreSettings {
    StoreKind kind = StoreKind::S3;
    Endpoint endpoint;
    Addressing addressing = Addressing::Path;
    std::string region;
    Credentials credentials;
    // Where the credentials came from, for messages: "AWS_ACCESS_KEY_ID",
    // "profile \"dev\" in /home/u/.aws/credentials". Never a value.
    std::string credentialSource;
    TransferOptions transfer;
    // "s3" or "gs": the URL scheme, for messages.
    std::string_view scheme() const { return kind == StoreKind::Gcs ? "gs" : "s3"; }
};

// Settings given on a command line; each wins over the environment.
struct StoreOverrides {
    std::optional<std::string> endpointUrl;
    std::optional<std::string> profile;
    std::optional<Addressing> addressing;
    bool allowHttp = false;
};

// Where resolution reads variables from: the process environment by default,
// a map in tests (HOME included: the ~/.aws files are found through it).
using EnvLookup = std::function<std::optional<std::string>(std::string_view name)>;
EnvLookup processEnvironment();

// Fails with InvalidArgument for a malformed setting, FailedPrecondition
// for plain http to a remote host, and Unauthenticated-style
// PermissionDenied when no credentials are found ("no credentials for
// s3://...: set AWS_ACCESS_KEY_ID ...").
Result<StoreSettings> resolveStoreSettings(StoreKind kind, const EnvLookup& env, const StoreOverrides& overrides = {});

// "path" | "virtual" (also "auto": nullopt, the default rule).
Result<std::optional<Addressing>> parseAddressing(std::string_view text);
// The in-flight default for this machine: twice the cores, clamped to 4..8.
int defaultMaxInFlight();

}  // namespace ckpt::objstore
