#include "jobs/history_jobs.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

namespace ckpt::ui {
namespace {

HistoryResult runHistory(const QString& directory, HistoryOptions options, const std::shared_ptr<JobControl>& job) {
    HistoryResult out;
    out.directory = directory;
    options.cancel = &job->token();
    options.progress = JobControl::sinkFor(job);
    auto history = computeHistory({directory.toStdString()}, options);
    if (!history) {
        out.cancelled = history.status().code() == StatusCode::Cancelled;
        if (!out.cancelled) out.error = QString::fromStdString(history.status().toString());
        return out;
    }
    out.history = std::make_shared<const CheckpointHistory>(std::move(*history));
    return out;
}

// log10 of each relative change; a zero change (the value did not move)
// sits a decade below the smallest change seen, so it reads as "least".
HeatmapResult drawStrip(const CheckpointHistory& h) {
    const size_t rows = h.variables.size(), cols = h.checkpoints.size();
    double smallest = std::numeric_limits<double>::infinity();
    for (const VariableHistory& v : h.variables)
        for (const HistoryPoint& p : v.points)
            if (p.present && std::isfinite(p.relChange) && p.relChange > 0) smallest = std::min(smallest, p.relChange);
    const double floor = std::isfinite(smallest) ? std::log10(smallest) - 1 : -12;
    auto strip = std::make_shared<Tensor>();
    strip->dtype = DataType::Double;
    strip->shape.dims = {static_cast<int64_t>(rows), static_cast<int64_t>(cols)};
    strip->bytes.resize(rows * cols * sizeof(double));
    for (size_t r = 0; r < rows; ++r)
        for (size_t c = 0; c < cols; ++c) {
            const auto& points = h.variables[r].points;
            double v = std::numeric_limits<double>::quiet_NaN();
            if (c < points.size() && points[c].present && std::isfinite(points[c].relChange))
                v = points[c].relChange > 0 ? std::log10(points[c].relChange) : floor;
            std::memcpy(strip->bytes.data() + (r * cols + c) * sizeof(double), &v, sizeof v);
        }
    HeatmapRequest request;
    request.colormap = "viridis";
    request.maxWidth = static_cast<int>(std::max<size_t>(cols, 1));
    request.maxHeight = static_cast<int>(std::max<size_t>(rows, 1));
    return renderTensorHeatmap(strip, request);
}

}  // namespace

std::string globLiteral(const std::string& text) {
    std::string out;
    out.reserve(text.size());
    for (char c : text) {
        // A bracket holding one character matches it literally. A
        // backslash means something different with and without
        // FNM_NOESCAPE, even in brackets: '?' is as close as both agree on.
        if (c == '*' || c == '?' || c == '[') {
            out += '[';
            out += c;
            out += ']';
        } else if (c == '\\') {
            out += '?';
        } else {
            out += c;
        }
    }
    return out;
}

HistoryResult computeVariableHistory(const QString& directory, const QString& key, const std::shared_ptr<JobControl>& job) {
    HistoryOptions options;
    options.includes = {globLiteral(key.toStdString())};
    return runHistory(directory, options, job);
}

HistoryResult computeRunHistory(const QString& directory, const std::shared_ptr<JobControl>& job) {
    HistoryOptions options;
    options.weightsOnly = true;
    HistoryResult out = runHistory(directory, options, job);
    if (out.history && !out.history->variables.empty() && !out.history->checkpoints.empty()) out.strip = drawStrip(*out.history);
    return out;
}

}  // namespace ckpt::ui
