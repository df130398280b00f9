#include "storage/blob_cache.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <random>
#include <vector>

#include "platform/crc32c.h"
#include "platform/digest.h"
#include "storage/local_storage.h"

namespace ckpt::storage {

namespace {

// "CKPTBC01", key length, tag length, bytes length, then key, tag, bytes,
// then the masked crc32c of everything before it.
constexpr char kMagic[8] = {'C', 'K', 'P', 'T', 'B', 'C', '0', '1'};
constexpr size_t kHeaderBytes = sizeof kMagic + 4 + 4 + 8;
constexpr size_t kTrailerBytes = 4;
constexpr std::string_view kEntrySuffix = ".entry";
constexpr std::string_view kTempPrefix = "tmp-";
// A temporary file this old belongs to a writer that was killed.
constexpr std::chrono::hours kStaleTemp{1};

void putU32(std::string& out, uint32_t v) {
    for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}
void putU64(std::string& out, uint64_t v) {
    for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}
uint64_t getLe(const char* p, int n) {
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; --i) v = (v << 8) | static_cast<uint8_t>(p[i]);
    return v;
}

bool writeAll(int fd, std::string_view data) {
    while (!data.empty()) {
        const ssize_t n = ::write(fd, data.data(), data.size());
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        data.remove_prefix(static_cast<size_t>(n));
    }
    return true;
}

// Creates 'dir' and its missing parents with mode 0700.
Status makeDirectories(const std::string& dir) {
    if (dir.empty()) return invalidArgument("an empty cache directory");
    struct stat st {};
    if (::stat(dir.c_str(), &st) == 0) {
        if (!S_ISDIR(st.st_mode)) return {StatusCode::AlreadyExists, dir + " exists and is not a directory"};
        return okStatus();
    }
    const size_t slash = dir.find_last_of('/');
    if (slash != std::string::npos && slash > 0) CKPT_RETURN_IF_ERROR(makeDirectories(dir.substr(0, slash)));
    if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) return ioError("cannot create cache directory", dir, errno);
    return okStatus();
}

}  // namespace

Result<std::shared_ptr<BlobCache>> BlobCache::open(const std::string& directory, uint64_t maxBytes) {
    CKPT_RETURN_IF_ERROR(makeDirectories(directory));
    std::shared_ptr<BlobCache> cache(new BlobCache(directory, maxBytes));
    // A directory we cannot write into is no cache: say so now, not at the
    // first put.
    const std::string probe = directory + "/" + std::string(kTempPrefix) + "probe-" + std::to_string(::getpid());
    const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0) return ioError("cannot write into cache directory", directory, errno);
    ::close(fd);
    ::unlink(probe.c_str());
    {
        std::lock_guard lock(cache->m_mutex);
        cache->trim();
    }
    return cache;
}

std::string BlobCache::pathOf(std::string_view key) const {
    return m_directory + "/" + platform::sha256Hex(key) + std::string(kEntrySuffix);
}

std::optional<BlobCache::Entry> BlobCache::get(std::string_view key) {
    if (key.size() > kMaxKeyBytes) return std::nullopt;
    const std::string path = pathOf(key);
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) return std::nullopt;
    struct stat st {};
    std::string data;
    bool whole = false;
    // Over this process's bound (another process may use a larger one):
    // not read, and left alone.
    const uint64_t limit = kHeaderBytes + kMaxKeyBytes + kMaxTagBytes + maxEntryBytes() + kTrailerBytes;
    const bool tooLarge = ::fstat(fd, &st) == 0 && static_cast<uint64_t>(st.st_size) > limit;
    if (!tooLarge && S_ISREG(st.st_mode)) {
        data.resize(static_cast<size_t>(st.st_size));
        size_t got = 0;
        while (got < data.size()) {
            const ssize_t n = ::pread(fd, data.data() + got, data.size() - got, static_cast<off_t>(got));
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) break;
            got += static_cast<size_t>(n);
        }
        whole = got == data.size();
    }
    // A hit is recent use: least recently used entries go first.
    auto valid = [&]() -> std::optional<Entry> {
        if (!whole || data.size() < kHeaderBytes + kTrailerBytes || std::memcmp(data.data(), kMagic, sizeof kMagic) != 0)
            return std::nullopt;
        const uint64_t keyLen = getLe(data.data() + 8, 4), tagLen = getLe(data.data() + 12, 4);
        const uint64_t bytesLen = getLe(data.data() + 16, 8);
        if (keyLen > kMaxKeyBytes || tagLen > kMaxTagBytes || bytesLen > data.size() ||
            kHeaderBytes + keyLen + tagLen + bytesLen + kTrailerBytes != data.size())
            return std::nullopt;
        const size_t body = data.size() - kTrailerBytes;
        const uint32_t stored = static_cast<uint32_t>(getLe(data.data() + body, 4));
        if (platform::crc32cUnmask(stored) != platform::crc32c(data.data(), body)) return std::nullopt;
        if (std::string_view(data).substr(kHeaderBytes, keyLen) != key) return std::nullopt;  // a hash collision
        Entry e;
        e.tag = data.substr(kHeaderBytes + keyLen, tagLen);
        e.bytes = data.substr(kHeaderBytes + keyLen + tagLen, bytesLen);
        return e;
    }();
    if (valid) ::futimens(fd, nullptr);
    ::close(fd);
    // Damaged (a flipped byte, a torn write, a foreign file): never served,
    // and removed so the next put replaces it.
    if (!valid && !tooLarge) ::unlink(path.c_str());
    return valid;
}

void BlobCache::put(std::string_view key, std::string_view tag, std::string_view bytes) {
    if (!m_writable.load() || key.size() > kMaxKeyBytes || tag.size() > kMaxTagBytes || bytes.size() > maxEntryBytes()) return;
    const Status s = write(pathOf(key), key, tag, bytes);
    std::lock_guard lock(m_mutex);
    if (!s.isOk()) {
        m_writable = false;
        if (m_warning.empty()) m_warning = "the object cache stopped writing: " + s.message();
        return;
    }
    m_estimate += kHeaderBytes + key.size() + tag.size() + bytes.size() + kTrailerBytes;
    if (++m_putsSinceScan >= kRescanPuts || m_estimate > m_maxBytes) trim();
}

std::string BlobCache::warning() const {
    std::lock_guard lock(m_mutex);
    return m_warning;
}

Status BlobCache::write(const std::string& path, std::string_view key, std::string_view tag, std::string_view bytes) {
    std::string head(kMagic, sizeof kMagic);
    putU32(head, static_cast<uint32_t>(key.size()));
    putU32(head, static_cast<uint32_t>(tag.size()));
    putU64(head, bytes.size());
    head.append(key);
    head.append(tag);
    uint32_t crc = platform::crc32cExtend(platform::crc32c(head), bytes.data(), bytes.size());
    std::string trailer;
    putU32(trailer, platform::crc32cMask(crc));

    thread_local std::mt19937_64 rng{std::random_device{}()};
    const std::string temp =
        m_directory + "/" + std::string(kTempPrefix) + std::to_string(::getpid()) + "-" + std::to_string(rng());
    const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0) return ioError("cannot write cache entry", temp, errno);
    const bool ok = writeAll(fd, head) && writeAll(fd, bytes) && writeAll(fd, trailer);
    const int err = errno;
    if (::close(fd) != 0 || !ok) {
        ::unlink(temp.c_str());
        return ioError("cannot write cache entry", temp, ok ? errno : err);
    }
    // No fsync: a cache entry torn by a crash fails its checksum and is refetched.
    if (::rename(temp.c_str(), path.c_str()) != 0) {
        const int renameErr = errno;
        ::unlink(temp.c_str());
        return ioError("cannot write cache entry", path, renameErr);
    }
    return okStatus();
}

void BlobCache::trim() {
    struct Item {
        std::string path;
        uint64_t size;
        int64_t usedNs;
    };
    std::vector<Item> items;
    uint64_t total = 0;
    DIR* dir = ::opendir(m_directory.c_str());
    if (dir == nullptr) return;
    const auto now = std::chrono::system_clock::now();
    while (const dirent* e = ::readdir(dir)) {
        const std::string_view name(e->d_name);
        const bool entry = name.size() > kEntrySuffix.size() && name.substr(name.size() - kEntrySuffix.size()) == kEntrySuffix;
        const bool temp = name.substr(0, kTempPrefix.size()) == kTempPrefix;
        if (!entry && !temp) continue;
        struct stat st {};
        if (::fstatat(::dirfd(dir), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode)) continue;
        const std::string path = m_directory + "/" + std::string(name);
        if (temp) {
            const auto modified = std::chrono::system_clock::time_point(std::chrono::seconds(st.st_mtim.tv_sec));
            if (now - modified > kStaleTemp) ::unlink(path.c_str());
            continue;
        }
        total += static_cast<uint64_t>(st.st_size);
        items.push_back(
            {path, static_cast<uint64_t>(st.st_size), static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec});
    }
    ::closedir(dir);
    if (total > m_maxBytes) {
        std::sort(items.begin(), items.end(), [](const Item& a, const Item& b) { return a.usedNs < b.usedNs; });
        for (const Item& item : items) {
            if (total <= m_maxBytes) break;
            ::unlink(item.path.c_str());
            total -= item.size;
        }
    }
    m_estimate = total;
    m_putsSinceScan = 0;
}

}  // namespace ckpt::storage
