#pragma once
// A small, real training run for demos and tests: a two-layer MLP regression
// (8 -> hidden -> 1, ReLU) trained with Adam on synthetic data in plain C++,
// saved through CheckpointManager. Its object graph is what
// tf.train.Checkpoint(model=<Keras Sequential>, optimizer=<legacy Keras Adam>,
// step=<int64 variable>) gives: layer_with_weights-<i>/{kernel,bias},
// optimizer/{iter,beta_1,beta_2,decay,learning_rate}, slot variables m and v,
// save_counter. Deterministic for a given seed. Call from one thread.
//   DemoTrainOptions o; o.directory = "/tmp/demo"; o.steps = 200;
//   auto run = runDemoTraining(o, [](const DemoProgress& p) { print(p); });
//
// The run has two phases so that its checkpoints are worth comparing (`ckpt
// diff`, `ckpt history`): every layer trains at first, then a fine-tune
// phase freezes layer 0, as Keras does for `model.layers[0].trainable =
// False`. From then on layer_with_weights-0's kernel and bias and their Adam
// slots m and v are not updated at all, so consecutive checkpoints of the
// second half store them byte for byte alike (same crc32c) while
// layer_with_weights-1, its slots, optimizer/iter and step move. With the
// defaults (200 steps, a save every 40, 5 kept) ckpt-1 and ckpt-2 are from
// the first phase, ckpt-3 to ckpt-5 from the fine-tune phase.
//
// Saves go through a ScheduledCheckpointer (scheduled_checkpointer.h): the
// triggers decide when, each checkpoint's metadata records the step and
// the loss as metric "loss", and the final step is always saved.

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ckpt/cancellation.h"
#include "ckpt/distributed_save.h"
#include "ckpt/retention.h"
#include "ckpt/save_triggers.h"
#include "ckpt/status.h"
#include "ckpt/trackable.h"

namespace ckpt {

struct DemoTrainOptions {
    std::string directory;
    int64_t steps = 200;
    int64_t saveEvery = 40;
    int maxToKeep = 5;
    // First step (1-based) of the fine-tune phase, in which layer 0 is frozen
    // and only layer 1 trains. Unset: halfway, steps / 2 + 1. A step past
    // 'steps' trains every layer throughout; 1 freezes layer 0 from the
    // start (it keeps its initial values). Must be positive.
    std::optional<int64_t> freezeFirstLayerFrom;
    bool async = false;
    std::optional<int64_t> maxShardBytes;
    int replicas = 1;  // >1 saves VARIABLE_VALUE + parallel_component_<i>
    int hidden = 32;
    uint64_t seed = 1;
    // When to save. Unset: every saveEvery steps. The last step is saved
    // whatever the triggers say. With onPreemption, SIGTERM/SIGINT save
    // once and end the run early (DemoRun::preempted).
    std::optional<SaveTriggers> triggers;
    // What to keep. Unset: the newest maxToKeep (TensorFlow's max_to_keep).
    std::optional<RetentionPolicy> retention;
    std::string owner;     // recorded in each checkpoint's metadata; empty: the manager's default
    std::string schedule;  // the schedule running it, recorded in the metadata
    // Checked every step (may be null): the run stops with Cancelled after
    // the save in flight, if any, is finished.
    const CancellationToken* cancel = nullptr;
    // Also call 'progress' every N steps between saves (savedPath unset),
    // so a watcher sees the run advance; 0: at saves only.
    int64_t progressEvery = 0;
    // Record the run's saves in this schedule store as the Program schedule
    // named 'schedule' (ScheduledCheckpointerOptions::storePath).
    std::optional<std::string> storePath;

    // Saves by N writers (ckpt/distributed_save.h): this process is one
    // rank of a data-parallel run whose ranks train the same model from the
    // same seed, and at each save writes only its share of <dir>/ckpt-<N>;
    // rank 0 then merges and commits it (waiting up to commitTimeout), unless
    // commitParts is off (a separate merger commits it). Every
    // rank gets the same options. Saves happen every saveEvery steps and at
    // the last step; nothing is deleted (no retention), and triggers,
    // retention, async, max shard bytes and schedules do not apply.
    std::optional<WriterRank> writer;
    // Names this launch in the save ids ("ckpt-3-<runId>"): the same for
    // every rank, new for each launch, so a rerun never meets the parts
    // of an attempt that failed. 1 to 48 of A-Z a-z 0-9 . _ -.
    std::string runId;
    std::chrono::milliseconds commitTimeout{std::chrono::minutes(2)};
    // Rank 0 merges and commits each checkpoint. Off: every rank only
    // writes its part, and another process commits it (`ckpt merge
    // --save-id`, commitCheckpointParts) under DemoProgress::saveId.
    bool commitParts = true;
};

struct DemoProgress {
    int64_t step = 0;
    double loss = 0;
    std::optional<std::string> savedPath;  // set when this step saved (else a progressEvery report)
    std::string saveReason;                // the trigger that fired ("every 40 steps", "final step")
    double saveBlockingSeconds = 0;
    std::string saveId;  // a run of several writers: the save id of savedPath's parts
};

// The save id of checkpoint 'prefix' in the writers' run 'runId'.
std::string demoSaveId(const std::string& prefix, const std::string& runId);

struct DemoRun {
    std::vector<DemoProgress> saves;
    double firstLoss = 0;
    double finalLoss = 0;
    std::shared_ptr<Trackable> root;  // the trained object graph
    int64_t stepsRun = 0;
    bool preempted = false;  // stopped by SIGTERM/SIGINT after its preemption save
};

// The untrained graph (for tests that want the structure without training).
Result<std::shared_ptr<Trackable>> makeDemoModel(int hidden, int replicas, uint64_t seed);

// Trains, saving when the triggers fire and after the last step. 'progress'
// (may be empty) is called at each save, and every options.progressEvery steps.
Result<DemoRun> runDemoTraining(const DemoTrainOptions& options, const std::function<void(const DemoProgress&)>& progress = {});

}  // namespace ckpt
