// Rank and world from the launchers' environment (ckpt/writer_rank.h).

#include "ckpt/writer_rank.h"

#include <charconv>
#include <cstdlib>
#include <vector>

namespace ckpt {
namespace {

struct Launcher {
    const char* name;
    const char* rankVariable;
    const char* worldVariable;  // null: the world comes from the caller
};

// Innermost launcher first: torchrun or mpirun started inside a SLURM
// allocation or a Kubernetes pod see the outer launcher's variables too
// (a batch script's SLURM_PROCID=0), and their own are the ones that count.
constexpr Launcher kLaunchers[] = {
    {"torchrun", "RANK", "WORLD_SIZE"},
    {"Open MPI", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"},
    {"SLURM", "SLURM_PROCID", "SLURM_NTASKS"},
    {"Kubernetes", "JOB_COMPLETION_INDEX", nullptr},
};

// A decimal number of at most 9 digits, nothing else (no sign, no spaces).
Result<int> parseCount(std::string_view name, const std::string& text) {
    int value = 0;
    const char* end = text.data() + text.size();
    if (text.empty() || text.size() > 9 || std::from_chars(text.data(), end, value).ptr != end || text[0] == '-' ||
        text[0] == '+')
        return invalidArgument(std::string(name) + "=\"" + text.substr(0, 32) + "\" is not a non-negative whole number");
    return value;
}

std::string describe(const Launcher& l, const WriterRank& w) {
    std::string s = std::string(l.rankVariable) + "=" + std::to_string(w.rank);
    if (l.worldVariable) s += ", " + std::string(l.worldVariable) + "=" + std::to_string(w.world);
    return s;
}

std::optional<std::string> variable(const EnvironmentLookup& lookup, const char* name) {
    if (lookup) return lookup(name);
    const char* v = std::getenv(name);  // NOLINT(concurrency-mt-unsafe): read at start-up, before any thread
    return v ? std::optional<std::string>(v) : std::nullopt;
}

}  // namespace

std::optional<std::string> launchIdFromEnvironment(const EnvironmentLookup& lookup) {
    std::optional<std::string> id = variable(lookup, "TORCHELASTIC_RUN_ID");
    if (!id) id = variable(lookup, "OMPI_MCA_ess_base_jobid");
    if (!id) {
        id = variable(lookup, "SLURM_JOB_ID");
        const auto step = variable(lookup, "SLURM_STEP_ID");
        if (id && step) *id += "." + *step;
    }
    if (!id || id->empty()) return std::nullopt;
    std::string out = id->substr(0, 48);
    for (char& c : out)
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-'))
            c = '_';
    if (out[0] == '.') out[0] = '_';
    return out;
}

Status checkWriterRank(const WriterRank& writer) {
    if (writer.world < 1 || writer.world > kMaxWriters)
        return invalidArgument("a save's world of " + std::to_string(writer.world) + " writers is outside 1.." +
                               std::to_string(kMaxWriters));
    if (writer.rank < 0 || writer.rank >= writer.world)
        return invalidArgument("rank " + std::to_string(writer.rank) + " is outside a world of " + std::to_string(writer.world) +
                               " (ranks 0.." + std::to_string(writer.world - 1) + ")");
    return okStatus();
}

Result<WriterRank> writerRankFromEnvironment(std::optional<int> world, const EnvironmentLookup& lookup) {
    const auto get = [&](const char* name) { return variable(lookup, name); };
    for (const Launcher& l : kLaunchers) {
        const auto rankText = get(l.rankVariable);
        const auto worldText = l.worldVariable ? get(l.worldVariable) : std::nullopt;
        if (!rankText && !worldText) continue;
        if (!rankText || (l.worldVariable && !worldText))
            return invalidArgument(std::string(l.name) + "'s " + (rankText ? l.rankVariable : l.worldVariable) +
                                   " is set but not " + (rankText ? l.worldVariable : l.rankVariable));
        WriterRank w;
        w.source = l.name;
        CKPT_ASSIGN_OR_RETURN(w.rank, parseCount(l.rankVariable, *rankText));
        if (worldText) {
            CKPT_ASSIGN_OR_RETURN(w.world, parseCount(l.worldVariable, *worldText));
        } else if (world) {
            w.world = *world;
        } else {
            return invalidArgument(std::string(l.rankVariable) +
                                   " gives a rank but no world: pass the world (--world N: the Job's completions)");
        }
        if (world && w.world != *world)
            return invalidArgument("the world given (" + std::to_string(*world) + ") differs from " + l.name + "'s (" +
                                   describe(l, w) + ")");
        CKPT_RETURN_IF_ERROR(checkWriterRank(w).withContext(std::string(l.name) + " (" + describe(l, w) + ")"));
        return w;
    }
    return notFound(
        "no rank given and no launcher's variables set (RANK/WORLD_SIZE, OMPI_COMM_WORLD_RANK/OMPI_COMM_WORLD_SIZE, "
        "SLURM_PROCID/SLURM_NTASKS, JOB_COMPLETION_INDEX)");
}

}  // namespace ckpt
