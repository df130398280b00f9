// Temporary names and their owners: see temp_files.h.

#include "pipeline/temp_files.h"

#include <signal.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <mutex>
#include <set>

#include "ckpt/bundle_naming.h"
#include "storage/owner_token.h"

namespace ckpt::pipeline {
namespace {

bool allDigits(std::string_view s) {
    if (s.empty()) return false;
    for (char c : s)
        if (!std::isdigit(static_cast<unsigned char>(c))) return false;
    return true;
}

bool allHex(std::string_view s) {
    if (s.empty()) return false;
    for (char c : s)
        if (!std::isxdigit(static_cast<unsigned char>(c))) return false;
    return true;
}

std::optional<uint64_t> number(std::string_view s) {
    if (!allDigits(s) || s.size() > 19) return std::nullopt;
    uint64_t v = 0;
    for (char c : s) v = v * 10 + static_cast<uint64_t>(c - '0');
    return v;
}

// "<pid>-<start>-<boot>-<n>" into 'out'; false when 'token' is not one.
bool parseToken(std::string_view token, TempName& out) {
    std::string_view parts[4];
    for (int i = 0; i < 3; ++i) {
        const size_t dash = token.find('-');
        if (dash == std::string_view::npos) return false;
        parts[i] = token.substr(0, dash);
        token.remove_prefix(dash + 1);
    }
    parts[3] = token;
    const auto pid = number(parts[0]);
    const auto start = number(parts[1]);
    if (!pid || !start || parts[2].size() != 8 || !allHex(parts[2]) || !number(parts[3])) return false;
    out.pid = static_cast<int64_t>(*pid);
    out.startTicks = *start;
    out.boot = std::string(parts[2]);
    return true;
}

// "<target><marker><token>" with a valid token.
std::optional<TempName> withToken(std::string_view entry, std::string_view marker, TempKind kind) {
    const size_t at = entry.rfind(marker);
    if (at == std::string_view::npos || at == 0) return std::nullopt;
    TempName name;
    name.kind = kind;
    if (!parseToken(entry.substr(at + marker.size()), name)) return std::nullopt;
    name.target = std::string(entry.substr(0, at));
    return name;
}

// A bundle file's prefix: "ckpt-3.index" -> "ckpt-3".
std::string prefixOfBundleFile(std::string_view file) { return bundlePrefixOf(file); }

std::mutex& stagingMutex() {
    static std::mutex m;
    return m;
}
std::set<std::string>& stagings() {
    static std::set<std::string> s;  // Guarded by stagingMutex().
    return s;
}

}  // namespace

std::string ownerToken() { return storage::thisProcess().token; }

std::string tempName(std::string_view name, std::string_view marker) { return storage::ownedTempName(name, marker); }

std::optional<TempName> parseOwnerToken(std::string_view token, TempKind kind) {
    TempName name;
    name.kind = kind;
    if (!parseToken(std::string(token) + "-0", name)) return std::nullopt;
    return name;
}

std::optional<TempName> parseTempName(std::string_view entry) {
    if (entry.empty() || entry == "." || entry == "..") return std::nullopt;
    if (entry.front() == '.') {
        const std::string_view hidden = entry.substr(1);
        if (auto n = withToken(hidden, kStagingMarker, TempKind::Staging)) return n;
        if (auto n = withToken(hidden, kAtomicMarker, TempKind::AtomicFile)) return n;
        if (const size_t at = hidden.rfind(kPartsMarker);
            at != std::string_view::npos && at > 0 && at + kPartsMarker.size() < hidden.size())
            return TempName{TempKind::PartsArea, std::string(hidden.substr(0, at)), std::nullopt, std::nullopt, {}};
        // An older export's ".<name>.tmp-<pid>-<n>": a pid without a start time.
        const size_t at = hidden.rfind(".tmp-");
        if (at != std::string_view::npos && at > 0) {
            const std::string_view rest = hidden.substr(at + 5);
            const size_t dash = rest.find('-');
            if (dash != std::string_view::npos && allDigits(rest.substr(0, dash)) && allDigits(rest.substr(dash + 1)))
                return TempName{TempKind::AtomicFile, std::string(hidden.substr(0, at)), std::nullopt, std::nullopt, {}};
        }
        return std::nullopt;
    }
    if (auto n = withToken(entry, kAtomicMarker, TempKind::AtomicFile)) return n;
    if (auto n = withToken(entry, kSaveTempMarker, TempKind::SaveTemp)) return n;
    if (auto n = withToken(entry, kIndexTempMarker, TempKind::IndexTemp)) {
        n->target = prefixOfBundleFile(n->target);
        return n;
    }
    // Names without an owner (docs/format.md, "Temporary names").
    if (entry.size() > 5 && entry.ends_with("_temp"))
        return TempName{TempKind::SaveTemp, std::string(entry.substr(0, entry.size() - 5)), std::nullopt, std::nullopt, {}};
    if (const size_t at = entry.rfind("_temp_"); at != std::string_view::npos && at > 0 && allHex(entry.substr(at + 6)))
        return TempName{TempKind::SaveTemp, std::string(entry.substr(0, at)), std::nullopt, std::nullopt, {}};
    if (const size_t at = entry.rfind(".tempstate"); at != std::string_view::npos && at > 0) {
        const std::string_view rest = entry.substr(at + 10);
        if (rest.empty() || allDigits(rest))
            return TempName{TempKind::IndexTemp, prefixOfBundleFile(entry.substr(0, at)), std::nullopt, std::nullopt, {}};
    }
    // An older writeFileAtomically's "<name>.tmp<16 hex>".
    if (const size_t at = entry.rfind(".tmp");
        at != std::string_view::npos && at > 0 && entry.size() - at == 20 && allHex(entry.substr(at + 4)))
        return TempName{TempKind::AtomicFile, std::string(entry.substr(0, at)), std::nullopt, std::nullopt, {}};
    return std::nullopt;
}

Liveness ownerLiveness(const TempName& name, const std::string& path) {
    if (!name.pid || !name.startTicks || name.boot != storage::bootPrefix()) return Liveness::Unknown;
    const storage::ProcessIdentity me = storage::thisProcess();
    if (*name.pid == me.pid && *name.startTicks == me.startTicks) {
        if (name.kind == TempKind::Staging) return isRegisteredStaging(path) ? Liveness::Running : Liveness::Gone;
        return Liveness::Running;
    }
    if (*name.pid <= 0 || *name.pid > INT32_MAX) return Liveness::Gone;
    if (::kill(static_cast<pid_t>(*name.pid), 0) != 0 && errno == ESRCH) return Liveness::Gone;
    // It exists: the same process only if it started at the same tick, and
    // a zombie (killed, not yet reaped) writes nothing more. A stat we
    // cannot read (hidepid) counts as running: never guess Gone.
    const auto stat = storage::processStat(*name.pid);
    if (!stat) return Liveness::Running;
    if (stat->startTicks != *name.startTicks || stat->state == 'Z' || stat->state == 'X') return Liveness::Gone;
    return Liveness::Running;
}

void registerStaging(const std::string& dir) {
    std::lock_guard lock(stagingMutex());
    stagings().insert(dir);
}

void unregisterStaging(const std::string& dir) {
    std::lock_guard lock(stagingMutex());
    stagings().erase(dir);
}

bool isRegisteredStaging(const std::string& dir) {
    std::lock_guard lock(stagingMutex());
    return stagings().count(dir) > 0;
}

}  // namespace ckpt::pipeline
