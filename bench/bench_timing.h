#pragma once
// What every benchmark times with: seconds on the monotonic clock, and the
// best and median of repeated runs (these machines are noisy: a figure is
// a median, a target a ratio measured in the same process).

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

namespace ckpt::bench {

using Clock = std::chrono::steady_clock;

inline double secondsSince(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

// The median of timings (the mean of the middle two for an even count).
inline double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

// Best and median of 'runs' timings of fn().
template <typename Fn>
std::pair<double, double> timed(int runs, Fn&& fn) {
    std::vector<double> t;
    for (int i = 0; i < runs; ++i) {
        const auto start = Clock::now();
        fn();
        t.push_back(secondsSince(start));
    }
    std::sort(t.begin(), t.end());
    return {t.front(), t[t.size() / 2]};
}

// User + system CPU seconds of a getrusage() or wait4() answer.
inline double cpuSecondsOf(const rusage& u) {
    return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
           static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1e-6;
}

// ... of this process (who = RUSAGE_SELF, threads included) or of its
// waited-for children (RUSAGE_CHILDREN).
inline double cpuSeconds(int who) {
    rusage u{};
    ::getrusage(who, &u);
    return cpuSecondsOf(u);
}

// "1.23 0.98 0.70\n": the 1, 5 and 15 minute load averages (/proc/loadavg),
// printed beside figures taken on a shared machine; "?\n" elsewhere.
inline std::string loadAverage() {
    std::ifstream in("/proc/loadavg");
    std::string one, five, fifteen;
    if (!(in >> one >> five >> fifteen)) return "?\n";
    return one + " " + five + " " + fifteen + "\n";
}

}  // namespace ckpt::bench
