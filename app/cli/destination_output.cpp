#include "destination_output.h"

#include <iostream>

#include "json_output.h"

namespace ckpt::cli {

CLI::Option* addOverwriteFlag(CLI::App& cmd, bool& overwrite) {
    return cmd.add_flag("--overwrite", overwrite,
                        "Replace a checkpoint or file already at the destination (written beside it and swapped in once "
                        "verified; never a source)");
}

std::string destinationAdvice(const DestinationCheck& check) {
    switch (check.problem) {
    case DestinationProblem::Exists: return "--overwrite replaces it (the new one is swapped in only once it verifies)";
    case DestinationProblem::IsSource:
    case DestinationProblem::InsideSource:
    case DestinationProblem::IsOpen:
        return "write the result elsewhere, then put it in place with `ckpt reshard RESULT " + printablePath(check.conflict) +
               " --overwrite`";
    default: return {};
    }
}

nlohmann::json destinationJson(const DestinationCheck& check) {
    nlohmann::json j = {{"path", check.path}, {"problem", std::string(destinationProblemName(check.problem))}};
    if (!check.ok()) j["message"] = check.message;
    if (check.existing) {
        const ExistingDestination& e = *check.existing;
        j["existing"] = {{"checkpoint", e.checkpoint},
                         {"step", e.step ? nlohmann::json(*e.step) : nlohmann::json(nullptr)},
                         {"bytes", e.bytes},
                         {"tensors", e.tensors},
                         {"shards", e.shards}};
        if (!e.error.empty()) j["existing"]["error"] = e.error;
    } else {
        j["existing"] = nullptr;
    }
    return j;
}

int reportDestination(const DestinationCheck& check, bool json) {
    const Status status = check.status();
    std::cerr << "ckpt: " << displayableString(status.toString()) << "\n";
    if (const std::string advice = destinationAdvice(check); !advice.empty()) std::cerr << "ckpt: " << advice << "\n";
    if (json) {
        nlohmann::json error = {{"code", std::string(statusCodeName(status.code()))}, {"message", status.message()}};
        error["destination"] = destinationJson(check);
        printJson({{"ok", false}, {"error", error}});
    }
    return status.code() == StatusCode::InvalidArgument ? kExitUsage : kExitCheckpointProblem;
}

std::optional<DestinationCheck> allowDestination(const DestinationRequest& request, bool json, CommandContext& ctx) {
    DestinationCheck check = checkDestination(request);
    if (check.ok()) return check;
    ctx.exitCode = reportDestination(check, json);
    return std::nullopt;
}

void recordWritten(const std::string& prefix, const VerifyReport* verified, const std::string& catalogFlag) {
    const std::unique_ptr<Catalog> catalog = sideCatalog(catalogFlag);
    if (!catalog) return;
    auto recorded = catalog->recordWrite(prefix, verified);
    if (!recorded.ok())
        std::cerr << "ckpt: warning: " << displayableString(prefix)
                  << " was written but not recorded in the catalog: " << displayableString(recorded.status().toString()) << "\n";
}

}  // namespace ckpt::cli
