// The local file system behind the storage interface (local_storage.h).

#include "storage/local_storage.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <random>

#include "platform/file.h"
#include "storage/local_files.h"

namespace ckpt::storage {
namespace {

ObjectKind kindOf(mode_t mode) {
    if (S_ISREG(mode)) return ObjectKind::File;
    if (S_ISDIR(mode)) return ObjectKind::Directory;
    if (S_ISLNK(mode)) return ObjectKind::Symlink;
    return ObjectKind::Other;
}

int64_t nanoseconds(const struct timespec& t) { return static_cast<int64_t>(t.tv_sec) * 1'000'000'000 + t.tv_nsec; }

// An exclusive flock on a directory for the check-and-rename of a
// conditional write: conditional writers of one directory take turns.
class DirectoryLock {
public:
    static Result<DirectoryLock> take(const std::string& dir) {
        const int fd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0) return ioError("cannot open directory", dir, errno);
        while (::flock(fd, LOCK_EX) != 0) {
            if (errno == EINTR) continue;
            const int err = errno;
            ::close(fd);
            return ioError("cannot lock directory", dir, err);
        }
        return DirectoryLock(fd);
    }
    DirectoryLock(DirectoryLock&& other) noexcept : m_fd(std::exchange(other.m_fd, -1)) {}
    DirectoryLock& operator=(DirectoryLock&&) = delete;
    ~DirectoryLock() {
        if (m_fd >= 0) ::close(m_fd);  // releases the lock
    }

private:
    explicit DirectoryLock(int fd) : m_fd(fd) {}
    int m_fd;
};

Generation currentGeneration(const std::string& path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) return errno == ENOENT ? Generation::absent() : Generation();
    return local::generationOf(st);
}

Status conditionFailed(const std::string& path, const WriteCondition& condition, const Generation& current) {
    if (condition.kind == WriteCondition::Kind::IfAbsent)
        return {StatusCode::AlreadyExists, "cannot create " + path + ": it already exists"};
    return failedPrecondition(path + " changed since it was read (generation " + condition.generation.toString() + ", now " +
                              current.toString() + ")");
}

// A conditional create: written under a temp name beside the location,
// renamed into place by close() if the condition holds (files.h).
class ConditionalFile final : public WritableFile {
public:
    ConditionalFile(Storage& storage, std::string location, std::string temp, std::unique_ptr<WritableFile> file,
                    WriteCondition condition)
        : m_storage(storage), m_location(std::move(location)), m_temp(std::move(temp)), m_file(std::move(file)),
          m_condition(std::move(condition)) {}
    ~ConditionalFile() override {
        if (!m_done) {
            m_file.reset();
            (void)m_storage.remove(m_temp);
        }
    }
    const std::string& location() const override { return m_location; }
    uint64_t position() const override { return m_file->position(); }
    bool direct() const override { return m_file->direct(); }
    Generation generation() const override { return m_generation; }
    using WritableFile::append;
    Status append(const void* data, size_t n) override { return m_file->append(data, n); }
    Status close() override {
        if (m_done) return okStatus();
        CKPT_RETURN_IF_ERROR(m_file->close());
        CKPT_RETURN_IF_ERROR(m_storage.rename(m_temp, m_location, m_condition));
        m_done = true;
        m_generation = m_file->generation();  // rename keeps the inode, and so the generation
        return okStatus();
    }

private:
    Storage& m_storage;
    std::string m_location;
    std::string m_temp;
    std::unique_ptr<WritableFile> m_file;
    WriteCondition m_condition;
    Generation m_generation;
    bool m_done = false;
};

std::string tempBeside(const std::string& path) {
    static thread_local std::mt19937_64 rng{std::random_device{}()};
    char suffix[40];
    std::snprintf(suffix, sizeof suffix, ".tmp%016llx", static_cast<unsigned long long>(rng()));
    return path + suffix;
}

class LocalStorage final : public Storage {
public:
    std::string_view scheme() const override { return {}; }
    Capabilities capabilities() const override {
        Capabilities c;
        c.rename = c.directories = c.mappedReads = c.directWrites = c.localPaths = true;
        return c;
    }

    Result<std::unique_ptr<RandomAccessFile>> openRandomAccess(const std::string& location) override {
        return local::openRandomAccess(location);
    }
    Result<std::unique_ptr<SequentialFile>> openSequential(const std::string& location) override {
        return local::openSequential(location);
    }

    Result<std::optional<ObjectInfo>> stat(const std::string& location, bool follow) override {
        struct stat st {};
        const int rc = follow ? ::stat(location.c_str(), &st) : ::lstat(location.c_str(), &st);
        if (rc != 0) {
            if (errno == ENOENT || errno == ENOTDIR) return std::optional<ObjectInfo>{};
            return platform::statusFromErrno(errno, "cannot stat " + location);
        }
        ObjectInfo info;
        info.kind = kindOf(st.st_mode);
        info.size = info.kind == ObjectKind::File ? static_cast<uint64_t>(st.st_size) : 0;
        info.generation = local::generationOf(st);
        info.modifiedNs = nanoseconds(st.st_mtim);
        return std::optional<ObjectInfo>(info);
    }

    Status list(const std::string& directory, const ListOptions& options, const ListVisitor& visit) override {
        const std::string dir = directory.empty() ? "." : directory;
        const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0) return platform::statusFromErrno(errno, "cannot list " + directory);
        DIR* d = ::fdopendir(fd);
        if (!d) {
            const int err = errno;
            ::close(fd);
            return platform::statusFromErrno(err, "cannot list " + directory);
        }
        Status s;
        for (;;) {
            errno = 0;
            const dirent* e = ::readdir(d);
            if (!e) {
                if (errno != 0) s = platform::statusFromErrno(errno, "cannot list " + directory);
                break;
            }
            const std::string_view name = e->d_name;
            if (name == "." || name == ".." || !name.starts_with(options.namePrefix)) continue;
            ListEntry entry;
            entry.name = std::string(name);
            struct stat st {};
            if (::fstatat(fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
                if (errno == ENOENT) continue;  // removed while listed
                entry.kind = ObjectKind::Other;
            } else {
                struct stat target {};
                if (options.followSymlinks && S_ISLNK(st.st_mode) && ::fstatat(fd, e->d_name, &target, 0) == 0) st = target;
                entry.kind = kindOf(st.st_mode);
                entry.size = entry.kind == ObjectKind::File ? static_cast<uint64_t>(st.st_size) : 0;
                entry.modifiedNs = nanoseconds(st.st_mtim);
            }
            if (!visit(entry)) break;
        }
        ::closedir(d);
        return s;
    }

    Result<std::unique_ptr<WritableFile>> create(const std::string& location, const CreateOptions& options) override {
        if (options.condition.kind == WriteCondition::Kind::None) return local::createFile(location, options.mode);
        // Fail early when the condition already fails (close() checks again).
        const Generation now = currentGeneration(location);
        if (!now.isUnknown() && !options.condition.allows(now)) return conditionFailed(location, options.condition, now);
        std::string temp = tempBeside(location);
        CKPT_ASSIGN_OR_RETURN(auto file, local::createFile(temp, options.mode));
        return std::unique_ptr<WritableFile>(
            std::make_unique<ConditionalFile>(*this, location, std::move(temp), std::move(file), options.condition));
    }

    Status remove(const std::string& location) override {
        if (::unlink(location.c_str()) == 0 || errno == ENOENT) return okStatus();
        if (errno == EISDIR) return invalidArgument("cannot delete " + location + ": it is a directory");
        return ioError("cannot delete", location, errno);
    }

    Status syncDirectory(const std::string& directory) override {
        const int fd = ::open(directory.empty() ? "." : directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0) return ioError("cannot open directory", directory, errno);
        Status s;
        if (::fsync(fd) != 0 && errno != EINVAL) s = ioError("cannot fsync directory", directory, errno);
        ::close(fd);
        return s;
    }

    Status syncFile(const std::string& location) override {
        const int fd = ::open(location.c_str(), O_RDONLY | O_CLOEXEC);
        if (fd < 0) return ioError("cannot open", location, errno);
        Status s;
        if (::fsync(fd) != 0) s = ioError("cannot fsync", location, errno);
        ::close(fd);
        return s;
    }

    Status rename(const std::string& from, const std::string& to, const WriteCondition& condition) override {
        const auto failed = [&](int err) { return ioError("cannot rename " + from + " to", to, err); };
        if (condition.kind == WriteCondition::Kind::None) {
            if (::rename(from.c_str(), to.c_str()) != 0) return failed(errno);
            return okStatus();
        }
        CKPT_ASSIGN_OR_RETURN(const DirectoryLock lock, DirectoryLock::take(platform::dirName(to)));
        if (condition.kind == WriteCondition::Kind::IfMatch) {
            const Generation now = currentGeneration(to);
            if (!condition.allows(now)) return conditionFailed(to, condition, now);
            if (::rename(from.c_str(), to.c_str()) != 0) return failed(errno);
            return okStatus();
        }
        // IfAbsent: never replace, even a name that appears meanwhile.
        if (::renameat2(AT_FDCWD, from.c_str(), AT_FDCWD, to.c_str(), RENAME_NOREPLACE) == 0) return okStatus();
        if (errno == EEXIST) return conditionFailed(to, condition, currentGeneration(to));
        if (errno != EINVAL && errno != ENOSYS) return failed(errno);
        // A file system without RENAME_NOREPLACE: link() refuses an existing name too.
        if (::link(from.c_str(), to.c_str()) != 0)
            return errno == EEXIST ? conditionFailed(to, condition, currentGeneration(to)) : failed(errno);
        (void)::unlink(from.c_str());
        return okStatus();
    }

    Status createDirectories(const std::string& dir) override {
        if (dir.empty()) return okStatus();
        struct stat st {};
        if (::stat(dir.c_str(), &st) == 0) {
            if (S_ISDIR(st.st_mode)) return okStatus();
            return ioError("cannot create directory", dir, EEXIST);
        }
        const std::string parent = platform::dirName(dir);
        if (!parent.empty() && parent != dir) CKPT_RETURN_IF_ERROR(createDirectories(parent));
        // EEXIST: made by someone else in the meantime (a directory, as stat says).
        if (::mkdir(dir.c_str(), 0755) != 0 && !(errno == EEXIST && ::stat(dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode)))
            return ioError("cannot create directory", dir, errno);
        return okStatus();
    }

    Status removeDirectory(const std::string& directory) override {
        if (::rmdir(directory.c_str()) != 0 && errno != ENOENT) return ioError("cannot delete", directory, errno);
        return okStatus();
    }
};

}  // namespace

std::shared_ptr<Storage> makeLocalStorage() { return std::make_shared<LocalStorage>(); }

Status ioError(std::string_view what, const std::string& path, int err) {
    std::string msg = std::string(what) + " " + path + ": " + platform::errnoText(err);
    switch (err) {
    case ENOSPC:
    case EFBIG:
    case EDQUOT: return {StatusCode::ResourceExhausted, std::move(msg)};
    case EACCES:
    case EPERM:
    case EROFS: return {StatusCode::PermissionDenied, std::move(msg)};
    case ENOENT:
    case ENOTDIR: return notFound(std::move(msg));
    case EEXIST: return {StatusCode::AlreadyExists, std::move(msg)};
    default: return internalError(std::move(msg));
    }
}

}  // namespace ckpt::storage
