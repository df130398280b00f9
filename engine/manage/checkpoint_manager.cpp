#include "ckpt/checkpoint_manager.h"

#include <chrono>
#include <condition_variable>
#include <cstring>
#include <dirent.h>
#include <iostream>
#include <mutex>
#include <thread>

#include "ckpt/bundle_naming.h"
#include "ckpt/checkpoint_state.h"
#include "ckpt/deferred_snapshot.h"
#include "pipeline/writable_file.h"
#include "platform/file.h"

namespace ckpt {
namespace {

double nowSeconds() { return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count(); }

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

// Deletes <prefix>.index and <prefix>.data-NNNNN-of-NNNNN: only directory
// entries with exactly those names, unlinked (a symlink is removed, never
// followed).
Status deleteCheckpointFiles(const std::string& dir, const std::string& base) {
    DIR* d = ::opendir(dir.c_str());
    if (!d) return okStatus();
    std::vector<std::string> victims;
    const std::string index = indexFileName(base);
    while (dirent* e = ::readdir(d)) {
        const std::string n = e->d_name;
        const auto data = parseDataFileName(n);
        if (n == index || (data && data->prefix == base)) victims.push_back(n);
    }
    ::closedir(d);
    // Index first: a half-deleted checkpoint is then simply absent.
    std::sort(victims.begin(), victims.end(),
              [&](const std::string& a, const std::string& b) { return (a == index) > (b == index); });
    for (const std::string& n : victims) CKPT_RETURN_IF_ERROR(pipeline::removeFile(platform::joinPath(dir, n)));
    return okStatus();
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

    std::string relative(const std::string& path) const {
        const std::string p = directory + "/";
        return path.starts_with(p) ? path.substr(p.size()) : path;
    }

    Status writeState() {
        CheckpointState state;
        std::lock_guard lock(mutex);
        if (!latest) return okStatus();
        state.modelCheckpointPath = relative(*latest);
        for (const auto& [p, t] : maybeDelete) {
            state.allModelCheckpointPaths.push_back(relative(p));
            state.allModelCheckpointTimestamps.push_back(t);
        }
        state.lastPreservedTimestamp = lastPreserved;
        return writeCheckpointState(directory, state);
    }

    Status sweep() {
        std::vector<std::string> victims;
        {
            std::lock_guard lock(mutex);
            if (!options.maxToKeep) return okStatus();
            while (static_cast<int>(maybeDelete.size()) > *options.maxToKeep) {
                auto [path, ts] = maybeDelete.front();
                maybeDelete.erase(maybeDelete.begin());
                if (options.keepCheckpointEveryNHours && ts - *options.keepCheckpointEveryNHours * 3600.0 >= lastPreserved) {
                    lastPreserved = ts;
                    continue;
                }
                victims.push_back(path);
            }
        }
        for (const std::string& p : victims) {
            // Only checkpoints that live directly in the managed directory are deleted.
            if (platform::dirName(p) != directory) continue;
            CKPT_RETURN_IF_ERROR(deleteCheckpointFiles(directory, platform::baseName(p)));
        }
        return okStatus();
    }

    // Runs on the caller's thread (sync) or the writer thread (async).
    Status writeAndRecord(const std::string& prefix, std::vector<SaveTensor> tensors) {
        CKPT_RETURN_IF_ERROR(writeTensors(prefix, std::move(tensors), options.save, writer ? buffers.get() : nullptr).status());
        {
            std::lock_guard lock(mutex);
            std::erase_if(maybeDelete, [&](const auto& e) { return e.first == prefix; });
            maybeDelete.emplace_back(prefix, nowSeconds());
            latest = prefix;
        }
        CKPT_RETURN_IF_ERROR(writeState());
        CKPT_RETURN_IF_ERROR(sweep());
        return writeState();
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
    while (directory.size() > 1 && directory.back() == '/') directory.pop_back();
    std::unique_ptr<CheckpointManager> m(new CheckpointManager());
    m->m_directory = directory;
    m->m_impl = std::make_unique<Impl>();
    Impl& impl = *m->m_impl;
    impl.root = std::move(root);
    impl.options = std::move(options);
    impl.directory = directory;
    CKPT_ASSIGN_OR_RETURN(auto state, readCheckpointState(directory));
    const double now = nowSeconds();
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
    if (impl.options.async) impl.writer = std::make_unique<AsyncWriter>();
    return m;
}

CheckpointManager::~CheckpointManager() {
    if (!m_impl) return;
    const Status s = close();
    if (!s.isOk()) std::cerr << "checkpoint manager for " << m_directory << ": " << s.toString() << "\n";
}

Result<SaveReport> CheckpointManager::save(std::optional<int64_t> checkpointNumber, bool checkInterval) {
    Impl& impl = *m_impl;
    if (impl.closed) return failedPrecondition("checkpoint manager for " + m_directory + " is closed");
    const auto start = std::chrono::steady_clock::now();
    SaveReport report;
    if (impl.options.checkpointInterval) {
        const int64_t step = scalarAsInt(*impl.options.stepCounter);
        if (impl.lastStep && step == *impl.lastStep) return report;
        if (checkInterval && impl.lastStep && step < *impl.lastStep + *impl.options.checkpointInterval) return report;
        impl.lastStep = step;
    }
    CKPT_ASSIGN_OR_RETURN(auto counter, saveCounter(*impl.root));
    int64_t n = scalarAsInt(*counter) + 1;
    for (int r = 0; r < counter->replicas(); ++r) std::memcpy(counter->mutableValue(r).bytes.data(), &n, 8);
    const std::string prefix =
        platform::joinPath(m_directory, impl.options.checkpointName + "-" + std::to_string(checkpointNumber.value_or(n)));
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
            CKPT_RETURN_IF_ERROR(
                impl.writer->submit([&impl, prefix, snap] { return impl.writeAndRecord(prefix, snap->finish()); }));
        } else {
            CKPT_ASSIGN_OR_RETURN(auto tensors, snapshotForSave(*impl.root, *impl.buffers));
            report.tensors = static_cast<int64_t>(tensors.size());
            for (const SaveTensor& t : tensors) report.bytes += t.value.bytes.size();
            auto shared = std::make_shared<std::vector<SaveTensor>>(std::move(tensors));
            CKPT_RETURN_IF_ERROR(
                impl.writer->submit([&impl, prefix, shared] { return impl.writeAndRecord(prefix, std::move(*shared)); }));
        }
        report.blockingSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        return report;
    }
    CKPT_ASSIGN_OR_RETURN(auto tensors, borrowForSave(*impl.root));
    report.tensors = static_cast<int64_t>(tensors.size());
    for (const SaveTensor& t : tensors) report.bytes += t.data().bytes.size();
    report.path = prefix;
    CKPT_RETURN_IF_ERROR(impl.writeAndRecord(prefix, std::move(tensors)));
    report.blockingSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return report;
}

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
    if (latest && platform::pathExists(indexFileName(*latest))) {
        if (!m_impl->options.restore)
            return failedPrecondition("checkpoint " + *latest + " exists but the manager has no restore hook");
        CKPT_RETURN_IF_ERROR(m_impl->options.restore(*latest));
        return std::optional<std::string>(*latest);
    }
    if (m_impl->options.initialize) CKPT_RETURN_IF_ERROR(m_impl->options.initialize());
    return std::optional<std::string>{};
}

}  // namespace ckpt
