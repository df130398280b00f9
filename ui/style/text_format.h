#pragma once
// The one home of how the explorer writes sizes and moments, so the sidebar,
// the tree, the inspector, the Retention and Schedules tabs and the status
// bar agree with each other and with the command line.

#include <QDateTime>
#include <QString>

#include <cstdint>

namespace ckpt::ui {

// Binary units with one decimal, exactly as `ckpt` prints them
// (app/cli/output.cpp): "512 B", "8.4 KiB", "1.5 GiB".
QString formatBytes(int64_t bytes);
// Local time with the year, as `ckpt list` prints it but without seconds:
// "2024-11-26 10:06". An invalid moment gives an empty text.
QString formatDateTime(const QDateTime& moment);

}  // namespace ckpt::ui
