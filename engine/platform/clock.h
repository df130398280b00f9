#pragma once
// The wall clock as the engine records it (file times, runs, scans):
// seconds since the Unix epoch, as a double.

#include <chrono>

namespace ckpt::platform {

inline double unixSeconds() { return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count(); }

}  // namespace ckpt::platform
