// The machine's physical limits, measured beside the benchmarks' figures so
// that each figure can be read as a fraction of what the hardware allows in
// the same run (docs/benchmarks.md "Limits"): reading a warm file through
// the page cache (cat), crc32c on one core and on every core (the engine's
// own crc32c), memcpy between two large buffers, and writing a file with
// fsync (as dd conv=fsync). Medians of --repeat runs, with the load average.
//   bench_limits [SCRATCH_DIR] [--mib N] [--repeat R]

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "bench_child.h"
#include "bench_timing.h"
#include "platform/crc32c.h"

namespace fs = std::filesystem;
using namespace ckpt;

namespace {

[[noreturn]] void die(const std::string& message) {
    std::fprintf(stderr, "bench_limits: %s\n", message.c_str());
    std::exit(2);
}

void fillRandom(std::vector<uint8_t>& buf) {
    uint64_t s = 0x9e3779b97f4a7c15ull;
    for (size_t i = 0; i + 8 <= buf.size(); i += 8) {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        std::memcpy(buf.data() + i, &s, 8);
    }
}

template <typename Fn>
double medianSeconds(int repeat, Fn&& fn) {
    return bench::timed(repeat, std::forward<Fn>(fn)).second;
}

// Writes 'buf' to a new 'path' in 8 MiB writes, then fsyncs (as dd conv=fsync).
void writeSynced(const std::string& path, const std::vector<uint8_t>& buf) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) die("cannot create " + path);
    for (size_t done = 0; done < buf.size();) {
        const ssize_t n = ::write(fd, buf.data() + done, std::min<size_t>(8u << 20, buf.size() - done));
        if (n <= 0) die("cannot write " + path);
        done += static_cast<size_t>(n);
    }
    if (::fsync(fd) != 0 || ::close(fd) != 0) die("cannot sync " + path);
}

}  // namespace

int main(int argc, char** argv) {
    ckpt::bench::startLauncher();  // while this process is small: see bench_child.h
    std::string scratch = std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp";
    size_t mib = 1024;
    int repeat = 3;
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--mib") == 0 && i + 1 < argc) mib = static_cast<size_t>(std::atoll(argv[++i]));
        else if (std::strcmp(argv[i], "--repeat") == 0 && i + 1 < argc) repeat = std::atoi(argv[++i]);
        else scratch = argv[i];
    }
    if (mib < 16 || repeat < 1) die("--mib must be 16 or more, --repeat positive");
    const std::string path = scratch + "/bench_limits_" + std::to_string(::getpid());
    const double bytes = static_cast<double>(mib) * (1 << 20);
    std::vector<uint8_t> buf(mib << 20), copy(mib << 20, 1);
    fillRandom(buf);

    const double write = medianSeconds(repeat, [&] { writeSynced(path, buf); });
    std::string cat = "cat '" + path + "' > /dev/null";
    (void)bench::runChild({"/bin/sh", "-c", cat});  // warm
    std::vector<double> catSeconds;
    for (int i = 0; i < repeat; ++i) catSeconds.push_back(bench::runChild({"/bin/sh", "-c", cat}).wallMs / 1e3);
    fs::remove(path);

    const double memcpySeconds = medianSeconds(repeat, [&] {
        std::memcpy(copy.data(), buf.data(), buf.size());
        asm volatile("" ::"r"(copy.data()) : "memory");
    });
    uint32_t sink = 0;
    const double crcMemory = medianSeconds(repeat, [&] { sink ^= platform::crc32c(buf.data(), buf.size()); });
    constexpr size_t kCached = 256u << 10;  // stays in L2
    const size_t passes = buf.size() / kCached;
    const double crcCached = medianSeconds(repeat, [&] {
        for (size_t i = 0; i < passes; ++i) sink ^= platform::crc32c(buf.data(), kCached);
    });
    const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    const size_t part = buf.size() / cores;
    const double crcAll = medianSeconds(repeat, [&] {
        std::vector<std::thread> threads;
        for (unsigned t = 0; t < cores; ++t)
            threads.emplace_back([&, t] {
                const uint32_t c = platform::crc32c(buf.data() + t * part, part);
                asm volatile("" ::"r"(c));
            });
        for (auto& th : threads) th.join();
    });

    const double catGbps = bytes / bench::median(catSeconds) / 1e9;
    std::printf("limits: %u CPUs, %zu MiB, medians of %d; load average %s", cores, mib, repeat, bench::loadAverage().c_str());
    std::printf("  %-46s %7.2f GB/s\n", "page-cache read (cat of a warm file)", catGbps);
    std::printf("  %-46s %7.2f GB/s\n", "memcpy (one thread, memory to memory)", bytes / memcpySeconds / 1e9);
    std::printf("  %-46s %7.2f GB/s  (%s)\n", "crc32c, one core, from memory", bytes / crcMemory / 1e9,
                platform::crc32cIsHardwareAccelerated() ? "SSE4.2" : "table");
    std::printf("  %-46s %7.2f GB/s\n", "crc32c, one core, 256 KiB in L2",
                static_cast<double>(passes * kCached) / crcCached / 1e9);
    std::printf("  %-46s %7.2f GB/s  (%u threads)\n", "crc32c, every core", static_cast<double>(part * cores) / crcAll / 1e9,
                cores);
    std::printf("  %-46s %7.2f GB/s\n", "write + fsync (as dd conv=fsync)", bytes / write / 1e9);
    std::printf("limits: %u\n", sink & 1u);  // keeps the checksums
    return 0;
}
