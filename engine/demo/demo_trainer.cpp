#include "ckpt/demo_trainer.h"

#include <chrono>
#include <cmath>
#include <cstring>
#include <map>
#include <random>

#include "ckpt/checkpoint_step.h"
#include "ckpt/save.h"
#include "ckpt/scheduled_checkpointer.h"
#include "platform/file.h"
#include "storage/dispatch.h"

namespace ckpt {
namespace {

constexpr int kInputs = 8;
constexpr int kSamples = 256;
// Legacy Keras Adam defaults.
constexpr float kLearningRate = 0.01f;
constexpr float kBeta1 = 0.9f;
constexpr float kBeta2 = 0.999f;
constexpr float kEpsilon = 1e-7f;

// Taken anew every step: a deferred async snapshot copies a variable when
// its mutable view is taken, so the forward pass reads through the const one.
float* floatsOf(Variable& v, int replica = 0) { return reinterpret_cast<float*>(v.mutableValue(replica).bytes.data()); }
const float* floatsIn(const Variable& v) { return reinterpret_cast<const float*>(v.value().bytes.data()); }

void setScalar(Variable& v, const void* value, size_t n) {
    for (int r = 0; r < v.replicas(); ++r) std::memcpy(v.mutableValue(r).bytes.data(), value, n);
}

// Keeps every replica equal to replica 0 after an update.
void mirrorReplicas(Variable& v) {
    for (int r = 1; r < v.replicas(); ++r) v.mutableValue(r).bytes = v.value(0).bytes;
}

struct Model {
    std::shared_ptr<Trackable> root;
    std::shared_ptr<Variable> k0, b0, k1, b1, iter, step;
    std::shared_ptr<Optimizer> opt;
};

Result<Model> build(int hidden, int replicas, uint64_t seed) {
    Model m;
    m.root = Trackable::makeObject();
    auto model = Trackable::makeObject();
    auto dense0 = Trackable::makeObject();
    auto dense1 = Trackable::makeObject();
    m.k0 = Variable::make(DataType::Float, TensorShape{{kInputs, hidden}}, replicas);
    m.b0 = Variable::make(DataType::Float, TensorShape{{hidden}}, replicas);
    m.k1 = Variable::make(DataType::Float, TensorShape{{hidden, 1}}, replicas);
    m.b1 = Variable::make(DataType::Float, TensorShape{{1}}, replicas);
    // Glorot-uniform kernels, zero biases, as Keras Dense initializes them.
    std::mt19937_64 rng(seed);
    auto glorot = [&](Variable& v, int fanIn, int fanOut) {
        const float limit = std::sqrt(6.0f / static_cast<float>(fanIn + fanOut));
        std::uniform_real_distribution<float> u(-limit, limit);
        float* p = floatsOf(v);
        for (int64_t i = 0; i < v.value().numElements(); ++i) p[i] = u(rng);
        mirrorReplicas(v);
    };
    glorot(*m.k0, kInputs, hidden);
    glorot(*m.k1, hidden, 1);
    CKPT_RETURN_IF_ERROR(dense0->addChild("kernel", m.k0));
    CKPT_RETURN_IF_ERROR(dense0->addChild("bias", m.b0));
    CKPT_RETURN_IF_ERROR(dense1->addChild("kernel", m.k1));
    CKPT_RETURN_IF_ERROR(dense1->addChild("bias", m.b1));
    CKPT_RETURN_IF_ERROR(model->addChild("layer_with_weights-0", dense0));
    CKPT_RETURN_IF_ERROR(model->addChild("layer-0", dense0));
    CKPT_RETURN_IF_ERROR(model->addChild("layer_with_weights-1", dense1));
    CKPT_RETURN_IF_ERROR(model->addChild("layer-1", dense1));

    m.opt = Optimizer::make();
    m.iter = Variable::make(DataType::Int64, TensorShape{}, replicas);
    CKPT_RETURN_IF_ERROR(m.opt->addChild("iter", m.iter));
    const std::pair<const char*, float> hypers[] = {
        {"beta_1", kBeta1}, {"beta_2", kBeta2}, {"decay", 0.0f}, {"learning_rate", kLearningRate}};
    for (const auto& [name, value] : hypers) {
        auto v = Variable::make(DataType::Float, TensorShape{}, replicas);
        setScalar(*v, &value, 4);
        CKPT_RETURN_IF_ERROR(m.opt->addChild(name, v));
    }
    for (const char* slot : {"m", "v"})
        for (auto* v : {m.k0.get(), m.b0.get(), m.k1.get(), m.b1.get()}) m.opt->createSlot(*v, slot);
    for (const auto& s : m.opt->slotVariables()) s.slot->setReplicaCount(replicas);

    m.step = Variable::make(DataType::Int64, TensorShape{}, replicas);
    CKPT_RETURN_IF_ERROR(m.root->addChild("model", model));
    CKPT_RETURN_IF_ERROR(m.root->addChild("optimizer", m.opt));
    CKPT_RETURN_IF_ERROR(m.root->addChild("step", m.step));
    return m;
}

}  // namespace

std::string demoSaveId(const std::string& prefix, const std::string& runId) { return platform::baseName(prefix) + "-" + runId; }

Result<std::shared_ptr<Trackable>> makeDemoModel(int hidden, int replicas, uint64_t seed) {
    CKPT_ASSIGN_OR_RETURN(Model m, build(hidden, replicas, seed));
    return m.root;
}

namespace {

Status validateOptions(const DemoTrainOptions& options) {
    if (options.directory.empty()) return invalidArgument("demo training needs a directory");
    if (options.steps < 1 || options.saveEvery < 1 || options.hidden < 1 || options.replicas < 1)
        return invalidArgument("steps, save-every, hidden and replicas must be positive");
    if (options.progressEvery < 0) return invalidArgument("the progress interval cannot be negative");
    if (options.freezeFirstLayerFrom && *options.freezeFirstLayerFrom < 1)
        return invalidArgument("the step that freezes layer 0 must be positive");
    if (!options.commitParts && !options.writer)
        return invalidArgument("leaving the commit to another process needs a run of several writers");
    if (options.writer) {
        CKPT_RETURN_IF_ERROR(checkWriterRank(*options.writer));
        if (options.runId.size() > 48 || !checkSaveId(options.runId).isOk())
            return invalidArgument("a run of several writers needs a run id of 1 to 48 of A-Z a-z 0-9 . _ - (got \"" +
                                   options.runId.substr(0, 60) + "\")");
        if (options.triggers || options.retention || options.async || options.maxShardBytes || !options.schedule.empty() ||
            options.storePath)
            return invalidArgument(
                "a run of several writers saves every save-every steps and keeps every checkpoint: triggers, retention, "
                "async saves, max shard bytes and schedules do not apply");
    }
    return okStatus();
}

// Rank options.writer's share of the next numbered checkpoint, merged and
// committed by rank 0: the save of a run of several writers.
Result<StepOutcome> saveAsWriter(Trackable& root, const DemoTrainOptions& options, std::string reason) {
    const auto start = std::chrono::steady_clock::now();
    CKPT_ASSIGN_OR_RETURN(auto counter, saveCounter(root));
    int64_t n = 0;
    std::memcpy(&n, counter->value().bytes.data(), 8);
    ++n;
    setScalar(*counter, &n, 8);
    const std::string prefix = numberedCheckpointPrefix(platform::joinPath(options.directory, "ckpt"), n);
    CKPT_ASSIGN_OR_RETURN(auto tensors, borrowForSave(root));
    PartSaveOptions part;
    part.saveId = demoSaveId(prefix, options.runId);
    part.cancel = options.cancel;
    part.planTimeout = options.commitTimeout;
    CKPT_ASSIGN_OR_RETURN(const PartStats stats, writeCheckpointPart(prefix, *options.writer, std::move(tensors), part));
    if (options.writer->rank == 0 && options.commitParts) {
        PartsCommitOptions commit;
        commit.saveId = part.saveId;
        commit.timeout = options.commitTimeout;
        commit.cancel = options.cancel;
        CKPT_RETURN_IF_ERROR(commitCheckpointParts(prefix, options.writer->world, commit).status());
    }
    StepOutcome outcome;
    outcome.saved = true;
    outcome.reason = std::move(reason);
    outcome.report.path = prefix;
    outcome.report.tensors = stats.tensors;
    outcome.report.blockingSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return outcome;
}

// Synthetic regression data: a fixed nonlinear function of 8 inputs.
struct Dataset {
    std::vector<float> x, y;
};

Dataset makeDataset(uint64_t seed) {
    std::mt19937_64 rng(seed + 7);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    Dataset d{std::vector<float>(kSamples * kInputs), std::vector<float>(kSamples)};
    for (float& v : d.x) v = normal(rng);
    for (int s = 0; s < kSamples; ++s) {
        const float* xs = &d.x[static_cast<size_t>(s) * kInputs];
        d.y[static_cast<size_t>(s)] = std::sin(xs[0]) + 0.5f * xs[1] * xs[2] - 0.3f * xs[3] + 0.1f * xs[4] * xs[4];
    }
    return d;
}

ScheduledCheckpointerOptions checkpointerOptions(const DemoTrainOptions& options, const Model& m) {
    ScheduledCheckpointerOptions so;
    if (options.triggers) {
        so.triggers = *options.triggers;
    } else {
        so.triggers.everySteps = options.saveEvery;
    }
    so.schedule = options.schedule;
    so.storePath = options.storePath;
    CheckpointManagerOptions& mo = so.manager;
    mo.maxToKeep = options.maxToKeep;
    mo.retention = options.retention;
    mo.owner = options.owner;
    mo.async = options.async;
    mo.asyncSnapshot = CheckpointManagerOptions::Snapshot::Deferred;  // the loop takes its views anew each step
    mo.stepCounter = m.step;
    if (options.maxShardBytes) mo.save.policy = std::make_shared<MaxShardSizePolicy>(*options.maxShardBytes);
    return so;
}

// One full-batch forward and backward pass: the mean squared error, and
// the gradients of the four parameters (k0, b0, k1, b1) in 'grads'.
// 'hid' and 'dh' are scratch of kSamples x h and h floats.
double forwardBackward(const Model& m, const Dataset& data, int h, std::vector<std::vector<float>>& grads,
                       std::vector<float>& hid, std::vector<float>& dh) {
    const float* k0 = floatsIn(*m.k0);
    const float* b0 = floatsIn(*m.b0);
    const float* k1 = floatsIn(*m.k1);
    const float* b1 = floatsIn(*m.b1);
    for (auto& g : grads) std::fill(g.begin(), g.end(), 0.0f);
    double loss = 0;
    for (int s = 0; s < kSamples; ++s) {
        const float* xs = &data.x[static_cast<size_t>(s) * kInputs];
        float* hs = &hid[static_cast<size_t>(s) * static_cast<size_t>(h)];
        float out = b1[0];
        for (int j = 0; j < h; ++j) {
            float a = b0[j];
            for (int i = 0; i < kInputs; ++i) a += xs[i] * k0[i * h + j];
            hs[j] = a > 0 ? a : 0;
            out += hs[j] * k1[j];
        }
        const float err = out - data.y[static_cast<size_t>(s)];
        loss += static_cast<double>(err) * err;
        const float dout = 2.0f * err / kSamples;
        grads[3][0] += dout;
        for (int j = 0; j < h; ++j) {
            grads[2][static_cast<size_t>(j)] += dout * hs[j];
            dh[static_cast<size_t>(j)] = hs[j] > 0 ? dout * k1[j] : 0;
            grads[1][static_cast<size_t>(j)] += dh[static_cast<size_t>(j)];
            for (int i = 0; i < kInputs; ++i)
                grads[0][static_cast<size_t>(i) * static_cast<size_t>(h) + static_cast<size_t>(j)] +=
                    dh[static_cast<size_t>(j)] * xs[i];
        }
    }
    return loss / kSamples;
}

// Adam update number 't' (legacy Keras form with epsilon-hat) of params
// from 'firstTrained' on. Parameters before it are frozen: their variables
// and slots are not even viewed mutably, so a deferred async snapshot never
// copies them and their stored bytes stay identical.
void adamStep(Model& m, const std::vector<Variable*>& params, const std::vector<std::vector<float>>& grads, int64_t t,
              size_t firstTrained) {
    const float lrT = kLearningRate * std::sqrt(1.0f - std::pow(kBeta2, static_cast<float>(t))) /
                      (1.0f - std::pow(kBeta1, static_cast<float>(t)));
    for (size_t p = firstTrained; p < params.size(); ++p) {
        float* w = floatsOf(*params[p]);
        float* mm = floatsOf(*m.opt->slot(*params[p], "m"));
        float* vv = floatsOf(*m.opt->slot(*params[p], "v"));
        for (size_t i = 0; i < grads[p].size(); ++i) {
            mm[i] = kBeta1 * mm[i] + (1 - kBeta1) * grads[p][i];
            vv[i] = kBeta2 * vv[i] + (1 - kBeta2) * grads[p][i] * grads[p][i];
            w[i] -= lrT * mm[i] / (std::sqrt(vv[i]) + kEpsilon);
        }
        mirrorReplicas(*params[p]);
        mirrorReplicas(*m.opt->slot(*params[p], "m"));
        mirrorReplicas(*m.opt->slot(*params[p], "v"));
    }
}

}  // namespace

Result<DemoRun> runDemoTraining(const DemoTrainOptions& options, const std::function<void(const DemoProgress&)>& progress) {
    CKPT_RETURN_IF_ERROR(validateOptions(options));
    const int64_t freezeFrom = options.freezeFirstLayerFrom.value_or(options.steps / 2 + 1);
    CKPT_ASSIGN_OR_RETURN(Model m, build(options.hidden, options.replicas, options.seed));
    const int h = options.hidden;
    const Dataset data = makeDataset(options.seed);
    std::unique_ptr<ScheduledCheckpointer> checkpointer;
    if (!options.writer) {
        CKPT_ASSIGN_OR_RETURN(checkpointer,
                              ScheduledCheckpointer::create(m.root, options.directory, checkpointerOptions(options, m)));
    } else {
        CKPT_RETURN_IF_ERROR(storage::createDirectories(options.directory));
    }

    std::vector<Variable*> params = {m.k0.get(), m.b0.get(), m.k1.get(), m.b1.get()};
    std::vector<std::vector<float>> grads(params.size());
    for (size_t i = 0; i < params.size(); ++i) grads[i].resize(static_cast<size_t>(params[i]->value().numElements()));
    std::vector<float> hid(static_cast<size_t>(kSamples * h)), dh(static_cast<size_t>(h));
    DemoRun run;
    run.root = m.root;
    for (int64_t step = 1; step <= options.steps; ++step) {
        const double loss = forwardBackward(m, data, h, grads, hid, dh);
        if (step == 1) run.firstLoss = loss;
        run.finalLoss = loss;
        const int64_t t = step;  // Adam's update count: one per step
        adamStep(m, params, grads, t, step >= freezeFrom ? 2 : 0);
        setScalar(*m.iter, &t, 8);
        setScalar(*m.step, &step, 8);
        run.stepsRun = step;
        const std::map<std::string, double> metrics{{"loss", loss}};
        StepOutcome outcome;
        if (options.writer) {
            if (step % options.saveEvery == 0 || step == options.steps) {
                CKPT_ASSIGN_OR_RETURN(
                    outcome, saveAsWriter(*m.root, options,
                                          step % options.saveEvery == 0 ? "every " + std::to_string(options.saveEvery) + " steps"
                                                                        : std::string("final step")));
            }
        } else {
            CKPT_ASSIGN_OR_RETURN(outcome, checkpointer->onStep(step, metrics));
            if (!outcome.saved && step == options.steps) {
                CKPT_ASSIGN_OR_RETURN(outcome, checkpointer->saveNow("final step", metrics));
            }
        }
        if (outcome.saved) {
            DemoProgress p{step, loss, outcome.report.path, outcome.reason, outcome.report.blockingSeconds, {}};
            if (options.writer && p.savedPath) p.saveId = demoSaveId(*p.savedPath, options.runId);
            run.saves.push_back(p);
            if (progress) progress(p);
        } else if (progress && options.progressEvery > 0 && step % options.progressEvery == 0) {
            DemoProgress p;
            p.step = step;
            p.loss = loss;
            progress(p);
        }
        if (checkpointer && checkpointer->stopRequested()) {
            run.preempted = true;
            break;
        }
        if (options.cancel && options.cancel->isCancelled()) {
            if (checkpointer) CKPT_RETURN_IF_ERROR(checkpointer->close());
            return cancelled("demo training in " + options.directory + " cancelled at step " + std::to_string(step));
        }
    }
    if (checkpointer) CKPT_RETURN_IF_ERROR(checkpointer->close());
    return run;
}

}  // namespace ckpt
