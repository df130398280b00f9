#include "ckpt/snapshot_buffers.h"

namespace ckpt {

std::vector<uint8_t> SnapshotBuffers::take(size_t n) {
    {
        std::lock_guard lock(m_mutex);
        auto it = m_free.find(n);
        if (it != m_free.end()) {
            std::vector<uint8_t> b = std::move(it->second);
            m_free.erase(it);
            return b;
        }
    }
    return std::vector<uint8_t>(n);
}

void SnapshotBuffers::give(std::vector<uint8_t> buffer) {
    if (buffer.empty()) return;
    std::lock_guard lock(m_mutex);
    const size_t n = buffer.size();
    m_free.emplace(n, std::move(buffer));
}

void SnapshotBuffers::releaseUnused() {
    std::lock_guard lock(m_mutex);
    m_free.clear();
}

size_t SnapshotBuffers::bytesHeld() const {
    std::lock_guard lock(m_mutex);
    size_t total = 0;
    for (const auto& [n, b] : m_free) total += n;
    return total;
}

}  // namespace ckpt
