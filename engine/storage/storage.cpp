// The parts of the storage interface that every backend shares: defaults
// of the file handles and the composite operations built on a backend's
// primitives (so wrappers see each step; storage_wrapper.h).

#include "storage/storage.h"

#include <algorithm>
#include <vector>

#include "platform/crc32c.h"
#include "platform/file.h"
#include "storage/owner_token.h"

namespace ckpt::storage {
namespace {

// Default SequentialFile: ranged reads of an opened file, one after another.
class RangedSequentialFile final : public SequentialFile {
public:
    explicit RangedSequentialFile(std::unique_ptr<RandomAccessFile> file) : m_file(std::move(file)) {}
    const std::string& location() const override { return m_file->location(); }
    uint64_t size() const override { return m_file->size(); }
    Result<size_t> read(size_t n, void* out) override {
        const size_t take = static_cast<size_t>(std::min<uint64_t>(n, m_file->size() - m_position));
        if (take == 0) return size_t{0};
        CKPT_RETURN_IF_ERROR(m_file->read(m_position, take, out));
        m_position += take;
        return take;
    }
    Status skip(uint64_t n) override {
        m_position += std::min<uint64_t>(n, m_file->size() - m_position);
        return okStatus();
    }

private:
    std::unique_ptr<RandomAccessFile> m_file;
    uint64_t m_position = 0;
};

// A name beside 'location' that no other writer picks, owned by this
// process (owner_token.h): what a kill leaves, the garbage collector knows.
std::string tempNameFor(const std::string& location) { return ownedTempName(location, kOwnedTempMarker); }

constexpr int kMaxRemoveDepth = 64;

Status removeAllAt(Storage& storage, const std::string& location, int depth) {
    CKPT_ASSIGN_OR_RETURN(const std::optional<ObjectInfo> info, storage.stat(location, /*follow=*/false));
    // A store may still list an empty "folder" that stat() cannot see (the
    // marker SeaweedFS keeps after the last object under it went):
    // removeDirectory() deletes the marker, so nothing stays listed.
    if (!info) return storage.capabilities().directories ? okStatus() : storage.removeDirectory(location);
    if (info->kind != ObjectKind::Directory) return storage.remove(location);
    if (depth >= kMaxRemoveDepth)
        return invalidArgument("cannot delete " + location + ": more than " + std::to_string(kMaxRemoveDepth) +
                               " levels of directories");
    std::vector<std::string> names;
    CKPT_RETURN_IF_ERROR(storage.list(location, {}, [&](const ListEntry& e) {
        names.push_back(e.name);
        return true;
    }));
    for (const std::string& name : names)
        CKPT_RETURN_IF_ERROR(removeAllAt(storage, platform::joinPath(location, name), depth + 1));
    return storage.removeDirectory(location);
}

}  // namespace

Status RandomAccessFile::readBatch(std::span<const ReadRange> ranges) const {
    for (const ReadRange& r : ranges) CKPT_RETURN_IF_ERROR(read(r.offset, r.length, r.out));
    return okStatus();
}

void RandomAccessFile::adviseSequential(uint64_t, uint64_t) const {}

Result<MappedView> RandomAccessFile::map(uint64_t, size_t) const {
    return failedPrecondition("cannot map " + location() + ": its storage does not map files");
}

Result<std::unique_ptr<SequentialFile>> Storage::openSequential(const std::string& location) {
    CKPT_ASSIGN_OR_RETURN(auto file, openRandomAccess(location));
    return std::unique_ptr<SequentialFile>(std::make_unique<RangedSequentialFile>(std::move(file)));
}

Result<ObjectContents> Storage::readObject(const std::string& location, size_t maxBytes) {
    CKPT_ASSIGN_OR_RETURN(auto file, openRandomAccess(location));
    if (file->size() > maxBytes)
        return invalidArgument(location + " is " + std::to_string(file->size()) + " bytes, more than the " +
                               std::to_string(maxBytes) + " expected for this kind of file");
    ObjectContents out;
    out.bytes.resize(static_cast<size_t>(file->size()));
    CKPT_RETURN_IF_ERROR(file->read(0, out.bytes.size(), out.bytes.data()));
    out.generation = file->generation();
    return out;
}

Result<Generation> Storage::writeObject(const std::string& location, std::string_view bytes, const WriteCondition& condition) {
    const auto generationNow = [&](const WritableFile& written) -> Result<Generation> {
        if (written.generation().isKnown()) return written.generation();
        CKPT_ASSIGN_OR_RETURN(const std::optional<ObjectInfo> info, stat(location));
        return info ? info->generation : Generation::absent();
    };
    if (!capabilities().rename) {
        CreateOptions options;
        options.condition = condition;
        options.expectedSize = bytes.size();
        CKPT_ASSIGN_OR_RETURN(auto file, create(location, options));
        CKPT_RETURN_IF_ERROR(file->append(bytes));
        CKPT_RETURN_IF_ERROR(file->close());
        return generationNow(*file);
    }
    const std::string temp = tempNameFor(location);
    auto file = create(temp, {});
    if (!file.ok()) return file.status();
    Status s = (*file)->append(bytes);
    if (s.isOk()) s = (*file)->close();
    if (s.isOk()) s = rename(temp, location, condition);
    if (!s.isOk()) {
        (void)remove(temp);
        return s;
    }
    CKPT_RETURN_IF_ERROR(syncDirectory(platform::dirName(location)));
    CKPT_ASSIGN_OR_RETURN(const std::optional<ObjectInfo> info, stat(location));
    return info ? info->generation : Generation::absent();
}

Status Storage::rename(const std::string& from, const std::string& to, const WriteCondition&) {
    return unimplemented("cannot rename " + from + " to " + to + ": " + std::string(scheme()) +
                         ":// storage has no rename (write the object at its final name)");
}

Status Storage::syncFile(const std::string&) { return okStatus(); }

Status Storage::createDirectories(const std::string&) { return okStatus(); }

Status Storage::removeDirectory(const std::string&) { return okStatus(); }

Status Storage::listPendingWrites(const std::string&, const PendingWriteVisitor&) { return okStatus(); }

Status Storage::abortPendingWrite(const PendingWrite&) { return okStatus(); }

Status removeAll(Storage& storage, const std::string& location) { return removeAllAt(storage, location, 0); }

Result<uint32_t> fileCrc32c(const RandomAccessFile& file) {
    constexpr size_t kChunk = 1u << 20;
    file.adviseSequential(0, file.size());  // a store then sends it in one or two GETs, not one per chunk
    std::vector<char> buffer(static_cast<size_t>(std::min<uint64_t>(kChunk, file.size())));
    uint32_t crc = 0;
    for (uint64_t offset = 0; offset < file.size();) {
        const size_t n = static_cast<size_t>(std::min<uint64_t>(kChunk, file.size() - offset));
        CKPT_RETURN_IF_ERROR(file.read(offset, n, buffer.data()));
        crc = platform::crc32cExtend(crc, buffer.data(), n);
        offset += n;
    }
    return crc;
}

}  // namespace ckpt::storage
