// Child processes, one per rank (rank_processes.h).

#include "rank_processes.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <iostream>
#include <mutex>
#include <optional>
#include <thread>

extern char** environ;  // NOLINT(readability-redundant-declaration): posix_spawn passes it on

namespace ckpt::cli {
namespace {

std::mutex g_outputMutex;

// Reads 'fd' to its end: relayed line by line with 'prefix' to 'out', or
// appended to 'keep'.
void pump(int fd, const std::string& prefix, std::ostream* out, std::string* keep) {
    std::string pending;
    char buffer[4096];
    for (;;) {
        const ssize_t n = ::read(fd, buffer, sizeof buffer);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        if (keep) {
            keep->append(buffer, static_cast<size_t>(n));
            continue;
        }
        pending.append(buffer, static_cast<size_t>(n));
        size_t nl = 0;
        while ((nl = pending.find('\n')) != std::string::npos) {
            std::lock_guard lock(g_outputMutex);
            *out << prefix << pending.substr(0, nl + 1) << std::flush;
            pending.erase(0, nl + 1);
        }
    }
    if (!pending.empty() && out) {
        std::lock_guard lock(g_outputMutex);
        *out << prefix << pending << "\n" << std::flush;
    }
    ::close(fd);
}

struct Child {
    pid_t pid = -1;
    bool running = false;
    std::thread out, err;
};

int exitCodeOf(int status) {
    if (WIFEXITED(status)) return WEXITSTATUS(status);
    if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
    return 1;
}

}  // namespace

std::vector<RankExit> runRankProcesses(const std::string& program, const std::vector<std::vector<std::string>>& args,
                                       bool collect, std::chrono::milliseconds rankZeroGrace) {
    std::vector<RankExit> exits(args.size());
    std::vector<Child> children(args.size());
    bool startFailed = false;
    for (size_t i = 0; i < args.size() && !startFailed; ++i) {
        exits[i].rank = static_cast<int>(i);
        int outPipe[2], errPipe[2];
        if (::pipe2(outPipe, O_CLOEXEC) != 0 || ::pipe2(errPipe, O_CLOEXEC) != 0) {
            std::cerr << "ckpt: cannot make a pipe for rank " << i << ": " << std::strerror(errno) << "\n";
            startFailed = true;
            break;
        }
        posix_spawn_file_actions_t actions;
        posix_spawn_file_actions_init(&actions);
        posix_spawn_file_actions_adddup2(&actions, outPipe[1], STDOUT_FILENO);
        posix_spawn_file_actions_adddup2(&actions, errPipe[1], STDERR_FILENO);
        std::vector<std::string> argv = {program};
        argv.insert(argv.end(), args[i].begin(), args[i].end());
        std::vector<char*> cargv;
        for (std::string& a : argv) cargv.push_back(a.data());
        cargv.push_back(nullptr);
        pid_t pid = -1;
        const int rc = posix_spawn(&pid, program.c_str(), &actions, nullptr, cargv.data(), environ);
        posix_spawn_file_actions_destroy(&actions);
        ::close(outPipe[1]);
        ::close(errPipe[1]);
        if (rc != 0) {
            std::cerr << "ckpt: cannot start rank " << i << " (" << program << "): " << std::strerror(rc) << "\n";
            ::close(outPipe[0]);
            ::close(errPipe[0]);
            startFailed = true;
            break;
        }
        Child& c = children[i];
        c.pid = pid;
        c.running = true;
        const std::string prefix = "[rank " + std::to_string(i) + "] ";
        c.out = std::thread(pump, outPipe[0], prefix, &std::cout, collect ? &exits[i].output : nullptr);
        c.err = std::thread(pump, errPipe[0], prefix, &std::cerr, nullptr);
    }
    // Waits for every child; after a failure, rank 0 may run on for the grace
    // (its merger reports which rank failed), then every child still running is stopped.
    std::optional<std::chrono::steady_clock::time_point> stopAt;
    if (startFailed) stopAt = std::chrono::steady_clock::now();
    bool stopped = false;
    for (;;) {
        bool anyRunning = false;
        for (size_t i = 0; i < children.size(); ++i) {
            Child& c = children[i];
            if (!c.running) continue;
            int status = 0;
            const pid_t done = ::waitpid(c.pid, &status, WNOHANG);
            if (done == 0) {
                anyRunning = true;
                continue;
            }
            c.running = false;
            exits[i].exitCode = done == c.pid ? exitCodeOf(status) : 1;
            if (exits[i].exitCode != 0 && !stopAt)
                stopAt = std::chrono::steady_clock::now() + (i == 0 ? std::chrono::milliseconds(0) : rankZeroGrace);
        }
        if (!anyRunning) break;
        const bool rankZeroDone = !children[0].running;
        if (stopAt && !stopped && (rankZeroDone || std::chrono::steady_clock::now() >= *stopAt)) {
            for (Child& c : children)
                if (c.running) ::kill(c.pid, SIGTERM);
            stopped = true;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    for (Child& c : children) {
        if (c.out.joinable()) c.out.join();
        if (c.err.joinable()) c.err.join();
    }
    if (startFailed) return {};
    return exits;
}

}  // namespace ckpt::cli
