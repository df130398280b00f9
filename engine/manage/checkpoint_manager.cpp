#include "ckpt/checkpoint_manager.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <iostream>
#include <mutex>
#include <thread>

#include "ckpt/bundle_naming.h"
#include "ckpt/checkpoint_metadata.h"
#include "ckpt/checkpoint_step.h"
#include "ckpt/checkpoint_state.h"
#include "ckpt/deferred_snapshot.h"
#include "ckpt/retention.h"
#include "manage/previous_run.h"
#include "pipeline/save_claim.h"
#include "pipeline/state_commit.h"
#include "storage/directory_lock.h"
#include "storage/dispatch.h"
#include "platform/file.h"
#include "platform/clock.h"
#include "retention/keep_every_hours.h"

namespace ckpt {
namespace {

int64_t scalarAsInt(const Variable& v) {
    if (v.dtype() == DataType::Int32) {
        int32_t x = 0;
        std::memcpy(&x, v.value().bytes.data(), 4);
        return x;
    }
    int64_t x = 0;
    std::memcpy(&x, v.value().bytes.data(), 8);
    return x;
}

// The root's own step variable, as checkpoint_step.h reads it back.
std::optional<int64_t> rootStep(const Trackable& root) {
    for (const char* name : {"step", "global_step"}) {
        const auto v = std::dynamic_pointer_cast<Variable>(root.child(name));
        if (v && v->shape().rank() == 0 && (v->dtype() == DataType::Int64 || v->dtype() == DataType::Int32))
            return scalarAsInt(*v);
    }
    return std::nullopt;
}

std::string absoluteDirectory(const std::string& directory) {
    // A URL ("s3://bucket/run") is absolute already.
    if (directory.starts_with('/') || !storage::locationScheme(directory).empty()) return directory;
    std::string cwd(4096, '\0');
    if (!::getcwd(cwd.data(), cwd.size())) return directory;
    cwd.resize(std::strlen(cwd.c_str()));
    return directory == "." ? cwd : platform::joinPath(cwd, directory);
}

// One background thread running one job at a time (a queue of one).
class AsyncWriter {
public:
    AsyncWriter() : m_thread([this] { run(); }) {}
    ~AsyncWriter() {
        {
            std::lock_guard lock(m_mutex);
            m_stop = true;
        }
        m_cv.notify_all();
        m_thread.join();
    }
    // Waits for the previous job, then queues this one; returns the previous job's error.
    Status submit(std::function<Status()> job) {
        Status previous = wait();
        {
            std::lock_guard lock(m_mutex);
            m_job = std::move(job);
        }
        m_cv.notify_all();
        return previous;
    }
    bool busy() {
        std::lock_guard lock(m_mutex);
        return static_cast<bool>(m_job);
    }
    Status wait() {
        std::unique_lock lock(m_mutex);
        m_cv.wait(lock, [this] { return !m_job; });
        Status s = std::move(m_error);
        m_error = okStatus();
        return s;
    }

private:
    void run() {
        std::unique_lock lock(m_mutex);
        for (;;) {
            m_cv.wait(lock, [this] { return m_stop || m_job; });
            if (!m_job) return;  // stopping with nothing queued
            auto job = m_job;
            lock.unlock();
            Status s = job();
            lock.lock();
            if (!s.isOk() && m_error.isOk()) m_error = s;
            m_job = nullptr;
            m_cv.notify_all();
        }
    }
    std::mutex m_mutex;
    std::condition_variable m_cv;
    std::function<Status()> m_job;  // Guarded by m_mutex.
    Status m_error;                 // Guarded by m_mutex.
    bool m_stop = false;            // Guarded by m_mutex.
    std::thread m_thread;
};

}  // namespace

struct CheckpointManager::Impl {
    std::shared_ptr<Trackable> root;
    CheckpointManagerOptions options;
    std::string directory;
    std::string owner;
    PreviousRunReport previousRun;
    mutable std::mutex mutex;
    // Bookkeeping, touched by whichever thread runs the write job. Guarded by mutex.
    std::vector<std::pair<std::string, double>> maybeDelete;  // absolute prefix, timestamp; oldest first
    double lastPreserved = 0;
    std::optional<std::string> latest;
    std::optional<int64_t> lastStep;
    std::unique_ptr<AsyncWriter> writer;
    // Async only: the last snapshot's memory, reused by the next.
    std::shared_ptr<SnapshotBuffers> buffers = std::make_shared<SnapshotBuffers>();
    std::shared_ptr<DeferredSnapshot> lastDeferred;  // for its stall time
    bool closed = false;

    double now() const { return options.clock ? options.clock() : platform::unixSeconds(); }

    std::string relative(const std::string& path) const {
        const std::string p = directory + "/";
        return path.starts_with(p) ? path.substr(p.size()) : path;
    }

    // The state file from this manager's list, never naming a checkpoint
    // that is gone (another process's retention may have deleted some: they
    // leave the list too); 'victims' (swept from the list) are deleted after
    // the file stops naming them, under the directory's lock, so the file is
    // true at every instant (docs/reliability.md).
    Status writeState(const std::vector<std::string>& victims = {}) {
        CheckpointState state;
        {
            std::lock_guard lock(mutex);
            std::erase_if(maybeDelete, [](const auto& e) { return !storage::exists(indexFileName(e.first)); });
            if (latest && !storage::exists(indexFileName(*latest)))
                latest = maybeDelete.empty() ? std::nullopt : std::optional<std::string>(maybeDelete.back().first);
            if (latest) {
                state.modelCheckpointPath = relative(*latest);
                for (const auto& [p, t] : maybeDelete) {
                    state.allModelCheckpointPaths.push_back(relative(p));
                    state.allModelCheckpointTimestamps.push_back(t);
                }
                state.lastPreservedTimestamp = lastPreserved;
            }
        }
        CKPT_ASSIGN_OR_RETURN(auto dirLock, storage::DirectoryLock::acquire(directory));
        CKPT_RETURN_IF_ERROR(pipeline::commitCheckpointStateLocked(directory, std::move(state)));
        for (const std::string& p : victims) {
            // Only checkpoints that live directly in the managed directory are deleted.
            if (platform::dirName(p) != directory) continue;
            CKPT_RETURN_IF_ERROR(deleteCheckpointFiles(directory, platform::baseName(p)));
        }
        return okStatus();
    }

    // TensorFlow's max_to_keep / keep_checkpoint_every_n_hours sweep over
    // what this manager owns (maybeDelete holds only owned checkpoints):
    // takes the victims off the list; writeState deletes them.
    std::vector<std::string> sweep() {
        std::vector<std::string> victims;
        std::lock_guard lock(mutex);
        if (!options.maxToKeep || static_cast<int>(maybeDelete.size()) <= *options.maxToKeep) return victims;
        const auto leaving = static_cast<std::ptrdiff_t>(maybeDelete.size()) - *options.maxToKeep;
        std::vector<double> times;
        for (auto it = maybeDelete.begin(); it != maybeDelete.begin() + leaving; ++it) times.push_back(it->second);
        const std::vector<bool> preserved =
            options.keepCheckpointEveryNHours
                ? schedule::preserveEveryInterval(times, *options.keepCheckpointEveryNHours * 3600., lastPreserved)
                : std::vector<bool>(times.size(), false);
        for (size_t i = 0; i < preserved.size(); ++i)
            if (!preserved[i]) victims.push_back(maybeDelete[i].first);
        maybeDelete.erase(maybeDelete.begin(), maybeDelete.begin() + leaving);
        return victims;
    }

    // The retention policy's plan over the whole directory; the planner
    // deletes only this owner's checkpoints and never the latest.
    Status applyPolicy() {
        CKPT_ASSIGN_OR_RETURN(const RetentionPlan plan,
                              planDirectoryRetention(directory, *options.retention, {.now = now(), .owner = owner}));
        {
            // What the state file records from now on (applyRetention writes it too).
            std::lock_guard lock(mutex);
            if (plan.lastPreservedTimestamp) lastPreserved = *plan.lastPreservedTimestamp;
        }
        if (plan.deleted == 0) return okStatus();
        CKPT_ASSIGN_OR_RETURN(const RetentionApplyReport applied, applyRetention(plan));
        std::lock_guard lock(mutex);
        std::erase_if(maybeDelete, [&](const auto& e) {
            return std::find(applied.deleted.begin(), applied.deleted.end(), e.first) != applied.deleted.end();
        });
        return okStatus();
    }

    // Runs on the caller's thread (sync) or the writer thread (async). The
    // metadata is durable before writeTensors() commits the index, and
    // rotation runs only once the checkpoint and the state file are.
    Status writeAndRecord(const std::string& prefix, std::vector<SaveTensor> tensors, const CheckpointMetadata& metadata) {
        CKPT_RETURN_IF_ERROR(storage::createDirectories(directory));
        // Without rename the checkpoint is written at its final name: claimed
        // first, so that not even its metadata goes over another writer's
        // checkpoint (the save inside takes the same claim again).
        std::unique_ptr<pipeline::SaveClaim> claim;
        if (!storage::capabilitiesFor(prefix).rename) {
            CKPT_ASSIGN_OR_RETURN(claim, pipeline::SaveClaim::acquireForNew(prefix));
        }
        CKPT_RETURN_IF_ERROR(writeCheckpointMetadata(prefix, metadata));
        CKPT_RETURN_IF_ERROR(writeTensors(prefix, std::move(tensors), options.save, writer ? buffers.get() : nullptr).status());
        {
            std::lock_guard lock(mutex);
            std::erase_if(maybeDelete, [&](const auto& e) { return e.first == prefix; });
            maybeDelete.emplace_back(prefix, now());
            latest = prefix;
        }
        // The new checkpoint is named first: a kill while deleting leaves it the latest.
        CKPT_RETURN_IF_ERROR(writeState());
        // applyRetention() takes what it deletes out of the state file itself, first.
        if (options.retention) return applyPolicy();
        // Again without what the sweep took off the list (deleted after the
        // file stops naming them, or kept for good by keep_checkpoint_every_n_hours).
        return writeState(sweep());
    }

    // The state file's list, restricted to what this manager owns, plus
    // owned checkpoints it does not list (a lost or foreign state file).
    void adoptManaged(const manage::PreviousRunScan& scan, bool haveState) {
        std::vector<std::pair<std::string, double>> managed;
        for (const auto& entry : maybeDelete) {
            const bool onDisk = storage::exists(indexFileName(entry.first));
            const bool owned =
                std::any_of(scan.managed.begin(), scan.managed.end(), [&](const auto& m) { return m.first == entry.first; });
            // A listed checkpoint that is gone leaves the list: the state file
            // never names what is not on disk (TensorFlow's manager would keep it).
            if (owned && onDisk) managed.push_back(entry);
        }
        for (const auto& m : scan.managed) {
            const bool listed = std::any_of(managed.begin(), managed.end(), [&](const auto& e) { return e.first == m.first; });
            // Older than the last preserved one: kept for good by keep_checkpoint_every_n_hours.
            if (!listed && (!haveState || m.second > lastPreserved)) managed.push_back(m);
        }
        std::stable_sort(managed.begin(), managed.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
        maybeDelete = std::move(managed);
    }
};

Result<std::unique_ptr<CheckpointManager>> CheckpointManager::create(std::shared_ptr<Trackable> root, std::string directory,
                                                                     CheckpointManagerOptions options) {
    if (!root) return invalidArgument("CheckpointManager needs a root object");
    if (options.maxToKeep && *options.maxToKeep < 1)
        return invalidArgument("max_to_keep must be positive, not " + std::to_string(*options.maxToKeep));
    if (options.checkpointInterval && !options.stepCounter) return invalidArgument("checkpoint_interval needs a step counter");
    if (options.stepCounter && (options.stepCounter->shape().rank() != 0 || (options.stepCounter->dtype() != DataType::Int64 &&
                                                                             options.stepCounter->dtype() != DataType::Int32)))
        return invalidArgument("the step counter must be an int32 or int64 scalar");
    if (options.retention) CKPT_RETURN_IF_ERROR(validateRetentionPolicy(*options.retention));
    while (directory.size() > 1 && directory.back() == '/') directory.pop_back();
    std::unique_ptr<CheckpointManager> m(new CheckpointManager());
    m->m_directory = directory;
    m->m_impl = std::make_unique<Impl>();
    Impl& impl = *m->m_impl;
    impl.root = std::move(root);
    impl.options = std::move(options);
    impl.directory = directory;
    impl.owner =
        impl.options.owner.empty() ? impl.options.checkpointName + "@" + absoluteDirectory(directory) : impl.options.owner;
    CKPT_ASSIGN_OR_RETURN(auto state, readCheckpointState(directory));
    const double now = impl.now();
    if (!state) {
        impl.lastPreserved = now - 1;
    } else {
        if (!state->modelCheckpointPath.empty()) impl.latest = resolveStatePath(directory, state->modelCheckpointPath);
        impl.lastPreserved = std::min(state->lastPreservedTimestamp, now);
        for (size_t i = 0; i < state->allModelCheckpointPaths.size(); ++i) {
            const double ts =
                i < state->allModelCheckpointTimestamps.size() ? state->allModelCheckpointTimestamps[i] : impl.lastPreserved;
            if (std::min(ts, now) > impl.lastPreserved)
                impl.maybeDelete.emplace_back(resolveStatePath(directory, state->allModelCheckpointPaths[i]), ts);
        }
    }
    CKPT_ASSIGN_OR_RETURN(manage::PreviousRunScan scan, manage::scanPreviousRun(directory, impl.options.checkpointName,
                                                                                impl.owner, state, impl.options.previousRun));
    impl.adoptManaged(scan, state.has_value());
    impl.previousRun = std::move(scan.report);
    if (impl.options.async) impl.writer = std::make_unique<AsyncWriter>();
    return m;
}

CheckpointManager::~CheckpointManager() {
    if (!m_impl) return;
    const Status s = close();
    if (!s.isOk()) std::cerr << "checkpoint manager for " << m_directory << ": " << s.toString() << "\n";
}

Result<SaveReport> CheckpointManager::save(std::optional<int64_t> checkpointNumber, bool checkInterval) {
    SaveRequest request;
    request.checkpointNumber = checkpointNumber;
    request.checkInterval = checkInterval;
    return save(request);
}

Result<SaveReport> CheckpointManager::save(const SaveRequest& request) {
    Impl& impl = *m_impl;
    if (impl.closed) return failedPrecondition("checkpoint manager for " + m_directory + " is closed");
    const auto start = std::chrono::steady_clock::now();
    SaveReport report;
    if (impl.options.checkpointInterval) {
        const int64_t step = scalarAsInt(*impl.options.stepCounter);
        if (impl.lastStep && step == *impl.lastStep) return report;
        if (request.checkInterval && impl.lastStep && step < *impl.lastStep + *impl.options.checkpointInterval) return report;
        impl.lastStep = step;
    }
    CheckpointMetadata metadata;
    metadata.step = request.step;
    if (!metadata.step && impl.options.stepCounter) metadata.step = scalarAsInt(*impl.options.stepCounter);
    if (!metadata.step) metadata.step = rootStep(*impl.root);
    metadata.savedAt = impl.now();
    metadata.metrics = request.metrics;
    metadata.tags = request.tags;
    metadata.owner = impl.owner;
    metadata.schedule = request.schedule;
    metadata.writer = "ckpt-explorer CheckpointManager";
    report.step = metadata.step;
    CKPT_ASSIGN_OR_RETURN(auto counter, saveCounter(*impl.root));
    int64_t n = scalarAsInt(*counter) + 1;
    for (int r = 0; r < counter->replicas(); ++r) std::memcpy(counter->mutableValue(r).bytes.data(), &n, 8);
    const std::string prefix = numberedCheckpointPrefix(platform::joinPath(m_directory, impl.options.checkpointName),
                                                        request.checkpointNumber.value_or(n));
    if (impl.writer) {
        // Wait for the previous write first: its buffers then take this snapshot.
        const Status previous = impl.writer->wait().withContext("previous asynchronous save failed");
        report.waitedSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        CKPT_RETURN_IF_ERROR(previous);
        if (impl.lastDeferred) report.previousStallSeconds = std::exchange(impl.lastDeferred, nullptr)->stallSeconds();
        report.path = prefix;
        if (impl.options.asyncSnapshot == CheckpointManagerOptions::Snapshot::Deferred) {
            CKPT_ASSIGN_OR_RETURN(auto snap, DeferredSnapshot::start(*impl.root, impl.buffers));
            report.tensors = snap->tensorCount();
            report.bytes = snap->bytes();
            impl.lastDeferred = snap;
            CKPT_RETURN_IF_ERROR(impl.writer->submit(
                [&impl, prefix, snap, metadata] { return impl.writeAndRecord(prefix, snap->finish(), metadata); }));
        } else {
            CKPT_ASSIGN_OR_RETURN(auto tensors, snapshotForSave(*impl.root, *impl.buffers));
            report.tensors = static_cast<int64_t>(tensors.size());
            for (const SaveTensor& t : tensors) report.bytes += t.value.bytes.size();
            auto shared = std::make_shared<std::vector<SaveTensor>>(std::move(tensors));
            CKPT_RETURN_IF_ERROR(impl.writer->submit(
                [&impl, prefix, shared, metadata] { return impl.writeAndRecord(prefix, std::move(*shared), metadata); }));
        }
        report.blockingSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        return report;
    }
    CKPT_ASSIGN_OR_RETURN(auto tensors, borrowForSave(*impl.root));
    report.tensors = static_cast<int64_t>(tensors.size());
    for (const SaveTensor& t : tensors) report.bytes += t.data().bytes.size();
    report.path = prefix;
    CKPT_RETURN_IF_ERROR(impl.writeAndRecord(prefix, std::move(tensors), metadata));
    report.blockingSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return report;
}

bool CheckpointManager::saveInFlight() const { return m_impl->writer && m_impl->writer->busy(); }

Status CheckpointManager::sync() {
    if (!m_impl->writer) return okStatus();
    Status s = m_impl->writer->wait();
    if (!s.isOk()) return s.withContext("asynchronous save failed");
    return s;
}

Status CheckpointManager::close() {
    if (m_impl->closed) return okStatus();
    Status s = sync();
    m_impl->writer.reset();
    m_impl->closed = true;
    return s;
}

const std::string& CheckpointManager::owner() const { return m_impl->owner; }

const PreviousRunReport& CheckpointManager::previousRun() const { return m_impl->previousRun; }

std::optional<std::string> CheckpointManager::latestCheckpoint() const {
    std::lock_guard lock(m_impl->mutex);
    return m_impl->latest;
}

std::vector<std::string> CheckpointManager::checkpoints() const {
    std::lock_guard lock(m_impl->mutex);
    std::vector<std::string> out;
    for (const auto& [p, t] : m_impl->maybeDelete) out.push_back(p);
    return out;
}

Result<std::optional<std::string>> CheckpointManager::restoreOrInitialize() {
    CKPT_RETURN_IF_ERROR(sync());
    auto latest = latestCheckpoint();
    if (latest && storage::exists(indexFileName(*latest))) {
        if (!m_impl->options.restore)
            return failedPrecondition("checkpoint " + *latest + " exists but the manager has no restore hook");
        CKPT_RETURN_IF_ERROR(m_impl->options.restore(*latest));
        return std::optional<std::string>(*latest);
    }
    if (m_impl->options.initialize) CKPT_RETURN_IF_ERROR(m_impl->options.initialize());
    return std::optional<std::string>{};
}

}  // namespace ckpt
