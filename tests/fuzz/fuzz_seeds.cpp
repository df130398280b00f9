// Seed corpora for the fuzz harnesses, written by the engine itself (no
// third-party files in the repository): `fuzz_seeds OUT` saves a few
// checkpoints and fills OUT/<harness>/ (index, object_graph, string_tensor,
// checkpoint_state, model_spec, retention_policy, array_header) with their parts.

#include <cstdio>
#include <string>
#include <vector>

#include "ckpt/bundle_naming.h"
#include "ckpt/bundle_writer.h"
#include "format/region_codec.h"
#include "ckpt/checkpoint.h"
#include "ckpt/checkpoint_state.h"
#include "ckpt/convert.h"
#include "ckpt/model_spec.h"
#include "ckpt/npy.h"
#include "ckpt/retention.h"
#include "ckpt/save.h"
#include "fuzz_support.h"
#include "storage/dispatch.h"
#include "platform/file.h"

namespace {

using namespace ckpt;

struct Corpus {
    std::string root;

    Status put(const std::string& harness, const std::string& name, std::string_view bytes) const {
        const std::string dir = platform::joinPath(root, harness);
        CKPT_RETURN_IF_ERROR(storage::createDirectories(dir));
        return storage::writeObject(platform::joinPath(dir, name), bytes).status();
    }
    Status copy(const std::string& harness, const std::string& name, const std::string& from) const {
        CKPT_ASSIGN_OR_RETURN(const std::string bytes, storage::readSmallFile(from));
        return put(harness, name, bytes);
    }
};

Status indexSeeds(const Corpus& corpus, const std::string& work, const Trackable& program) {
    const std::string sample = platform::joinPath(work, "sample");
    CKPT_RETURN_IF_ERROR(fuzz::writeSampleBundle(sample));
    CKPT_RETURN_IF_ERROR(corpus.copy("index", "sample.index", indexFileName(sample)));
    // Three shards: a header that names more than one data file.
    const std::string sharded = platform::joinPath(work, "sharded");
    SaveOptions options;
    options.policy = std::make_shared<FixedShardCountPolicy>(3);
    CKPT_RETURN_IF_ERROR(writeCheckpoint(program, sharded, options).status());
    return corpus.copy("index", "sharded.index", indexFileName(sharded));
}

Status graphAndSpecSeeds(const Corpus& corpus, const std::string& work, const Trackable& program) {
    CKPT_ASSIGN_OR_RETURN(const std::string graph, serializeObjectGraph(program));
    CKPT_RETURN_IF_ERROR(corpus.put("object_graph", "program.pb", graph));
    CKPT_RETURN_IF_ERROR(corpus.put("model_spec", "program.json", modelSpecJson(program)));
    CKPT_RETURN_IF_ERROR(corpus.put("model_spec", "program-values.json", modelSpecJson(program, true)));

    // A saved checkpoint read back: its stored graph, and the spec `ckpt spec` prints for it.
    const std::string prefix = platform::joinPath(work, "written");
    CKPT_RETURN_IF_ERROR(writeCheckpoint(program, prefix, {}).status());
    CKPT_ASSIGN_OR_RETURN(const auto checkpoint, Checkpoint::open(prefix));
    CKPT_ASSIGN_OR_RETURN(const Tensor stored, checkpoint->bundle().read(kObjectGraphKey));
    CKPT_RETURN_IF_ERROR(corpus.put("object_graph", "written.pb", stored.strings.at(0)));
    CKPT_ASSIGN_OR_RETURN(const auto template_, programFromCheckpoint(*checkpoint));
    return corpus.put("model_spec", "from-checkpoint.json", modelSpecJson(*template_));
}

Status stringSeeds(const Corpus& corpus) {
    const std::vector<std::vector<std::string>> sets = {{}, {""}, {"alpha", "", "beta"}, {std::string(200, 'x'), "\x00\x01"}};
    for (size_t i = 0; i < sets.size(); ++i) {
        const int64_t count = static_cast<int64_t>(sets[i].size());
        const Tensor t{.dtype = DataType::String, .shape = {{count}}, .bytes = {}, .strings = sets[i]};
        const std::vector<uint8_t> region = encodeTensorRegion(t);
        std::string bytes{static_cast<char>(count & 0xff), static_cast<char>(count >> 8)};
        bytes.append(region.begin(), region.end());
        CKPT_RETURN_IF_ERROR(corpus.put("string_tensor", "strings-" + std::to_string(i), bytes));
    }
    return okStatus();
}

Status stateSeeds(const Corpus& corpus, const std::string& work) {
    // saveCheckpoint's own state file, then one with timestamps.
    auto program = fuzz::sampleProgram();
    if (!program) return program.status();
    const std::string run = platform::joinPath(work, "run");
    CKPT_RETURN_IF_ERROR(saveCheckpoint(**program, platform::joinPath(run, "ckpt"), {}).status());
    CKPT_RETURN_IF_ERROR(saveCheckpoint(**program, platform::joinPath(run, "ckpt"), {}).status());
    CKPT_RETURN_IF_ERROR(corpus.copy("checkpoint_state", "saved", platform::joinPath(run, kCheckpointStateFile)));
    const std::string stamped = platform::joinPath(work, "stamped");
    CKPT_RETURN_IF_ERROR(storage::createDirectories(stamped));
    CheckpointState state{.modelCheckpointPath = "ckpt-7",
                          .allModelCheckpointPaths = {"ckpt-5", "ckpt-6", "/abs/ckpt-7"},
                          .allModelCheckpointTimestamps = {1.7e9, 1.7e9 + 0.25, 1.7e9 + 60},
                          .lastPreservedTimestamp = 1.69e9};
    CKPT_RETURN_IF_ERROR(writeCheckpointState(stamped, state));
    return corpus.copy("checkpoint_state", "stamped", platform::joinPath(stamped, kCheckpointStateFile));
}

Status retentionSeeds(const Corpus& corpus) {
    RetentionPolicy latest;
    latest.keepLatest = 3;
    RetentionPolicy everything;
    everything.keepOnePerHours = 2;
    everything.keepEverySteps = 1000;
    everything.keepWithinSeconds = 7 * 86400;
    everything.calendar = {.hourly = 24, .daily = 7, .weekly = 4, .monthly = 12, .yearly = 1, .utc = true};
    everything.best =
        BestRule{.metric = "val_loss", .count = 2, .mode = BestRule::Mode::Max, .ifMissing = BestRule::IfMissing::Keep};
    everything.keepTags = {"pin", "release"};
    everything.minAgeSeconds = 3600;
    everything.diskBudgetBytes = uint64_t{50} << 30;
    RetentionPolicy budget;
    budget.diskBudgetBytes = 2500;
    const std::vector<std::pair<std::string, RetentionPolicy>> policies = {
        {"latest.json", latest}, {"everything.json", everything}, {"budget.json", budget}};
    for (const auto& [name, policy] : policies)
        CKPT_RETURN_IF_ERROR(corpus.put("retention_policy", name, retentionPolicyToJson(policy)));
    return okStatus();
}

// A safetensors export of a saved sample program, and .npy preambles.
Status arraySeeds(const Corpus& corpus, const std::string& work, const Trackable& program) {
    const std::string prefix = platform::joinPath(work, "for-export");
    CKPT_RETURN_IF_ERROR(writeCheckpoint(program, prefix, {}).status());
    const std::string file = platform::joinPath(work, "export.safetensors");
    ExportOptions options;
    options.skipUnsupported = true;
    options.overwrite = true;
    CKPT_RETURN_IF_ERROR(exportCheckpoint(prefix, file, options).status());
    CKPT_RETURN_IF_ERROR(corpus.copy("array_header", "export.safetensors", file));
    CKPT_RETURN_IF_ERROR(corpus.put("array_header", "f4-3x4.npy", npyPreamble("<f4", TensorShape{{3, 4}})));
    CKPT_RETURN_IF_ERROR(corpus.put("array_header", "b1-scalar.npy", npyPreamble("|b1", TensorShape{})));
    return corpus.put("array_header", "i8-empty.npy", npyPreamble("<i8", TensorShape{{0}}));
}

Status writeSeeds(const Corpus& corpus) {
    const std::string work = platform::joinPath(fuzz::scratchDir(), "seeds");
    CKPT_RETURN_IF_ERROR(storage::createDirectories(work));
    CKPT_ASSIGN_OR_RETURN(const auto program, fuzz::sampleProgram());
    CKPT_RETURN_IF_ERROR(indexSeeds(corpus, work, *program));
    CKPT_RETURN_IF_ERROR(graphAndSpecSeeds(corpus, work, *program));
    CKPT_RETURN_IF_ERROR(stringSeeds(corpus));
    CKPT_RETURN_IF_ERROR(stateSeeds(corpus, work));
    CKPT_RETURN_IF_ERROR(arraySeeds(corpus, work, *program));
    return retentionSeeds(corpus);
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: fuzz_seeds OUT_DIR\n");
        return 2;
    }
    const Status status = writeSeeds(Corpus{argv[1]});
    if (!status.isOk()) {
        std::fprintf(stderr, "fuzz_seeds: %s\n", status.toString().c_str());
        return 1;
    }
    return 0;
}
