#pragma once
// `ckpt demo-train DIR --world N` without a rank: runs this program once per
// rank as child processes (what srun or torchrun would do on a cluster),
// each with the parent's arguments plus its rank. Their output is relayed
// line by line with a "[rank i] " prefix, or collected whole for --json.
// When a rank fails, rank 0 gets the time to report it (its merger names
// the rank); then the others are stopped, as launchers stop a failed job.

#include <chrono>
#include <string>
#include <vector>

namespace ckpt::cli {

struct RankExit {
    int rank = 0;
    int exitCode = 0;    // 128 + the signal when one ended it
    std::string output;  // its stdout, when collected
};

// Starts 'program' with args[i] for rank i; waits for all. 'collect'
// keeps each rank's stdout instead of relaying it. 'rankZeroGrace': how long
// rank 0 may still run after another rank failed. Empty when the programs
// could not be started (the reason on stderr).
std::vector<RankExit> runRankProcesses(const std::string& program, const std::vector<std::vector<std::string>>& args,
                                       bool collect, std::chrono::milliseconds rankZeroGrace);

}  // namespace ckpt::cli
