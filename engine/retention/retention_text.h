#pragma once
// Durations and sizes written back the way a person writes them ("7d",
// "50GiB"), for serialised policies and the planner's labels. Both parse
// back exactly with parseDuration / parseByteSize (ckpt/retention.h).

#include <cstdint>
#include <string>

namespace ckpt::schedule {

std::string durationText(double seconds);  // "90s", "12h", "7d", "1.5s"
std::string sizeText(uint64_t bytes);      // "50GiB", "1000B"

}  // namespace ckpt::schedule
