#pragma once
// Which writer of a save by N processes this one is (ckpt/distributed_save.h):
// rank i of world N, given by the caller or read from the environment the
// common launchers set, so any of them starts the writers unchanged:
//   torchrun               RANK, WORLD_SIZE
//   Open MPI (mpirun)      OMPI_COMM_WORLD_RANK, OMPI_COMM_WORLD_SIZE
//   SLURM (srun)           SLURM_PROCID, SLURM_NTASKS
//   Kubernetes Indexed Job JOB_COMPLETION_INDEX (the world is the caller's: the Job's completions)
// The first launcher in this order whose variables are set wins: the
// innermost one when launchers nest (torchrun under srun, mpirun in a
// batch script that has SLURM_PROCID=0). A launcher with only one of its
// two variables, a value that is not a plain number, a rank outside its
// world and a world over kMaxWriters are errors naming the variables.
//   CKPT_ASSIGN_OR_RETURN(WriterRank me, writerRankFromEnvironment(std::nullopt));

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "ckpt/status.h"

namespace ckpt {

// The most writers one save may have: every writer's marker is listed and
// read by the merger, and a data file name carries five digits.
inline constexpr int kMaxWriters = 1024;

struct WriterRank {
    int rank = 0;
    int world = 1;
    std::string source;  // the launcher it came from ("SLURM"), empty when given
};

// InvalidArgument unless 1 <= world <= kMaxWriters and 0 <= rank < world.
Status checkWriterRank(const WriterRank& writer);

// Reads one environment variable; nullopt when unset. Empty: getenv.
using EnvironmentLookup = std::function<std::optional<std::string>(std::string_view name)>;

// The rank and world from the launchers' variables (header). 'world', when
// given (a flag), must agree with the launcher's; it is required with
// JOB_COMPLETION_INDEX alone. NotFound when no launcher variable is set.
Result<WriterRank> writerRankFromEnvironment(std::optional<int> world, const EnvironmentLookup& lookup = {});

// An id of this launch that every rank sees alike, from the same
// launchers: torchrun's TORCHELASTIC_RUN_ID, Open MPI's
// OMPI_MCA_ess_base_jobid, SLURM_JOB_ID (with ".SLURM_STEP_ID"). Characters
// outside A-Z a-z 0-9 . _ - become '_', cut to 48. nullopt when none is set.
std::optional<std::string> launchIdFromEnvironment(const EnvironmentLookup& lookup = {});

}  // namespace ckpt
