#pragma once
// Running a measured child process: a benchmark times each operation in a
// fresh process, so that its peak RSS (wait4's rusage) is the operation's
// own and its wall time includes what a user's command pays.

#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "bench_timing.h"

extern char** environ;

namespace ckpt::bench {

struct ChildResult {
    int exitCode = -1;
    double wallMs = 0;
    double cpuMs = 0;  // user + system, the child's own
    double maxRssMb = 0;
    std::string out;
};

// Runs argv with stdout captured (stderr passes through); exitCode -1 when
// it could not start or did not exit normally.
inline ChildResult runChild(const std::vector<std::string>& args) {
    ChildResult r;
    int pipeFds[2] = {-1, -1};
    if (args.empty() || ::pipe(pipeFds) != 0) return r;
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, pipeFds[1], STDOUT_FILENO);
    posix_spawn_file_actions_addclose(&actions, pipeFds[0]);
    std::vector<char*> argv;
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    pid_t pid = 0;
    const auto start = Clock::now();
    const int spawned = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    ::close(pipeFds[1]);
    if (spawned != 0) {
        ::close(pipeFds[0]);
        return r;
    }
    char buf[65536];
    for (ssize_t n; (n = ::read(pipeFds[0], buf, sizeof buf)) > 0;) r.out.append(buf, static_cast<size_t>(n));
    ::close(pipeFds[0]);
    int status = 0;
    struct rusage usage {};
    if (::wait4(pid, &status, 0, &usage) < 0) return r;
    r.wallMs = secondsSince(start) * 1e3;
    r.cpuMs = cpuSecondsOf(usage) * 1e3;
    r.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.maxRssMb = static_cast<double>(usage.ru_maxrss) / 1024.0;  // KiB on Linux
    return r;
}

inline std::string selfPath() { return std::filesystem::read_symlink("/proc/self/exe").string(); }

}  // namespace ckpt::bench
