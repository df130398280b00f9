#pragma once
// An object store in memory, for tests: what an S3 or GCS bucket offers and
// nothing more. No rename, no directories (names imply them), no mmap, no
// O_DIRECT; every object appears whole when its upload completes (close())
// or not at all; writes may be conditional on the object's generation (a
// counter); listings come a page at a time. Register it for a scheme
// (registerStorage("mem", ...)) and the engine saves, verifies, lists and
// restores checkpoints at "mem://bucket/..." exactly as it will on a real
// store, which proves the commit protocol needs no rename. Thread-safe.

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "storage/storage.h"

namespace ckpt::testing {

class MemoryStorage : public storage::Storage, public std::enable_shared_from_this<MemoryStorage> {
public:
    // Objects per listing page (small, so listings of a few files page too).
    static constexpr size_t kPageSize = 3;

    std::string_view scheme() const override { return "mem"; }
    storage::Capabilities capabilities() const override { return {}; }

    Result<std::unique_ptr<storage::RandomAccessFile>> openRandomAccess(const std::string& location) override;
    Result<std::optional<storage::ObjectInfo>> stat(const std::string& location, bool follow) override;
    Status list(const std::string& directory, const storage::ListOptions& options, const storage::ListVisitor& visit) override;
    Result<std::unique_ptr<storage::WritableFile>> create(const std::string& location,
                                                          const storage::CreateOptions& options) override;
    Status remove(const std::string& location) override;
    Status syncDirectory(const std::string& directory) override;

    // What the store holds now: name -> bytes.
    std::map<std::string, std::string> objects() const;
    // Requests made so far, by kind ("get", "put", "list", "delete", "head").
    std::map<std::string, int64_t> requests() const;

private:
    friend class MemoryWritableFile;
    struct Object {
        std::shared_ptr<const std::string> bytes;
        uint64_t generation = 0;
    };
    // Installs an upload if 'condition' holds; the new generation.
    Result<storage::Generation> put(const std::string& location, std::string bytes, const storage::WriteCondition& condition);
    void count(const char* kind) const;

    mutable std::mutex m_mutex;
    std::map<std::string, Object> m_objects;            // Guarded by m_mutex.
    uint64_t m_nextGeneration = 1;                      // Guarded by m_mutex.
    mutable std::map<std::string, int64_t> m_requests;  // Guarded by m_mutex.
};

}  // namespace ckpt::testing
