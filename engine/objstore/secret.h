#pragma once
// A credential value that must never reach output, logs, errors or the
// catalog. It has no stream operator and no conversion to string: only the
// signer and the one request header that carries a session token call
// reveal(). Text that came from a server goes through redact() before it
// becomes part of a message, in case the server echoes what it was sent.

#include <string>
#include <string_view>

namespace ckpt::objstore {

class Secret {
public:
    Secret() = default;
    explicit Secret(std::string value) : m_value(std::move(value)) {}
    Secret(const Secret&) = default;
    Secret& operator=(const Secret&) = default;
    Secret(Secret&&) noexcept = default;
    Secret& operator=(Secret&&) noexcept = default;
    ~Secret();

    bool empty() const { return m_value.empty(); }
    const std::string& reveal() const { return m_value; }

private:
    std::string m_value;
};

// 'text' with every occurrence of a non-empty secret replaced by "[redacted]".
std::string redact(std::string text, const Secret& a, const Secret& b = Secret());

}  // namespace ckpt::objstore
