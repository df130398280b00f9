#include "terminal_progress.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <mutex>

namespace ckpt::cli {

ProgressSink terminalProgress(std::string label) {
    if (!::isatty(STDERR_FILENO)) return {};
    struct State {
        std::mutex mutex;
        std::string last;  // Guarded by mutex.
    };
    auto state = std::make_shared<State>();
    return [state, label = std::move(label)](int64_t done, int64_t total, std::string_view phase) {
        std::string line = label.empty() ? std::string(phase) : label;
        if (total > 0) {
            char pct[8];
            std::snprintf(pct, sizeof pct, " %3d%%", static_cast<int>(100 * std::clamp<int64_t>(done, 0, total) / total));
            line += pct;
        }
        std::lock_guard lock(state->mutex);
        if (line == state->last) return;
        state->last = line;
        std::fprintf(stderr, "\r\033[K%s", line.c_str());
        std::fflush(stderr);
    };
}

void clearTerminalProgress(const ProgressSink& sink) {
    if (!sink) return;
    std::fprintf(stderr, "\r\033[K");
    std::fflush(stderr);
}

}  // namespace ckpt::cli
