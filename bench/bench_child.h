#pragma once
// Running a measured child process: a benchmark times each operation in a
// fresh process, so that its peak RSS (wait4's rusage) is the operation's
// own and its wall time includes what a user's command pays.
//
// "Its own" needs care on Linux: a new process's high-water mark starts at
// its creator's. exec records the replaced address space's peak, so a
// posix_spawn (vfork) child inherits the benchmark's *peak* RSS, and a
// fork child its current one: a benchmark that once held 300 MB would
// report every later command as at least 300 MB. So commands are started
// by a launcher forked at the top of main(), while the benchmark is small
// (startLauncher); it forks and execs each command and answers with
// wait4's figures.

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "bench_timing.h"

extern char** environ;

namespace ckpt::bench {

struct ChildResult {
    int exitCode = -1;  // -1: could not start, or did not exit normally
    double wallMs = 0;
    double cpuMs = 0;  // user + system, the child's own
    double maxRssMb = 0;
    std::string out;
};

namespace launcher_detail {

inline int& socketFd() {
    static int fd = -1;
    return fd;
}

// All n bytes through read() or write(), resuming after short transfers
// and interrupted calls.
template <typename Io, typename Byte>
bool transferAll(Io io, int fd, Byte* p, size_t n) {
    while (n > 0) {
        const ssize_t done = io(fd, p, n);
        if (done < 0 && errno == EINTR) continue;
        if (done <= 0) return false;
        p += done;
        n -= static_cast<size_t>(done);
    }
    return true;
}

inline bool writeAll(int fd, const void* data, size_t n) { return transferAll(::write, fd, static_cast<const char*>(data), n); }
inline bool readAll(int fd, void* data, size_t n) { return transferAll(::read, fd, static_cast<char*>(data), n); }

// One descriptor rides with a one-byte message (SCM_RIGHTS).
inline bool sendFd(int sock, int fd) {
    char byte = 'R';
    iovec iov{&byte, 1};
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
    cmsghdr* c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    std::memcpy(CMSG_DATA(c), &fd, sizeof fd);
    return ::sendmsg(sock, &msg, 0) == 1;
}

inline int receiveFd(int sock) {
    char byte = 0;
    iovec iov{&byte, 1};
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
    if (::recvmsg(sock, &msg, 0) != 1) return -1;
    const cmsghdr* c = CMSG_FIRSTHDR(&msg);
    if (!c || c->cmsg_type != SCM_RIGHTS) return -1;
    int fd = -1;
    std::memcpy(&fd, CMSG_DATA(c), sizeof fd);
    return fd;
}

// A request: argv and the environment as NUL-terminated strings, with the
// number of argv strings first (the caller's environment changes between
// commands, e.g. XDG_DATA_HOME).
struct Reply {
    int32_t status = -1;  // wait status, or -1: fork failed
    double wallMs = 0;
    rusage usage{};
};

[[noreturn]] inline void serve(int sock) {
    for (;;) {
        const int out = receiveFd(sock);
        uint64_t size = 0;
        uint32_t argc = 0;
        if (out < 0 || !readAll(sock, &argc, sizeof argc) || !readAll(sock, &size, sizeof size) || size > (64u << 20))
            ::_exit(0);  // the benchmark has gone
        std::string blob(size, '\0');
        if (!readAll(sock, blob.data(), size)) ::_exit(0);
        std::vector<char*> strings;
        for (size_t at = 0; at < blob.size(); at += std::strlen(blob.data() + at) + 1) strings.push_back(blob.data() + at);
        if (argc == 0 || argc > strings.size()) ::_exit(0);
        std::vector<char*> argv(strings.begin(), strings.begin() + argc), env(strings.begin() + argc, strings.end());
        argv.push_back(nullptr);
        env.push_back(nullptr);
        Reply reply;
        const auto start = Clock::now();
        const pid_t pid = ::fork();
        if (pid == 0) {
            ::dup2(out, STDOUT_FILENO);
            ::close(out);
            ::close(sock);
            ::execve(argv[0], argv.data(), env.data());
            ::_exit(127);
        }
        ::close(out);
        if (pid > 0 && ::wait4(pid, &reply.status, 0, &reply.usage) < 0) reply.status = -1;
        reply.wallMs = secondsSince(start) * 1e3;
        if (!writeAll(sock, &reply, sizeof reply)) ::_exit(0);
    }
}

}  // namespace launcher_detail

// Forks the launcher. Call first thing in main(), before the benchmark
// allocates: the launcher's size is every measured command's floor.
inline void startLauncher() {
    int& fd = launcher_detail::socketFd();
    if (fd >= 0) return;
    int pair[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0) return;
    const pid_t pid = ::fork();
    if (pid == 0) {
        ::close(pair[0]);
        launcher_detail::serve(pair[1]);
    }
    ::close(pair[1]);
    if (pid < 0) {
        ::close(pair[0]);
        return;
    }
    fd = pair[0];
}

enum class Stdout { capture, discard };

// Runs argv (argv[0] a path) with stdout captured or sent to /dev/null
// (stderr passes through), through the launcher (started here if main()
// did not, which makes this process's size the floor).
inline ChildResult runChild(const std::vector<std::string>& args, Stdout stdoutMode = Stdout::capture) {
    using namespace launcher_detail;
    ChildResult r;
    startLauncher();
    const int sock = socketFd();
    if (args.empty() || sock < 0) return r;
    int pipeFds[2] = {-1, -1};
    if (stdoutMode == Stdout::capture ? ::pipe2(pipeFds, O_CLOEXEC) != 0
                                      : (pipeFds[1] = ::open("/dev/null", O_WRONLY | O_CLOEXEC)) < 0)
        return r;
    std::string blob;
    for (const std::string& a : args) blob.append(a.c_str(), a.size() + 1);
    for (char** e = environ; *e; ++e) blob.append(*e, std::strlen(*e) + 1);
    const auto argc = static_cast<uint32_t>(args.size());
    const uint64_t size = blob.size();
    const bool sent = sendFd(sock, pipeFds[1]) && writeAll(sock, &argc, sizeof argc) && writeAll(sock, &size, sizeof size) &&
                      writeAll(sock, blob.data(), blob.size());
    ::close(pipeFds[1]);
    if (pipeFds[0] >= 0) {
        char buf[65536];
        for (ssize_t n; sent && (n = ::read(pipeFds[0], buf, sizeof buf)) > 0;) r.out.append(buf, static_cast<size_t>(n));
        ::close(pipeFds[0]);
    }
    Reply reply;
    if (!sent || !readAll(sock, &reply, sizeof reply) || reply.status == -1) return r;
    r.wallMs = reply.wallMs;
    r.cpuMs = cpuSecondsOf(reply.usage) * 1e3;
    r.exitCode = WIFEXITED(reply.status) ? WEXITSTATUS(reply.status) : -1;
    r.maxRssMb = static_cast<double>(reply.usage.ru_maxrss) / 1024.0;  // KiB on Linux
    return r;
}

inline std::string selfPath() { return std::filesystem::read_symlink("/proc/self/exe").string(); }

}  // namespace ckpt::bench
