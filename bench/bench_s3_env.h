#pragma once
// The loopback S3 server of scripts/s3-server.sh for the object-storage
// benchmarks: its env file (endpoint, keys, region, bucket) read and made
// this process's environment, so the engine's clients and the `ckpt` and
// `curl` children use it; HOME points at the scratch directory, so no
// ~/.aws file of the user's is read.

#include <cstdlib>
#include <fstream>
#include <map>
#include <optional>
#include <string>

namespace ckpt::bench {

// The variables of STATE/env, now set in the environment; nullopt when the
// file is missing or names no endpoint (the server was not started).
inline std::optional<std::map<std::string, std::string>> useS3TestServer(const std::string& state, const std::string& home) {
    std::map<std::string, std::string> kv;
    std::ifstream f(state + "/env");
    for (std::string line; std::getline(f, line);) {
        const size_t eq = line.find('=');
        if (eq != std::string::npos) kv[line.substr(0, eq)] = line.substr(eq + 1);
    }
    if (kv.count("AWS_ENDPOINT_URL") == 0) return std::nullopt;
    for (const auto& [k, v] : kv) ::setenv(k.c_str(), v.c_str(), 1);
    ::setenv("HOME", home.c_str(), 1);
    return kv;
}

}  // namespace ckpt::bench
