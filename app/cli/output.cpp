#include "output.h"

#include <cstdio>
#include <iostream>

namespace ckpt::cli {

int reportError(const Status& status, bool json) {
    std::cerr << "ckpt: " << status.toString() << "\n";
    if (json) {
        printJson({{"ok", false},
                   {"error", {{"code", std::string(statusCodeName(status.code()))}, {"message", status.message()}}}});
    }
    return status.code() == StatusCode::InvalidArgument ? kExitUsage : kExitCheckpointProblem;
}

void printJson(const nlohmann::json& j) {
    std::cout << j.dump(1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
}

} // namespace ckpt::cli
