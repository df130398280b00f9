#include "output.h"

#include <cstdio>
#include <ctime>
#include <filesystem>
#include <iostream>

#include "ckpt/byte_size.h"
#include "ckpt/checkpoint.h"
#include "ckpt/object_store.h"
#include "json_output.h"

namespace ckpt::cli {

int reportError(const Status& status, bool json) {
    std::cerr << "ckpt: " << status.toString() << "\n";
    if (json) {
        printJson(
            {{"ok", false}, {"error", {{"code", std::string(statusCodeName(status.code()))}, {"message", status.message()}}}});
    }
    return status.code() == StatusCode::InvalidArgument ? kExitUsage : kExitCheckpointProblem;
}

Result<std::unique_ptr<BundleReader>> openBundleAt(const std::string& path) {
    CKPT_ASSIGN_OR_RETURN(auto resolved, resolveCheckpoint(path));
    return BundleReader::open(resolved.prefix);
}

Result<std::unique_ptr<BundleReader>> openBundleAt(const std::string& path, std::string_view key) {
    CKPT_ASSIGN_OR_RETURN(auto resolved, resolveCheckpoint(path));
    return BundleReader::openKeys(resolved.prefix, {&key, 1});
}

Result<Tensor> readTensorAt(const std::string& path, const std::string& key) {
    CKPT_ASSIGN_OR_RETURN(auto reader, openBundleAt(path, key));
    return reader->read(key);
}

void printJson(const nlohmann::json& j) { std::cout << j.dump(1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n"; }

Result<std::string> catalogPathFor(const std::string& flag) {
    if (!flag.empty()) return flag;
    return Catalog::defaultPath();
}

std::unique_ptr<Catalog> sideCatalog(const std::string& flag) {
    auto path = catalogPathFor(flag);
    std::error_code ec;
    if (!path.ok() || (flag.empty() && !std::filesystem::exists(*path, ec))) return nullptr;
    auto catalog = Catalog::open(*path);
    if (!catalog.ok()) {
        std::cerr << "ckpt: warning: not using the catalog: " << displayableString(catalog.status().toString()) << "\n";
        return nullptr;
    }
    return std::move(*catalog);
}

std::string localTimeText(double unixSeconds) {
    const auto t = static_cast<std::time_t>(unixSeconds);
    std::tm tm{};
    localtime_r(&t, &tm);
    char text[32];
    std::strftime(text, sizeof text, "%Y-%m-%d %H:%M:%S", &tm);
    return text;
}

std::string byteText(uint64_t bytes) { return byteSizeText(bytes); }

void printObjectStoreStats() {
    const ObjectStoreStats s = objectStoreStats();
    std::cerr << "ckpt: object store: " << s.requests << " requests, " << s.retries << " retries, " << byteText(s.bytesReceived)
              << " received, " << byteText(s.bytesSent) << " sent";
    if (s.requests > 0) std::cerr << ", at most " << s.maxAttempts << " attempts for one request";
    std::cerr << "\n";
}

}  // namespace ckpt::cli
