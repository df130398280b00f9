// A save's claim on its prefix where there is no rename: see save_claim.h.

#include "pipeline/save_claim.h"

#include <unistd.h>

#include <nlohmann/json.hpp>

#include <cmath>
#include <map>
#include <optional>

#include "ckpt/bundle_naming.h"
#include "pipeline/temp_files.h"
#include "platform/clock.h"
#include "storage/dispatch.h"

namespace ckpt::pipeline {
namespace {

std::string hostName() {
    char name[256] = {};
    if (::gethostname(name, sizeof name - 1) != 0) return "?";
    return name;
}

std::string claimBody() {
    return nlohmann::json{{"owner", ownerToken()}, {"host", hostName()}, {"claimed", platform::unixSeconds()}}.dump() + "\n";
}

// The claims this thread holds, with how often it took each (as
// storage/directory_lock.cpp keeps its locks): another thread of this
// process finds the claim on the store, names this process's running
// writer and is refused.
std::map<std::string, int>& claimsOfThisThread() {
    static thread_local std::map<std::string, int> held;
    return held;
}

}  // namespace

ClaimHolder judgeClaim(std::string_view bytes, const std::string& location) {
    ClaimHolder h;
    const nlohmann::json j = nlohmann::json::parse(bytes, nullptr, /*allow_exceptions=*/false);
    if (!j.is_object()) {
        h.stale = true;
        h.description = "an unreadable claim";
        h.why = "it is not a claim this tool wrote";
        return h;
    }
    std::string owner, host;
    double claimed = 0;
    if (const auto it = j.find("owner"); it != j.end() && it->is_string()) owner = it->get<std::string>();
    if (const auto it = j.find("host"); it != j.end() && it->is_string()) host = it->get<std::string>();
    if (const auto it = j.find("claimed"); it != j.end() && it->is_number() && std::isfinite(it->get<double>()))
        claimed = it->get<double>();
    const auto writer = parseOwnerToken(owner, TempKind::SaveTemp);
    h.description = host.empty() ? std::string("another writer") : "a writer on " + host;
    if (writer && writer->pid) h.description += " (pid " + std::to_string(*writer->pid) + ")";
    const double age = platform::unixSeconds() - claimed;
    if (claimed > 0) h.description += ", claimed " + std::to_string(static_cast<int64_t>(age)) + " s ago";
    if (writer && ownerLiveness(*writer, location) == Liveness::Gone) {
        h.stale = true;
        h.why = "its writer (pid " + std::to_string(*writer->pid) + " on this machine) has ended";
    } else if (claimed > 0 && age > kStaleClaimSeconds) {
        h.stale = true;
        h.why = "it is older than " + std::to_string(static_cast<int64_t>(kStaleClaimSeconds)) + " s";
    }
    return h;
}

std::unique_ptr<SaveClaim> SaveClaim::held(const std::string& location) {
    ++claimsOfThisThread()[location];
    return std::unique_ptr<SaveClaim>(new SaveClaim(location));
}

std::string saveClaimLocation(std::string_view prefix) { return std::string(prefix) + std::string(kSaveClaimSuffix); }

Result<std::unique_ptr<SaveClaim>> SaveClaim::acquire(const std::string& prefix) {
    const std::string location = saveClaimLocation(prefix);
    if (claimsOfThisThread().count(location)) return held(location);
    const std::string body = claimBody();
    auto created = storage::writeObject(location, body, storage::WriteCondition::ifAbsent());
    if (created.ok()) return held(location);
    if (!storage::isWriteConflict(created.status())) return created.status();
    auto current = storage::readObject(location, kMaxClaimBytes);
    if (!current.ok()) {
        // Released between the two requests: one more try, as a first taker.
        if (current.status().code() != StatusCode::NotFound) return current.status();
        CKPT_RETURN_IF_ERROR(storage::writeObject(location, body, storage::WriteCondition::ifAbsent()).status());
        return held(location);
    }
    const ClaimHolder holder = judgeClaim(current->bytes, location);
    if (holder.stale) {
        // Of several takers of a stale claim, exactly one matches its generation.
        auto taken = storage::writeObject(location, body, storage::WriteCondition::ifMatch(current->generation));
        if (taken.ok()) return held(location);
    }
    return Status(StatusCode::AlreadyExists, prefix + " is being saved by " + holder.description + " (" + location +
                                                 "); two saves of one checkpoint cannot both write it");
}

Result<std::unique_ptr<SaveClaim>> SaveClaim::acquireForNew(const std::string& prefix) {
    CKPT_ASSIGN_OR_RETURN(auto claim, acquire(prefix));
    const std::string index = indexFileName(prefix);
    if (storage::exists(index))
        return Status(StatusCode::AlreadyExists, "a checkpoint exists at " + prefix + " (" + index +
                                                     "); its storage cannot rename, so a save never replaces one: "
                                                     "write to a new prefix, or delete it first");
    return claim;
}

SaveClaim::~SaveClaim() { (void)release(); }

Status SaveClaim::release() {
    if (m_released) return okStatus();
    m_released = true;
    auto& mine = claimsOfThisThread();
    if (const auto it = mine.find(m_location); it != mine.end() && --it->second > 0)
        return okStatus();  // an outer holder remains
    mine.erase(m_location);
    return storage::remove(m_location);
}

}  // namespace ckpt::pipeline
