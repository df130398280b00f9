// Snapshots into reused host buffers: the eager copy an asynchronous save
// blocks on (snapshotForSave with buffers) and the deferred one that copies
// behind the caller's back (DeferredSnapshot).

#include <algorithm>
#include <chrono>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "ckpt/deferred_snapshot.h"
#include "ckpt/save.h"
#include "pipeline/save_graph.h"
#include "platform/parallel.h"

namespace ckpt {
namespace {

// memcpy with non-temporal stores: a snapshot is written once and not read
// again until the writer thread gets to it, so the stores skip the cache
// and the read-for-ownership of every destination line (~15% faster for
// gigabytes on the 2-core dev VM; glibc only streams above ~3/4 of L3).
void streamCopy(uint8_t* to, const uint8_t* from, size_t n) {
#if defined(__SSE2__)
    while (n > 0 && (reinterpret_cast<uintptr_t>(to) & 15) != 0) {
        *to++ = *from++;
        --n;
    }
    for (; n >= 64; n -= 64, to += 64, from += 64) {
        const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(from));
        const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(from + 16));
        const __m128i c = _mm_loadu_si128(reinterpret_cast<const __m128i*>(from + 32));
        const __m128i d = _mm_loadu_si128(reinterpret_cast<const __m128i*>(from + 48));
        _mm_stream_si128(reinterpret_cast<__m128i*>(to), a);
        _mm_stream_si128(reinterpret_cast<__m128i*>(to + 16), b);
        _mm_stream_si128(reinterpret_cast<__m128i*>(to + 32), c);
        _mm_stream_si128(reinterpret_cast<__m128i*>(to + 48), d);
    }
    _mm_sfence();
#endif
    std::memcpy(to, from, n);
}

// Copies every (destination, source, bytes) run on all cores, in pieces
// small enough to balance: one thread copies ~12 GB/s here, two ~18.
struct CopyRun {
    uint8_t* to;
    const uint8_t* from;
    size_t bytes;
};

Status copyInParallel(const std::vector<CopyRun>& runs) {
    constexpr size_t kPiece = size_t{4} << 20;
    std::vector<CopyRun> pieces;
    size_t total = 0;
    for (const CopyRun& r : runs) {
        for (size_t off = 0; off < r.bytes; off += kPiece)
            pieces.push_back({r.to + off, r.from + off, std::min(kPiece, r.bytes - off)});
        total += r.bytes;
    }
    const size_t threads = std::min(platform::hardwareThreads(), std::max<size_t>(1, total / (size_t{16} << 20)));
    return platform::forEachItem(pieces.size(), threads,
                                 [&](size_t, size_t i) { streamCopy(pieces[i].to, pieces[i].from, pieces[i].bytes); });
}

}  // namespace

Result<std::vector<SaveTensor>> snapshotForSave(const Trackable& root, SnapshotBuffers& buffers) {
    CKPT_ASSIGN_OR_RETURN(auto snap, pipeline::collectSaveTensors(root));
    std::vector<CopyRun> runs;
    for (size_t i = 0; i < snap.sources.size(); ++i) {
        const std::vector<uint8_t>& from = snap.sources[i]->bytes;
        if (from.empty()) continue;
        std::vector<uint8_t>& to = snap.tensors[i].value.bytes;
        to = buffers.take(from.size());
        runs.push_back({to.data(), from.data(), from.size()});
    }
    buffers.releaseUnused();
    CKPT_RETURN_IF_ERROR(copyInParallel(runs));
    return std::move(snap.tensors);
}

Result<std::shared_ptr<DeferredSnapshot>> DeferredSnapshot::start(const Trackable& root,
                                                                  std::shared_ptr<SnapshotBuffers> buffers) {
    CKPT_ASSIGN_OR_RETURN(auto collected, pipeline::collectSaveTensors(root));
    std::shared_ptr<DeferredSnapshot> snap(new DeferredSnapshot());
    snap->m_buffers = std::move(buffers);
    snap->m_tensors = std::move(collected.tensors);
    snap->m_tensorCount = static_cast<int64_t>(snap->m_tensors.size());
    snap->m_sources = std::move(collected.sources);
    // One entry per variable with fixed-size bytes; its replicas copy together.
    std::vector<std::vector<size_t>> groups;
    for (size_t i = 0; i < snap->m_sources.size(); ++i) {
        if (snap->m_sources[i]->bytes.empty()) continue;
        auto [it, added] = snap->m_entryOf.try_emplace(collected.owners[i], groups.size());
        if (added) groups.emplace_back();
        groups[it->second].push_back(i);
        snap->m_bytes += snap->m_sources[i]->bytes.size();
    }
    snap->m_entries = std::vector<Entry>(groups.size());
    for (size_t e = 0; e < groups.size(); ++e) snap->m_entries[e].tensors = std::move(groups[e]);
    for (const auto& [variable, e] : snap->m_entryOf) variable->pin(snap);
    return snap;
}

DeferredSnapshot::~DeferredSnapshot() {
    // Abandoned before finish(): what was copied goes back to the pool.
    for (SaveTensor& t : m_tensors) m_buffers->give(std::move(t.value.bytes));
}

void DeferredSnapshot::settle(Entry& entry) {
    uint8_t state = kPending;
    if (entry.state.compare_exchange_strong(state, kCopying, std::memory_order_acquire)) {
        for (size_t i : entry.tensors) {
            const std::vector<uint8_t>& from = m_sources[i]->bytes;
            std::vector<uint8_t>& to = m_tensors[i].value.bytes;
            to = m_buffers->take(from.size());
            streamCopy(to.data(), from.data(), from.size());
        }
        entry.state.store(kCopied, std::memory_order_release);
        entry.state.notify_all();
        return;
    }
    while (state != kCopied) {
        entry.state.wait(state, std::memory_order_acquire);
        state = entry.state.load(std::memory_order_acquire);
    }
}

void DeferredSnapshot::beforeChange(const Variable& variable) {
    auto it = m_entryOf.find(&variable);
    if (it == m_entryOf.end()) return;
    Entry& entry = m_entries[it->second];
    if (entry.state.load(std::memory_order_acquire) == kCopied) return;
    const auto start = std::chrono::steady_clock::now();
    settle(entry);
    m_stallNanoseconds += std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start).count();
}

std::vector<SaveTensor> DeferredSnapshot::finish() {
    // Last variable first: a caller that updates variables in graph order
    // then copies the ones it reaches itself instead of queueing behind this
    // thread's copy, and the two meet in the middle.
    for (auto e = m_entries.rbegin(); e != m_entries.rend(); ++e) settle(*e);
    m_buffers->releaseUnused();
    return std::move(m_tensors);
}

double DeferredSnapshot::stallSeconds() const { return static_cast<double>(m_stallNanoseconds.load()) * 1e-9; }

}  // namespace ckpt
