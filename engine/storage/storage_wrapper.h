#pragma once
// Storage (and file handles) that forward every call to another, for
// wrappers that add behaviour to some calls (LevelDB's EnvWrapper): the
// fault-injecting storage in tests/support/fault_storage.h derives from
// StorageWrapper and overrides the write side. Composite operations that
// Storage implements on its primitives (writeObject, readObject,
// openSequential) are deliberately NOT forwarded: they run on the
// wrapper's primitives, so a wrapper sees every step of them (the temp
// file, its close, the rename, the directory sync).
//   class CountingStorage : public StorageWrapper {
//       using StorageWrapper::StorageWrapper;
//       Status remove(const std::string& l) override { ++m_removes; return StorageWrapper::remove(l); }
//   };

#include <memory>
#include <string>
#include <utility>

#include "storage/storage.h"

namespace ckpt::storage {

class StorageWrapper : public Storage {
public:
    explicit StorageWrapper(std::shared_ptr<Storage> target) : m_target(std::move(target)) {}

    Storage& target() const { return *m_target; }

    std::string_view scheme() const override { return m_target->scheme(); }
    Capabilities capabilities() const override { return m_target->capabilities(); }
    Result<std::unique_ptr<RandomAccessFile>> openRandomAccess(const std::string& location) override {
        return m_target->openRandomAccess(location);
    }
    Result<std::optional<ObjectInfo>> stat(const std::string& location, bool follow) override {
        return m_target->stat(location, follow);
    }
    Status list(const std::string& directory, const ListOptions& options, const ListVisitor& visit) override {
        return m_target->list(directory, options, visit);
    }
    Result<std::unique_ptr<WritableFile>> create(const std::string& location, const CreateOptions& options) override {
        return m_target->create(location, options);
    }
    Status remove(const std::string& location) override { return m_target->remove(location); }
    Status syncDirectory(const std::string& directory) override { return m_target->syncDirectory(directory); }
    Status syncFile(const std::string& location) override { return m_target->syncFile(location); }
    Status rename(const std::string& from, const std::string& to, const WriteCondition& condition) override {
        return m_target->rename(from, to, condition);
    }
    Status createDirectories(const std::string& directory) override { return m_target->createDirectories(directory); }
    Status removeDirectory(const std::string& directory) override { return m_target->removeDirectory(directory); }
    Status listPendingWrites(const std::string& directory, const PendingWriteVisitor& visit) override {
        return m_target->listPendingWrites(directory, visit);
    }
    Status abortPendingWrite(const PendingWrite& write) override { return m_target->abortPendingWrite(write); }

private:
    std::shared_ptr<Storage> m_target;
};

// A WritableFile that forwards to another (for wrappers that watch writes).
class WritableFileWrapper : public WritableFile {
public:
    explicit WritableFileWrapper(std::unique_ptr<WritableFile> target) : m_target(std::move(target)) {}

    WritableFile& target() const { return *m_target; }

    const std::string& location() const override { return m_target->location(); }
    uint64_t position() const override { return m_target->position(); }
    bool direct() const override { return m_target->direct(); }
    Status append(const void* data, size_t n) override { return m_target->append(data, n); }
    using WritableFile::append;
    Status close() override { return m_target->close(); }
    Generation generation() const override { return m_target->generation(); }

private:
    std::unique_ptr<WritableFile> m_target;
};

}  // namespace ckpt::storage
