#include "engine_call.h"

#include <string>

namespace nb = nanobind;

namespace ckpt::python {
namespace {

constexpr std::chrono::milliseconds kProgressInterval{100};

}  // namespace

PythonProgress::~PythonProgress() = default;

ProgressSink PythonProgress::sink() {
    if (!m_callback.is_valid() || m_callback.is_none()) return {};
    return [this](int64_t done, int64_t total, std::string_view phase) { report(done, total, phase); };
}

void PythonProgress::report(int64_t done, int64_t total, std::string_view phase) {
    {
        std::lock_guard lock(m_mutex);
        const auto now = std::chrono::steady_clock::now();
        if (done < total && now - m_last < kProgressInterval) return;
        m_last = now;
    }
    nb::gil_scoped_acquire gil;
    if (m_error) return;
    try {
        m_callback(done, total, nb::str(phase.data(), phase.size()));
    } catch (nb::python_error& e) {
        m_error.emplace(std::move(e));
        m_token.cancel();
    }
}

void PythonProgress::rethrow() {
    if (m_error) {
        nb::python_error error = std::move(*m_error);
        m_error.reset();
        throw error;
    }
}

}  // namespace ckpt::python
