#pragma once
// The names of the engine's temporary files and directories, and who owns
// them (docs/reliability.md, "Temporary files and garbage collection").
// Every temporary name the engine makes carries its writer's owner token
// (storage/owner_token.h): "<pid>-<start>-<boot>". A temporary whose owner token names this boot and
// a process that is gone (or a reused pid, which starts at another time)
// belongs to an interrupted operation and may be removed; one whose owner
// still runs is never touched. Names without a token (TensorFlow's, or an
// older ckpt-explorer's) and tokens from another boot (a reboot, or another
// machine sharing the directory) are judged by age instead. Engine-internal.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "storage/owner_token.h"

namespace ckpt::pipeline {

// This process's token (a forked child has its own).
std::string ownerToken();

// A unique temporary name for 'name' in the same directory:
// "<name><marker><token>-<n>", n counting per process.
std::string tempName(std::string_view name, std::string_view marker);

// Markers of the engine's temporary names.
inline constexpr std::string_view kAtomicMarker = storage::kOwnedTempMarker;  // writeObject, export output
inline constexpr std::string_view kSaveTempMarker = "_temp-";                 // writeTensors' shard directory
inline constexpr std::string_view kStagingMarker = ".staging-";               // a checkpoint staged beside its destination
inline constexpr std::string_view kIndexTempMarker = ".tempstate-";           // mergeShards' index before its rename
inline constexpr std::string_view kPartsMarker = ".parts-";  // a save by N writers: ".<name>.parts-<save id>/" (no owner token)

enum class TempKind {
    AtomicFile,  // a whole file written then renamed (state file, metadata, export output)
    SaveTemp,    // a save's shard directory (ours "_temp-", TensorFlow's "_temp" and "_temp_<hex>")
    Staging,     // a staged checkpoint (a directory)
    IndexTemp,   // an index before its rename (ours ".tempstate-", TensorFlow's ".tempstate<digits>")
    PartsArea,   // the plan, partial indexes and markers of a save by N writers (a directory)
};

struct TempName {
    TempKind kind = TempKind::AtomicFile;
    std::string target;  // the name it becomes (or the prefix it belongs to): "checkpoint", "ckpt-3"
    // The owner token's parts; absent for names without one.
    std::optional<int64_t> pid;
    std::optional<uint64_t> startTicks;
    std::string boot;
};

// Whether a directory entry is one of the engine's (or TensorFlow's)
// temporary names, and whose. Hidden entries (".name.tmp-...") count.
std::optional<TempName> parseTempName(std::string_view entry);

// The owner of a token as ownerToken() spells it ("<pid>-<start>-<boot>"),
// as a TempName of 'kind' for ownerLiveness(); nullopt when it is not one.
std::optional<TempName> parseOwnerToken(std::string_view token, TempKind kind);

enum class Liveness {
    Running,  // its owner still runs: never touch it
    Gone,     // its owner ended: what it left is garbage
    Unknown,  // no owner recorded, or another boot: judged by age
};
// 'path' is the temporary's full path (for this process's staging directories).
Liveness ownerLiveness(const TempName& name, const std::string& path);

// This process's staged checkpoints in progress: ownerLiveness() is
// Running for this process's other temporaries, but a staging directory
// this process gave up on (a commit that failed half way) is Gone once
// unregistered, so the next write of that destination can finish it.
void registerStaging(const std::string& dir);
void unregisterStaging(const std::string& dir);
bool isRegisteredStaging(const std::string& dir);

// The next operation's share of garbage collection (ckpt/garbage_collection.h):
// what writers that are gone left for checkpoint or file 'name' in 'dir'
// (every name when empty) — staged checkpoints (finished or removed), save
// directories, temporary files — removed by the collector's rules. Best
// effort: what cannot be removed stays for `ckpt gc` to report.
void collectGarbageFor(const std::string& dir, std::string_view name);

}  // namespace ckpt::pipeline
