#pragma once
// A byte count as people read it, the way every message and output of the
// engine and the CLI writes it: "512 B", "1.2 KiB", "3.4 GiB" (binary
// units, one decimal).

#include <cstdint>
#include <string>

namespace ckpt {

std::string byteSizeText(uint64_t bytes);

}  // namespace ckpt
