#include "platform/file.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <utility>
#include <vector>

#include "platform/crc32c.h"

namespace ckpt::platform {

std::string errnoText(int err) { return std::strerror(err); }

Status statusFromErrno(int err, const std::string& message) {
    StatusCode code = StatusCode::DataLoss;
    switch (err) {
    case ENOENT:
    case ENOTDIR: code = StatusCode::NotFound; break;
    case EACCES:
    case EPERM:
    case EROFS: code = StatusCode::PermissionDenied; break;
    case ENOSPC:
    case EDQUOT:
    case ENOMEM:
    case EMFILE: code = StatusCode::ResourceExhausted; break;
    default: break;
    }
    return {code, message + ": " + errnoText(err)};
}

namespace {
Status ioError(const std::string& what, const std::string& path, int err) { return statusFromErrno(err, what + " " + path); }
}  // namespace

Result<std::unique_ptr<RandomAccessFile>> RandomAccessFile::open(const std::string& path) {
    // O_NONBLOCK: opening a FIFO that has no writer would otherwise block
    // forever. It changes nothing for regular files, the only kind read.
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) return ioError("cannot open", path, errno);
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
        const int err = errno;
        ::close(fd);
        return ioError("cannot stat", path, err);
    }
    if (S_ISDIR(st.st_mode)) {
        ::close(fd);
        return invalidArgument(path + " is a directory, expected a file");
    }
    if (!S_ISREG(st.st_mode)) {
        ::close(fd);
        const char* kind = S_ISFIFO(st.st_mode) ? "a FIFO" : S_ISSOCK(st.st_mode) ? "a socket" : "a device";
        return invalidArgument(path + " is " + kind + ", expected a regular file");
    }
    return std::unique_ptr<RandomAccessFile>(new RandomAccessFile(path, fd, static_cast<uint64_t>(st.st_size)));
}

RandomAccessFile::~RandomAccessFile() { ::close(m_fd); }

Status RandomAccessFile::readExact(uint64_t offset, size_t n, void* out) const {
    if (offset > m_size || n > m_size - offset)
        return dataLoss("read of " + std::to_string(n) + " bytes at offset " + std::to_string(offset) + " is past the end of " +
                        m_path + " (" + std::to_string(m_size) + " bytes)");
    auto* dst = static_cast<char*>(out);
    size_t done = 0;
    while (done < n) {
        const ssize_t got = ::pread(m_fd, dst + done, n - done, static_cast<off_t>(offset + done));
        if (got < 0) {
            if (errno == EINTR) continue;
            return ioError("read failed on", m_path, errno);
        }
        if (got == 0) return dataLoss(m_path + " ended early at byte " + std::to_string(offset + done));
        done += static_cast<size_t>(got);
    }
    return okStatus();
}

void RandomAccessFile::adviseSequential(uint64_t offset, uint64_t n) const {
    ::posix_fadvise(m_fd, static_cast<off_t>(offset), static_cast<off_t>(n), POSIX_FADV_SEQUENTIAL);
}

MappedView::~MappedView() {
    if (m_base) ::munmap(m_base, m_length);
}

void MappedView::swap(MappedView& other) noexcept {
    std::swap(m_base, other.m_base);
    std::swap(m_length, other.m_length);
    std::swap(m_data, other.m_data);
    std::swap(m_size, other.m_size);
}

Result<MappedView> RandomAccessFile::mapSequential(uint64_t offset, size_t n) const {
    struct stat st {};
    if (::fstat(m_fd, &st) != 0) return ioError("cannot stat", m_path, errno);
    const auto current = static_cast<uint64_t>(st.st_size);
    if (offset > current || n > current - offset)
        return dataLoss("mapping of " + std::to_string(n) + " bytes at offset " + std::to_string(offset) +
                        " is past the end of " + m_path + " (" + std::to_string(current) + " bytes)");
    MappedView view;
    if (n == 0) return view;
    static const uint64_t kPage = static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
    const uint64_t start = offset - offset % kPage;
    const size_t length = static_cast<size_t>(offset - start) + n;
    void* base = ::mmap(nullptr, length, PROT_READ, MAP_SHARED | MAP_POPULATE, m_fd, static_cast<off_t>(start));
    if (base == MAP_FAILED) return ioError("cannot map", m_path, errno);
    ::madvise(base, length, MADV_SEQUENTIAL);
    view.m_base = base;
    view.m_length = length;
    view.m_data = static_cast<const uint8_t*>(base) + (offset - start);
    view.m_size = n;
    return view;
}

bool pathExists(const std::string& path) {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0;
}

bool entryExists(const std::string& path) {
    struct stat st {};
    return ::lstat(path.c_str(), &st) == 0;
}

Result<std::vector<std::string>> listDirectory(const std::string& dir) {
    DIR* d = ::opendir(dir.empty() ? "." : dir.c_str());
    if (!d) return statusFromErrno(errno, "cannot list " + dir);
    std::vector<std::string> names;
    while (const dirent* e = ::readdir(d)) {
        const std::string_view n = e->d_name;
        if (n != "." && n != "..") names.emplace_back(n);
    }
    ::closedir(d);
    return names;
}

bool isDirectory(const std::string& path) {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

Result<uint64_t> fileSize(const std::string& path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) return ioError("cannot stat", path, errno);
    return static_cast<uint64_t>(st.st_size);
}

Result<std::string> readSmallFile(const std::string& path, size_t maxBytes) {
    CKPT_ASSIGN_OR_RETURN(auto file, RandomAccessFile::open(path));
    if (file->size() > maxBytes)
        return invalidArgument(path + " is " + std::to_string(file->size()) + " bytes, more than the " +
                               std::to_string(maxBytes) + " expected for this kind of file");
    std::string data(file->size(), '\0');
    CKPT_RETURN_IF_ERROR(file->readExact(0, data.size(), data.data()));
    return data;
}

Result<uint32_t> fileCrc32c(const RandomAccessFile& file) {
    constexpr size_t kChunk = 1u << 20;
    std::vector<char> buffer(static_cast<size_t>(std::min<uint64_t>(kChunk, file.size())));
    uint32_t crc = 0;
    for (uint64_t offset = 0; offset < file.size();) {
        const size_t n = static_cast<size_t>(std::min<uint64_t>(kChunk, file.size() - offset));
        CKPT_RETURN_IF_ERROR(file.readExact(offset, n, buffer.data()));
        crc = crc32cExtend(crc, buffer.data(), n);
        offset += n;
    }
    return crc;
}

std::string baseName(std::string_view path) {
    while (path.size() > 1 && path.back() == '/') path.remove_suffix(1);
    const auto slash = path.rfind('/');
    return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

std::string dirName(std::string_view path) {
    while (path.size() > 1 && path.back() == '/') path.remove_suffix(1);
    const auto slash = path.rfind('/');
    if (slash == std::string_view::npos) return ".";
    if (slash == 0) return "/";
    return std::string(path.substr(0, slash));
}

std::string canonicalPath(const std::string& path) {
    std::error_code ec;
    std::filesystem::path p = std::filesystem::weakly_canonical(std::filesystem::absolute(path, ec), ec);
    if (ec) p = std::filesystem::absolute(path, ec).lexically_normal();
    std::string text = p.string();
    while (text.size() > 1 && text.back() == '/') text.pop_back();
    return text;
}

bool isInsideDirectory(std::string_view inner, std::string_view outer) {
    if (outer == "/") return inner != "/";
    return inner.size() > outer.size() && inner.substr(0, outer.size()) == outer && inner[outer.size()] == '/';
}

std::string joinPath(std::string_view dir, std::string_view name) {
    if (dir.empty() || dir == ".") return std::string(name);
    if (!name.empty() && name.front() == '/') return std::string(name);
    std::string out(dir);
    if (out.back() != '/') out += '/';
    out += name;
    return out;
}

}  // namespace ckpt::platform
