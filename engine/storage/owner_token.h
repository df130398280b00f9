#pragma once
// Who wrote a temporary name: every temporary the engine makes (the
// storage layer's own for conditional writes and writeObject, and the
// pipeline's, pipeline/temp_files.h) carries its writer's owner token,
// "<pid>-<start>-<boot>": the process id, the process's start time in
// clock ticks since boot (/proc/<pid>/stat), and the first 8 hex digits of
// the kernel's boot id, so the garbage collector removes only what dead
// writers left (docs/reliability.md, "Temporary files and garbage
// collection"). Thread-safe.
//   storage::ownedTempName("/runs/a/checkpoint", ".tmp-")  -> "/runs/a/checkpoint.tmp-4242-981723-3f2a9c1e-0"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ckpt::storage {

// The marker of a whole file written under a temporary name and renamed
// into place (writeObject, a conditional create, an export's output).
inline constexpr std::string_view kOwnedTempMarker = ".tmp-";

// This process (a forked child is another writer, with its own token).
struct ProcessIdentity {
    int64_t pid = 0;
    uint64_t startTicks = 0;
    std::string token;  // "<pid>-<start>-<boot>"
};
ProcessIdentity thisProcess();

// "<name><marker><token>-<n>", n counting per process: unique, and
// telling whose it is.
std::string ownedTempName(std::string_view name, std::string_view marker);

// What /proc/<pid>/stat says of a process; nullopt when it cannot be read
// (no such process, or hidden).
struct ProcessStat {
    char state = '?';         // 'Z' a zombie, 'X' dead
    uint64_t startTicks = 0;  // the start time in clock ticks after boot
};
std::optional<ProcessStat> processStat(int64_t pid);

// The first 8 hex digits of this boot's id ("00000000" when unknown).
const std::string& bootPrefix();

}  // namespace ckpt::storage
