#include "storage/dispatch.h"

#include <stdlib.h>

#include <atomic>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <map>
#include <mutex>

#include "platform/file.h"
#include "storage/local_storage.h"

namespace ckpt::storage {
namespace {

struct Registry {
    std::mutex mutex;
    std::map<std::string, StorageFactory, std::less<>> factories;  // Guarded by mutex.
};

Registry& registry() {
    static Registry* r = new Registry;  // never destroyed: files may close during exit
    return *r;
}

const std::shared_ptr<Storage>& plainLocal() {
    static const auto* local = new std::shared_ptr<Storage>(makeLocalStorage());
    return *local;
}

// The installed local backend; guarded by g_localMutex (shared_ptr copies
// are not atomic in C++20's library on g++ 12 without the atomic<> partial
// specialisation, so a mutex it is; one lock per dispatch costs ~20 ns).
std::mutex g_localMutex;
std::shared_ptr<Storage> g_installed;

bool isSchemeChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '+' || c == '-' || c == '.'; }

}  // namespace

std::string_view locationScheme(std::string_view location) {
    const auto colon = location.find("://");
    if (colon == std::string_view::npos || colon == 0) return {};
    if (std::isalpha(static_cast<unsigned char>(location[0])) == 0) return {};
    for (size_t i = 1; i < colon; ++i)
        if (!isSchemeChar(location[i])) return {};
    return location.substr(0, colon);
}

std::string normalizeLocation(std::string_view location) {
    const std::string_view scheme = locationScheme(location);
    std::string out;
    if (scheme.empty()) {
        out = platform::lexicallyNormal(platform::absolutePath(location));
    } else {
        const std::string_view rest = location.substr(scheme.size() + 3);
        out = std::string(location.substr(0, scheme.size() + 3)) + platform::lexicallyNormal(rest);
    }
    while (out.size() > 1 && out.back() == '/' && !out.ends_with("://")) out.pop_back();
    return out;
}

void registerStorage(std::string scheme, StorageFactory factory) {
    std::lock_guard lock(registry().mutex);
    registry().factories[std::move(scheme)] = std::move(factory);
}

bool unregisterStorage(std::string_view scheme) {
    std::lock_guard lock(registry().mutex);
    auto it = registry().factories.find(scheme);
    if (it == registry().factories.end()) return false;
    registry().factories.erase(it);
    return true;
}

std::shared_ptr<Storage> localStorage() {
    std::lock_guard lock(g_localMutex);
    return g_installed ? g_installed : plainLocal();
}

std::shared_ptr<Storage> installLocalStorage(std::shared_ptr<Storage> storage) {
    std::lock_guard lock(g_localMutex);
    std::shared_ptr<Storage> previous = std::move(g_installed);
    g_installed = std::move(storage);
    return previous;
}

Result<std::shared_ptr<Storage>> storageFor(std::string_view location) {
    const std::string_view scheme = locationScheme(location);
    if (scheme.empty()) return localStorage();
    std::string lower(scheme);
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    StorageFactory factory;
    {
        std::lock_guard lock(registry().mutex);
        if (auto it = registry().factories.find(lower); it != registry().factories.end()) factory = it->second;
    }
    if (!factory) {
        const bool objectStore = lower == "s3" || lower == "gs";
        return invalidArgument(
            "unsupported storage scheme \"" + std::string(scheme) + "://\" in " + std::string(location) +
            (objectStore ? ": this build has no " + lower + ":// backend; give a local path" : ": give a local path"));
    }
    return factory(location);
}

Status checkLocation(std::string_view location) { return storageFor(location).status(); }

Capabilities capabilitiesFor(std::string_view location) {
    auto s = storageFor(location);
    return s.ok() ? (*s)->capabilities() : Capabilities{};
}

// 'var' is the name being declared, so it cannot be parenthesised.
// NOLINTNEXTLINE(bugprone-macro-parentheses)
#define CKPT_STORAGE_FOR(var, location) CKPT_ASSIGN_OR_RETURN(const std::shared_ptr<Storage> var, storageFor(location))

Result<std::unique_ptr<RandomAccessFile>> openRandomAccess(const std::string& location) {
    CKPT_STORAGE_FOR(s, location);
    return s->openRandomAccess(location);
}

Result<std::unique_ptr<SequentialFile>> openSequential(const std::string& location) {
    CKPT_STORAGE_FOR(s, location);
    return s->openSequential(location);
}

Result<ObjectContents> readObject(const std::string& location, size_t maxBytes) {
    CKPT_STORAGE_FOR(s, location);
    return s->readObject(location, maxBytes);
}

Result<std::string> readSmallFile(const std::string& location, size_t maxBytes) {
    CKPT_ASSIGN_OR_RETURN(ObjectContents contents, readObject(location, maxBytes));
    return std::move(contents.bytes);
}

Result<std::optional<ObjectInfo>> stat(const std::string& location, bool follow) {
    CKPT_STORAGE_FOR(s, location);
    return s->stat(location, follow);
}

bool exists(const std::string& location) {
    auto info = stat(location);
    return info.ok() && info->has_value();
}

bool isDirectory(const std::string& location) {
    auto info = stat(location);
    return info.ok() && info->has_value() && (*info)->kind == ObjectKind::Directory;
}

bool isFile(const std::string& location) {
    auto info = stat(location);
    return info.ok() && info->has_value() && (*info)->kind == ObjectKind::File;
}

Result<uint64_t> fileSize(const std::string& location) {
    CKPT_ASSIGN_OR_RETURN(const std::optional<ObjectInfo> info, stat(location));
    if (!info) return notFound("cannot stat " + location + ": No such file or directory");
    return info->size;
}

Status list(const std::string& directory, const ListOptions& options, const ListVisitor& visit) {
    CKPT_STORAGE_FOR(s, directory);
    return s->list(directory, options, visit);
}

Result<std::unique_ptr<WritableFile>> create(const std::string& location, const CreateOptions& options) {
    CKPT_STORAGE_FOR(s, location);
    return s->create(location, options);
}

Result<Generation> writeObject(const std::string& location, std::string_view bytes, const WriteCondition& condition) {
    CKPT_STORAGE_FOR(s, location);
    return s->writeObject(location, bytes, condition);
}

Status remove(const std::string& location) {
    CKPT_STORAGE_FOR(s, location);
    return s->remove(location);
}

Status removeAll(const std::string& location) {
    CKPT_STORAGE_FOR(s, location);
    return removeAll(*s, location);
}

Status syncDirectory(const std::string& directory) {
    CKPT_STORAGE_FOR(s, directory);
    return s->syncDirectory(directory);
}

Status syncFile(const std::string& location) {
    CKPT_STORAGE_FOR(s, location);
    return s->syncFile(location);
}

Status rename(const std::string& from, const std::string& to, const WriteCondition& condition) {
    CKPT_STORAGE_FOR(s, from);
    CKPT_STORAGE_FOR(t, to);
    if (s != t) return invalidArgument("cannot rename " + from + " to " + to + ": they are in different storage");
    return s->rename(from, to, condition);
}

Status createDirectories(const std::string& directory) {
    CKPT_STORAGE_FOR(s, directory);
    return s->createDirectories(directory);
}

Status removeDirectory(const std::string& directory) {
    CKPT_STORAGE_FOR(s, directory);
    return s->removeDirectory(directory);
}

Status listPendingWrites(const std::string& directory, const PendingWriteVisitor& visit) {
    CKPT_STORAGE_FOR(s, directory);
    return s->listPendingWrites(directory, visit);
}

Status abortPendingWrite(const PendingWrite& write) {
    CKPT_STORAGE_FOR(s, write.location);
    return s->abortPendingWrite(write);
}

#undef CKPT_STORAGE_FOR

Result<std::string> makePrivateTempDirectory(std::string_view name) {
    std::error_code ec;
    const std::filesystem::path base = std::filesystem::temp_directory_path(ec);
    if (ec) return Status(StatusCode::FailedPrecondition, "no temporary directory: " + ec.message());
    std::string pattern = (base / (std::string(name) + "-XXXXXX")).string();
    if (::mkdtemp(pattern.data()) == nullptr)  // mode 0700
        return Status(StatusCode::ResourceExhausted, "cannot make a directory in " + base.string() + ": " + std::strerror(errno));
    return pattern;
}

}  // namespace ckpt::storage
