#include "output.h"

#include <cstdio>
#include <iostream>

#include "ckpt/checkpoint.h"

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

Result<Tensor> readTensorAt(const std::string& path, const std::string& key) {
    CKPT_ASSIGN_OR_RETURN(auto reader, openBundleAt(path));
    return reader->read(key);
}

void printJson(const nlohmann::json& j) { std::cout << j.dump(1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n"; }

}  // namespace ckpt::cli
