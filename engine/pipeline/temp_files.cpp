// Temporary names and their owners: see temp_files.h.

#include "pipeline/temp_files.h"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cctype>
#include <cerrno>
#include <fstream>
#include <mutex>
#include <set>
#include <sstream>

namespace ckpt::pipeline {
namespace {

struct ProcessStat {
    char state = '?';         // field 3: 'Z' a zombie, 'X' dead
    uint64_t startTicks = 0;  // field 22: the start time in clock ticks after boot
};

// /proc/<pid>/stat. The command name (field 2) may hold spaces and
// parentheses, so the fields are counted from the last ')'.
std::optional<ProcessStat> processStat(int64_t pid) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
    std::string text;
    if (!in || !std::getline(in, text)) return std::nullopt;
    const size_t close = text.rfind(')');
    if (close == std::string::npos) return std::nullopt;
    std::istringstream fields(text.substr(close + 1));
    std::string field;
    ProcessStat stat;
    for (int i = 3; i <= 22; ++i) {
        if (!(fields >> field)) return std::nullopt;
        if (i == 3) stat.state = field.empty() ? '?' : field.front();
    }
    for (char c : field) {
        if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
        stat.startTicks = stat.startTicks * 10 + static_cast<uint64_t>(c - '0');
    }
    return stat;
}

std::optional<uint64_t> processStartTicks(int64_t pid) {
    const auto stat = processStat(pid);
    return stat ? std::optional<uint64_t>(stat->startTicks) : std::nullopt;
}

const std::string& bootPrefix() {
    static const std::string boot = [] {
        std::ifstream in("/proc/sys/kernel/random/boot_id");
        std::string id, hex;
        if (in && std::getline(in, id))
            for (char c : id)
                if (std::isxdigit(static_cast<unsigned char>(c)) && hex.size() < 8)
                    hex += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        while (hex.size() < 8) hex += '0';
        return hex;
    }();
    return boot;
}

// This process's pid, start time and token. A forked child is another
// writer: it computes its own (a token cached before fork() would make the
// parent's liveness stand for the child's).
struct Self {
    int64_t pid = 0;
    uint64_t startTicks = 0;
    std::string token;
};

Self self() {
    static std::mutex mutex;
    static Self cached;  // Guarded by mutex.
    const int64_t pid = ::getpid();
    std::lock_guard lock(mutex);
    if (cached.pid != pid) {
        cached.pid = pid;
        cached.startTicks = processStartTicks(pid).value_or(0);
        cached.token = std::to_string(pid) + "-" + std::to_string(cached.startTicks) + "-" + bootPrefix();
    }
    return cached;
}

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

// A bundle file's prefix: "ckpt-3.index" -> "ckpt-3", "ckpt-3.data-00000-of-00001" -> "ckpt-3".
std::string prefixOfBundleFile(std::string_view file) {
    if (file.ends_with(".index")) return std::string(file.substr(0, file.size() - 6));
    if (const size_t data = file.rfind(".data-"); data != std::string_view::npos) return std::string(file.substr(0, data));
    return std::string(file);
}

std::mutex& stagingMutex() {
    static std::mutex m;
    return m;
}
std::set<std::string>& stagings() {
    static std::set<std::string> s;  // Guarded by stagingMutex().
    return s;
}

}  // namespace

std::string ownerToken() { return self().token; }

std::string tempName(std::string_view name, std::string_view marker) {
    static std::atomic<uint64_t> counter{0};
    return std::string(name) + std::string(marker) + ownerToken() + "-" + std::to_string(counter++);
}

std::optional<TempName> parseTempName(std::string_view entry) {
    if (entry.empty() || entry == "." || entry == "..") return std::nullopt;
    if (entry.front() == '.') {
        const std::string_view hidden = entry.substr(1);
        if (auto n = withToken(hidden, kStagingMarker, TempKind::Staging)) return n;
        if (auto n = withToken(hidden, kAtomicMarker, TempKind::AtomicFile)) return n;
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
    if (!name.pid || !name.startTicks || name.boot != bootPrefix()) return Liveness::Unknown;
    const Self me = self();
    if (*name.pid == me.pid && *name.startTicks == me.startTicks) {
        if (name.kind == TempKind::Staging) return isRegisteredStaging(path) ? Liveness::Running : Liveness::Gone;
        return Liveness::Running;
    }
    if (*name.pid <= 0 || *name.pid > INT32_MAX) return Liveness::Gone;
    if (::kill(static_cast<pid_t>(*name.pid), 0) != 0 && errno == ESRCH) return Liveness::Gone;
    // It exists: the same process only if it started at the same tick, and
    // a zombie (killed, not yet reaped) writes nothing more. A stat we
    // cannot read (hidepid) counts as running: never guess Gone.
    const auto stat = processStat(*name.pid);
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
