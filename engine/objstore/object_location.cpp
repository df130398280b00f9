#include "objstore/object_location.h"

#include "objstore/request_target.h"

namespace ckpt::objstore {

namespace {
constexpr size_t kMaxKeyBytes = 1024;
}  // namespace

std::string_view objectScheme(std::string_view location) {
    if (location.rfind("s3://", 0) == 0) return "s3";
    if (location.rfind("gs://", 0) == 0) return "gs";
    return {};
}

Result<ObjectLocation> parseObjectLocation(std::string_view location) {
    ObjectLocation out;
    const std::string_view scheme = objectScheme(location);
    if (scheme.empty()) return invalidArgument(std::string(location) + ": not an s3:// or gs:// location");
    out.kind = scheme == "gs" ? StoreKind::Gcs : StoreKind::S3;
    const std::string_view rest = location.substr(5);
    const size_t slash = rest.find('/');
    out.bucket = std::string(rest.substr(0, slash));
    if (out.bucket.empty())
        return invalidArgument(std::string(location) + ": no bucket name after " + std::string(scheme) + "://");
    if (!isValidBucketName(out.bucket))
        return invalidArgument(std::string(location) + ": \"" + out.bucket +
                               "\" is not a valid bucket name (3 to 222 of a-z 0-9 . _ -)");
    if (slash != std::string_view::npos) out.key = std::string(rest.substr(slash + 1));
    if (out.key.size() > kMaxKeyBytes)
        return invalidArgument(std::string(location.substr(0, 80)) + "...: the key is over 1024 bytes");
    for (char c : out.key)
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
            return invalidArgument(std::string(location) + ": the key has a control character");
    return out;
}

std::string directoryPrefix(std::string_view key) {
    std::string p(key);
    while (!p.empty() && p.front() == '/') p.erase(0, 1);
    if (!p.empty() && p.back() != '/') p.push_back('/');
    return p;
}

}  // namespace ckpt::objstore
