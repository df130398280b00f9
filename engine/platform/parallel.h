#pragma once
// The engine's one way to spread work over threads.
//  - Worker 0 is always the calling thread, so one worker costs no thread.
//  - A thread that cannot be started (std::system_error) costs parallelism,
//    not work: its share runs on the calling thread once worker 0 is done,
//    as pipeline/writable_file.cpp writes in line when it gets no thread.
//  - Work must not throw. If it does anyway (std::bad_alloc), the exception
//    is caught on its own thread and comes back as an Internal Status: none
//    escapes the engine, none terminates the process.

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>

#include "ckpt/status.h"

namespace ckpt::platform {

// One per hardware thread, at least 1: what "0 threads" in an option means.
size_t hardwareThreads();
// 'requested' when positive, else hardwareThreads().
size_t threadsOrDefault(int requested);

// Runs body(worker) for every worker in [0, workers) (at least one) at the
// same time; returns when all have finished.
Status runWorkers(size_t workers, const std::function<void(size_t worker)>& body);

// Items of uneven cost: each worker takes the next item nobody has taken
// yet, in order, and calls body(worker, item). No more workers than items.
template <typename Body>
Status forEachItem(size_t items, size_t workers, Body&& body) {
    std::atomic<size_t> next{0};
    return runWorkers(std::min(workers, std::max<size_t>(1, items)), [&](size_t worker) {
        for (size_t i = next++; i < items; i = next++) body(worker, i);
    });
}

// Work of even cost: [0, total) in 'workers' contiguous runs, worker w
// calling body(w, total * w / workers, total * (w + 1) / workers) once.
template <typename Body>
Status forEachRange(int64_t total, size_t workers, Body&& body) {
    const auto n = static_cast<int64_t>(std::max<size_t>(1, workers));
    return runWorkers(static_cast<size_t>(n), [&](size_t worker) {
        const auto w = static_cast<int64_t>(worker);
        body(worker, total * w / n, total * (w + 1) / n);
    });
}

}  // namespace ckpt::platform
