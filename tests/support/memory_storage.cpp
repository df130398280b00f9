#include "memory_storage.h"

#include <algorithm>
#include <cstring>
#include <vector>

namespace ckpt::testing {
namespace {

storage::Generation generationOf(uint64_t n) { return storage::Generation::of(std::to_string(n)); }

// A location's key: no trailing slash.
std::string keyOf(std::string_view location) {
    while (location.size() > 1 && location.back() == '/') location.remove_suffix(1);
    return std::string(location);
}

class MemoryRandomAccessFile final : public storage::RandomAccessFile {
public:
    MemoryRandomAccessFile(std::string location, std::shared_ptr<const std::string> bytes, storage::Generation generation)
        : m_location(std::move(location)), m_bytes(std::move(bytes)), m_generation(std::move(generation)) {}
    const std::string& location() const override { return m_location; }
    uint64_t size() const override { return m_bytes->size(); }
    storage::Generation generation() const override { return m_generation; }
    Status read(uint64_t offset, size_t n, void* out) const override {
        if (offset > m_bytes->size() || n > m_bytes->size() - offset)
            return dataLoss("read of " + std::to_string(n) + " bytes at offset " + std::to_string(offset) +
                            " is past the end of " + m_location + " (" + std::to_string(m_bytes->size()) + " bytes)");
        std::memcpy(out, m_bytes->data() + offset, n);
        return okStatus();
    }

private:
    std::string m_location;
    std::shared_ptr<const std::string> m_bytes;  // the generation opened: later uploads do not change it
    storage::Generation m_generation;
};

}  // namespace

class MemoryWritableFile final : public storage::WritableFile {
public:
    MemoryWritableFile(std::shared_ptr<MemoryStorage> store, std::string location, storage::WriteCondition condition)
        : m_store(std::move(store)), m_location(std::move(location)), m_condition(std::move(condition)) {}
    const std::string& location() const override { return m_location; }
    uint64_t position() const override { return m_bytes.size(); }
    storage::Generation generation() const override { return m_generation; }
    using storage::WritableFile::append;
    Status append(const void* data, size_t n) override {
        if (m_closed) return failedPrecondition("write to closed file " + m_location);
        m_bytes.append(static_cast<const char*>(data), n);
        return okStatus();
    }
    Status close() override {
        if (m_closed) return okStatus();
        m_closed = true;
        CKPT_ASSIGN_OR_RETURN(m_generation, m_store->put(m_location, std::move(m_bytes), m_condition));
        return okStatus();
    }

private:
    std::shared_ptr<MemoryStorage> m_store;
    std::string m_location;
    storage::WriteCondition m_condition;
    std::string m_bytes;  // the upload: nothing is visible before close()
    storage::Generation m_generation;
    bool m_closed = false;
};

void MemoryStorage::count(const char* kind) const {
    std::lock_guard lock(m_mutex);
    ++m_requests[kind];
}

std::map<std::string, std::string> MemoryStorage::objects() const {
    std::lock_guard lock(m_mutex);
    std::map<std::string, std::string> out;
    for (const auto& [name, object] : m_objects) out.emplace(name, *object.bytes);
    return out;
}

std::map<std::string, int64_t> MemoryStorage::requests() const {
    std::lock_guard lock(m_mutex);
    return m_requests;
}

Result<std::unique_ptr<storage::RandomAccessFile>> MemoryStorage::openRandomAccess(const std::string& location) {
    count("get");
    std::lock_guard lock(m_mutex);
    const auto it = m_objects.find(keyOf(location));
    if (it == m_objects.end()) return notFound("cannot open " + location + ": No such object");
    return std::unique_ptr<storage::RandomAccessFile>(
        std::make_unique<MemoryRandomAccessFile>(location, it->second.bytes, generationOf(it->second.generation)));
}

Result<std::optional<storage::ObjectInfo>> MemoryStorage::stat(const std::string& location, bool) {
    count("head");
    std::lock_guard lock(m_mutex);
    const std::string key = keyOf(location);
    if (const auto it = m_objects.find(key); it != m_objects.end()) {
        storage::ObjectInfo info;
        info.kind = storage::ObjectKind::File;
        info.size = it->second.bytes->size();
        info.generation = generationOf(it->second.generation);
        return std::optional<storage::ObjectInfo>(info);
    }
    // A prefix with objects under it reads as a directory.
    const std::string dir = key + "/";
    const auto below = m_objects.lower_bound(dir);
    if (below != m_objects.end() && below->first.starts_with(dir)) {
        storage::ObjectInfo info;
        info.kind = storage::ObjectKind::Directory;
        return std::optional<storage::ObjectInfo>(info);
    }
    return std::optional<storage::ObjectInfo>{};
}

Status MemoryStorage::list(const std::string& directory, const storage::ListOptions& options, const storage::ListVisitor& visit) {
    const std::string dir = keyOf(directory) + "/";
    std::string after = dir + options.namePrefix;
    std::string lastCommon;
    for (;;) {
        // One page: up to kPageSize entries after 'after', as a LIST with a
        // delimiter returns them (common prefixes as directories).
        count("list");
        std::vector<storage::ListEntry> page;
        {
            std::lock_guard lock(m_mutex);
            for (auto it = m_objects.lower_bound(after); it != m_objects.end() && page.size() < kPageSize; ++it) {
                if (!it->first.starts_with(dir + options.namePrefix)) break;
                const std::string rest = it->first.substr(dir.size());
                const auto slash = rest.find('/');
                storage::ListEntry e;
                if (slash == std::string::npos) {
                    e.name = rest;
                    e.kind = storage::ObjectKind::File;
                    e.size = it->second.bytes->size();
                } else {
                    e.name = rest.substr(0, slash);
                    if (e.name == lastCommon) continue;
                    lastCommon = e.name;
                    e.kind = storage::ObjectKind::Directory;
                }
                page.push_back(std::move(e));
                after = it->first + '\0';
            }
        }
        if (page.empty()) return okStatus();
        for (const storage::ListEntry& e : page)
            if (!visit(e)) return okStatus();
    }
}

Result<std::unique_ptr<storage::WritableFile>> MemoryStorage::create(const std::string& location,
                                                                     const storage::CreateOptions& options) {
    return std::unique_ptr<storage::WritableFile>(
        std::make_unique<MemoryWritableFile>(shared_from_this(), keyOf(location), options.condition));
}

Result<storage::Generation> MemoryStorage::put(const std::string& location, std::string bytes,
                                               const storage::WriteCondition& condition) {
    count("put");
    std::lock_guard lock(m_mutex);
    const auto it = m_objects.find(location);
    const storage::Generation now = it == m_objects.end() ? storage::Generation::absent() : generationOf(it->second.generation);
    if (!condition.allows(now)) {
        if (condition.kind == storage::WriteCondition::Kind::IfAbsent)
            return Status(StatusCode::AlreadyExists, "cannot create " + location + ": it already exists");
        return failedPrecondition(location + " changed since it was read (generation " + condition.generation.toString() +
                                  ", now " + now.toString() + ")");
    }
    Object& o = m_objects[location];
    o.bytes = std::make_shared<const std::string>(std::move(bytes));
    o.generation = m_nextGeneration++;
    return generationOf(o.generation);
}

Status MemoryStorage::remove(const std::string& location) {
    count("delete");
    std::lock_guard lock(m_mutex);
    m_objects.erase(keyOf(location));
    return okStatus();
}

Status MemoryStorage::syncDirectory(const std::string&) { return okStatus(); }

}  // namespace ckpt::testing
