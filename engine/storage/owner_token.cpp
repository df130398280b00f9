// Owner tokens of temporary names: see owner_token.h. The /proc files read
// here are names of processes, not checkpoint bytes.

#include "storage/owner_token.h"

#include <unistd.h>

#include <atomic>
#include <cctype>
#include <fstream>
#include <mutex>
#include <sstream>

namespace ckpt::storage {

std::optional<ProcessStat> processStat(int64_t pid) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
    std::string text;
    if (!in || !std::getline(in, text)) return std::nullopt;
    // The command name (field 2) may hold spaces and parentheses, so the
    // fields are counted from the last ')'.
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

ProcessIdentity thisProcess() {
    static std::mutex mutex;
    static ProcessIdentity cached;  // Guarded by mutex.
    const int64_t pid = ::getpid();
    std::lock_guard lock(mutex);
    if (cached.pid != pid) {
        cached.pid = pid;
        const auto stat = processStat(pid);
        cached.startTicks = stat ? stat->startTicks : 0;
        cached.token = std::to_string(pid) + "-" + std::to_string(cached.startTicks) + "-" + bootPrefix();
    }
    return cached;
}

std::string ownedTempName(std::string_view name, std::string_view marker) {
    static std::atomic<uint64_t> counter{0};
    return std::string(name) + std::string(marker) + thisProcess().token + "-" + std::to_string(counter++);
}

}  // namespace ckpt::storage
