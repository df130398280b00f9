#include "preview/device_choice.h"

#include <algorithm>
#include <cstdio>

namespace ckpt::preview {
namespace {

std::string seconds(double s) {
    char buf[32];
    std::snprintf(buf, sizeof buf, s < 0.1 ? "%.3f s" : "%.2f s", s);
    return buf;
}

}  // namespace

DeviceEstimate estimateDevices(int64_t bytes, size_t cpuThreads, bool cudaStarted, const DeviceModel& model) {
    const double b = static_cast<double>(std::max<int64_t>(bytes, 0));
    const double threads = static_cast<double>(std::max<size_t>(cpuThreads, 1));
    const double start = cudaStarted ? 0.0 : model.cudaStartSeconds;
    DeviceEstimate e;
    e.cpuSeconds = b / (model.cpuBytesPerSecondPerThread * threads);
    e.cudaSeconds = start + b / model.cudaBytesPerSecond;
    e.cuda = e.cudaSeconds < e.cpuSeconds;
    e.summary = "cpu ~" + seconds(e.cpuSeconds) + " on " + std::to_string(static_cast<size_t>(threads)) +
                (threads == 1 ? " thread" : " threads") + ", cuda ~" + seconds(e.cudaSeconds) +
                (cudaStarted ? " (device started)" : " (" + seconds(start) + " to start)");
    return e;
}

}  // namespace ckpt::preview
