#pragma once
// The libraries the engine runs with and their versions, for an About box or
// a bug report. Each is what the library reports at run time where it can
// (SQLite, libpng, libzip, the CUDA runtime and driver); protobuf and LevelDB
// only say which headers they were built against.

#include <string>
#include <vector>

namespace ckpt {

struct LibraryVersion {
    std::string name;     // "SQLite", "CUDA runtime", ...
    std::string version;  // "3.40.1"; for CUDA also why there is none
};

std::vector<LibraryVersion> libraryVersions();

}  // namespace ckpt
