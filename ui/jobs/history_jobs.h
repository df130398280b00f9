#pragma once
// The History page's engine calls (ckpt/checkpoint_history.h), as plain
// functions for QtConcurrent::run on jobPool(): one variable across every
// checkpoint of its directory, or every weight of the run with a
// "what moved" strip drawn by the engine's heatmap. Errors verbatim.

#include <QString>

#include <memory>
#include <optional>

#include "ckpt/checkpoint_history.h"
#include "jobs/job_control.h"
#include "jobs/preview_jobs.h"

namespace ckpt::ui {

struct HistoryResult {
    QString directory;
    std::shared_ptr<const CheckpointHistory> history;  // null on failure or cancel
    QString error;
    bool cancelled = false;
    // Run histories only: variables (rows, in history order) x checkpoints
    // (columns) of log10(relative change), unpooled; the first checkpoint
    // and absent points have no value (transparent).
    std::optional<HeatmapResult> strip;
};

// computeHistory on 'directory' with includes = the exact key (glob
// characters escaped), so only that variable is read.
HistoryResult computeVariableHistory(const QString& directory, const QString& key, const std::shared_ptr<JobControl>& job);
// Every weight of the run (weightsOnly: optimizer state moves every step
// and would drown the layers), plus the strip.
HistoryResult computeRunHistory(const QString& directory, const std::shared_ptr<JobControl>& job);

// 'text' as an fnmatch pattern that matches itself (and, where it holds a
// backslash, that position matches any one character).
std::string globLiteral(const std::string& text);

}  // namespace ckpt::ui
