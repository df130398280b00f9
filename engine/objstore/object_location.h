#pragma once
// "s3://bucket/key" and "gs://bucket/key" locations: which store, bucket
// and key. The key is everything after the bucket's '/', taken literally
// (no %-decoding, no "." or ".." squashing: those are key characters).

#include <string>
#include <string_view>

#include "ckpt/status.h"
#include "objstore/store_settings.h"

namespace ckpt::objstore {

struct ObjectLocation {
    StoreKind kind = StoreKind::S3;
    std::string bucket;
    std::string key;  // may be empty (the bucket) or end in '/' (a "directory")
};

// InvalidArgument naming the location for another scheme, a missing or
// invalid bucket name, or a key over 1024 bytes (S3's limit).
Result<ObjectLocation> parseObjectLocation(std::string_view location);
// "s3" or "gs"; nullopt-like empty for anything else.
std::string_view objectScheme(std::string_view location);
// The key as a directory prefix: "" for the bucket, else ending in '/'.
std::string directoryPrefix(std::string_view key);

}  // namespace ckpt::objstore
