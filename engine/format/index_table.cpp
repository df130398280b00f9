#include "format/index_table.h"

#include <leveldb/comparator.h>
#include <leveldb/env.h>
#include <leveldb/iterator.h>
#include <leveldb/options.h>
#include <leveldb/table.h>
#include <leveldb/table_builder.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <new>
#include <vector>

#include "format/ordered_code.h"
#include "platform/crc32c.h"
#include "platform/file.h"
#include "platform/varint.h"
#include "storage/dispatch.h"

namespace ckpt::format {
namespace {

constexpr uint64_t kTableMagic = 0xdb4775248b80fb57ull;

struct BlockHandle {
    uint64_t offset = 0;
    uint64_t size = 0;
};

struct Footer {
    BlockHandle metaindex;
    BlockHandle index;
};

Result<Footer> readFooter(const storage::RandomAccessFile& file) {
    const std::string& path = file.location();
    if (file.size() < kSstableFooterSize)
        return dataLoss("truncated index " + path + ": " + std::to_string(file.size()) + " bytes, an SSTable needs at least a " +
                        std::to_string(kSstableFooterSize) + "-byte footer");
    unsigned char buf[kSstableFooterSize];
    CKPT_RETURN_IF_ERROR(file.read(file.size() - kSstableFooterSize, sizeof buf, buf));
    uint64_t magic = 0;
    std::memcpy(&magic, buf + 40, 8);
    if (magic != kTableMagic)
        return dataLoss("not a checkpoint index: " + path +
                        " has no SSTable magic number at its end (truncated or not an .index file)");
    Footer footer;
    const unsigned char* p = buf;
    const unsigned char* end = buf + 40;
    if (!platform::decodeVarint64(p, end, footer.metaindex.offset) || !platform::decodeVarint64(p, end, footer.metaindex.size) ||
        !platform::decodeVarint64(p, end, footer.index.offset) || !platform::decodeVarint64(p, end, footer.index.size))
        return dataLoss("corrupt index " + path + ": unreadable block handles in the footer");
    const uint64_t limit = file.size() - kSstableFooterSize;
    for (const auto& [name, h] : {std::pair{"metaindex", footer.metaindex}, std::pair{"index", footer.index}}) {
        if (h.offset > limit || h.size > limit - h.offset || kBlockTrailerSize > limit - h.offset - h.size)
            return dataLoss("corrupt index " + path + ": the footer's " + name + " block handle (offset " +
                            std::to_string(h.offset) + ", size " + std::to_string(h.size) +
                            ") points past the end of the file (" + std::to_string(file.size()) + " bytes)");
    }
    return footer;
}

// A Snappy element expands at most 64 bytes from 3 (a copy with a 2-byte
// offset), so a block cannot honestly claim more than ~21.3x its stored size.
constexpr uint64_t kMaxSnappyExpansion = 22;

// The uncompressed size a block of 'stored' bytes claims, if its trailer
// says Snappy (type 1), must be one Snappy could produce: LevelDB allocates
// that claim before it decompresses.
Status checkBlockClaim(const storage::RandomAccessFile& file, const BlockHandle& h, const char* what) {
    unsigned char type = 0;
    CKPT_RETURN_IF_ERROR(file.read(h.offset + h.size, 1, &type));
    if (type != 1) return okStatus();  // stored as is (LevelDB rejects unknown types itself)
    unsigned char head[5] = {};
    const size_t n = static_cast<size_t>(std::min<uint64_t>(sizeof head, h.size));
    CKPT_RETURN_IF_ERROR(file.read(h.offset, n, head));
    uint64_t claimed = 0;
    const unsigned char* p = head;
    if (!platform::decodeVarint64(p, head + n, claimed) || claimed > kMaxSnappyExpansion * h.size + 16)
        return dataLoss("corrupt index " + file.location() + ": a Snappy " + what + " block of " + std::to_string(h.size) +
                        " bytes claims " + std::to_string(claimed) + " bytes uncompressed");
    return okStatus();
}

// LevelDB allocates each block's stored size, taken from the index block's
// handles, before reading it: every handle must lie inside the file. The
// index block is walked here when it is stored uncompressed (as TensorFlow
// and we write it); a Snappy one is only bounded by checkBlockClaim.
Status checkBlockHandles(const storage::RandomAccessFile& file, const Footer& footer) {
    const std::string& path = file.location();
    CKPT_RETURN_IF_ERROR(checkBlockClaim(file, footer.index, "index"));
    unsigned char type = 0;
    CKPT_RETURN_IF_ERROR(file.read(footer.index.offset + footer.index.size, 1, &type));
    if (type != 0) return okStatus();
    std::vector<unsigned char> block(static_cast<size_t>(footer.index.size));
    CKPT_RETURN_IF_ERROR(file.read(footer.index.offset, block.size(), block.data()));
    const auto bad = [&](const std::string& why) { return dataLoss("corrupt index " + path + ": the index block " + why); };
    if (block.size() < 4) return bad("is too short for its restart count");
    uint32_t restarts = 0;
    std::memcpy(&restarts, block.data() + block.size() - 4, 4);
    if (restarts > (block.size() - 4) / 4) return bad("claims more restart points than it has bytes");
    const unsigned char* p = block.data();
    const unsigned char* end = block.data() + block.size() - 4 - 4 * uint64_t{restarts};
    const uint64_t limit = file.size() - kSstableFooterSize;
    while (p < end) {
        uint64_t shared = 0, unshared = 0, valueLength = 0;
        if (!platform::decodeVarint64(p, end, shared) || !platform::decodeVarint64(p, end, unshared) ||
            !platform::decodeVarint64(p, end, valueLength) || unshared > static_cast<uint64_t>(end - p) ||
            valueLength > static_cast<uint64_t>(end - p) - unshared)
            return bad("has an unreadable entry");
        p += unshared;
        const unsigned char* value = p;
        p += valueLength;
        BlockHandle h;
        if (!platform::decodeVarint64(value, p, h.offset) || !platform::decodeVarint64(value, p, h.size))
            return bad("has an unreadable block handle");
        if (h.offset > limit || h.size > limit - h.offset || kBlockTrailerSize > limit - h.offset - h.size)
            return bad("points at a data block (offset " + std::to_string(h.offset) + ", size " + std::to_string(h.size) +
                       ") past the end of the file (" + std::to_string(file.size()) + " bytes)");
        CKPT_RETURN_IF_ERROR(checkBlockClaim(file, h, "data"));
    }
    return okStatus();
}

Status fromLevelDb(const leveldb::Status& s, const std::string& path) {
    if (s.ok()) return okStatus();
    std::string what = s.ToString();
    // LevelDB says "Corruption: block checksum mismatch: <file>"; keep its words, name our file once.
    if (what.rfind("Corruption: ", 0) == 0) what = what.substr(12);
    if (const auto pos = what.find(": " + path); pos != std::string::npos) what.erase(pos);
    if (s.IsNotFound()) return notFound("cannot open " + path + ": " + what);
    if (s.IsIOError()) return dataLoss("cannot read " + path + ": " + what);
    return dataLoss("corrupt index " + path + ": " + what);
}

// LevelDB file adapter over our pread file, so reads are bounded by the real size.
class PreadFile final : public leveldb::RandomAccessFile {
public:
    explicit PreadFile(const storage::RandomAccessFile& file) : m_file(file) {}
    leveldb::Status Read(uint64_t offset, size_t n, leveldb::Slice* result, char* scratch) const override {
        if (offset > m_file.size()) return leveldb::Status::IOError(m_file.location(), "read past end of file");
        n = static_cast<size_t>(std::min<uint64_t>(n, m_file.size() - offset));
        const Status s = m_file.read(offset, n, scratch);
        if (!s.isOk()) return leveldb::Status::IOError(m_file.location(), s.message());
        *result = leveldb::Slice(scratch, n);
        return leveldb::Status::OK();
    }

private:
    const storage::RandomAccessFile& m_file;
};

leveldb::Options tableOptions() {
    leveldb::Options o;
    o.comparator = leveldb::BytewiseComparator();
    o.block_size = kIndexBlockSize;
    o.block_restart_interval = kIndexRestartInterval;
    o.compression = leveldb::kNoCompression;
    o.filter_policy = nullptr;
    o.paranoid_checks = true;  // also verifies the index block's checksum on open
    return o;
}

// Opens the table (after validating the footer) and hands 'use' an iterator
// that verifies every block it reads. LevelDB throws on allocation failure;
// that becomes a DataLoss naming the file.
template <typename UseIterator>
Status withTableIterator(const storage::RandomAccessFile& file, const std::string& path, UseIterator use) {
    // checkBlockHandles reads a byte of every data block, and a scan every
    // block: announced as one front-to-back read, a remote index comes in
    // one or two GETs instead of one per block.
    file.adviseSequential(0, file.size());
    CKPT_ASSIGN_OR_RETURN(const Footer footer, readFooter(file));
    CKPT_RETURN_IF_ERROR(checkBlockHandles(file, footer));
    try {
        PreadFile adapter(file);
        leveldb::Table* raw = nullptr;
        CKPT_RETURN_IF_ERROR(fromLevelDb(leveldb::Table::Open(tableOptions(), &adapter, file.size(), &raw), path));
        std::unique_ptr<leveldb::Table> table(raw);
        leveldb::ReadOptions ro;
        ro.verify_checksums = true;
        ro.fill_cache = false;
        std::unique_ptr<leveldb::Iterator> it(table->NewIterator(ro));
        CKPT_RETURN_IF_ERROR(use(*it));
        return fromLevelDb(it->status(), path);
    } catch (const std::bad_alloc&) {
        return dataLoss("corrupt index " + path + ": a block size in the file is implausibly large");
    } catch (const std::exception& e) {
        return dataLoss("corrupt index " + path + ": " + e.what());
    }
}

template <typename UseIterator>
Status withTableIterator(const std::string& path, UseIterator use) {
    CKPT_ASSIGN_OR_RETURN(auto file, storage::openRandomAccess(path));
    return withTableIterator(*file, path, use);
}

}  // namespace

Status scanIndexTable(const std::string& path, const IndexVisitor& visit) {
    CKPT_ASSIGN_OR_RETURN(auto file, storage::openRandomAccess(path));
    return scanIndexTable(*file, path, visit);
}

Status scanIndexTable(const storage::RandomAccessFile& file, const std::string& path, const IndexVisitor& visit) {
    return withTableIterator(file, path, [&](leveldb::Iterator& it) -> Status {
        // Lookups binary-search the table, so a key out of order or twice
        // hides entries from every reader: the table is corrupt.
        std::string previous;
        bool first = true;
        for (it.SeekToFirst(); it.Valid(); it.Next()) {
            const leveldb::Slice k = it.key();
            const leveldb::Slice v = it.value();
            const std::string_view key(k.data(), k.size());
            if (!first && key <= std::string_view(previous))
                return dataLoss("corrupt index " + path + ": key " + printableKey(key) +
                                (key == previous ? " appears twice" : " is out of order after " + printableKey(previous)) +
                                " (keys must be strictly increasing)");
            first = false;
            previous.assign(key);
            CKPT_RETURN_IF_ERROR(visit(key, {v.data(), v.size()}));
        }
        return okStatus();
    });
}

Result<std::vector<std::optional<std::string>>> lookupIndexEntries(const std::string& path,
                                                                   std::span<const std::string_view> keys) {
    // Seeking in key order lets the iterator keep a data block that holds
    // several of the keys instead of reading it again.
    std::vector<size_t> order(keys.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return keys[a] < keys[b]; });
    std::vector<std::optional<std::string>> values(keys.size());
    CKPT_RETURN_IF_ERROR(withTableIterator(path, [&](leveldb::Iterator& it) -> Status {
        for (size_t i : order) {
            it.Seek(leveldb::Slice(keys[i].data(), keys[i].size()));
            if (!it.status().ok()) return okStatus();  // reported by withTableIterator
            if (it.Valid() && std::string_view(it.key().data(), it.key().size()) == keys[i]) values[i] = it.value().ToString();
        }
        return okStatus();
    }));
    return values;
}

Status verifyIndexFooterAndMetaindex(const std::string& path) {
    CKPT_ASSIGN_OR_RETURN(auto file, storage::openRandomAccess(path));
    return verifyIndexFooterAndMetaindex(*file, path);
}

Status verifyIndexFooterAndMetaindex(const storage::RandomAccessFile& file, const std::string& path) {
    // The footer and a metaindex of usual size in one read (one GET on an
    // object store, not two).
    const uint64_t tail = std::min<uint64_t>(file.size(), 64 * 1024);
    file.adviseSequential(file.size() - tail, tail);
    CKPT_ASSIGN_OR_RETURN(const Footer footer, readFooter(file));
    if (footer.metaindex.size > (1u << 20))
        return dataLoss("corrupt index " + path + ": metaindex block of " + std::to_string(footer.metaindex.size) +
                        " bytes (TensorFlow writes an empty one)");
    std::string block(footer.metaindex.size + kBlockTrailerSize, '\0');
    CKPT_RETURN_IF_ERROR(file.read(footer.metaindex.offset, block.size(), block.data()));
    uint32_t stored = 0;
    std::memcpy(&stored, block.data() + footer.metaindex.size + 1, 4);
    const uint32_t computed = platform::crc32c(block.data(), footer.metaindex.size + 1);
    if (platform::crc32cUnmask(stored) != computed)
        return dataLoss("corrupt index " + path + ": metaindex block checksum mismatch");
    return okStatus();
}

namespace {

// LevelDB's table builder writing through storage::WritableFile, so an
// index reaches its storage the way every other file of a save does (and
// through any wrapper a test installed), and a failure keeps its Status
// (disk full stays ResourceExhausted, naming the file).
class StorageTableFile final : public leveldb::WritableFile {
public:
    explicit StorageTableFile(std::unique_ptr<storage::WritableFile> file) : m_file(std::move(file)) {}
    leveldb::Status Append(const leveldb::Slice& data) override { return keep(m_file->append(data.data(), data.size())); }
    leveldb::Status Flush() override { return leveldb::Status::OK(); }  // buffered until Sync
    // Flushes, fsyncs and closes; the table builder appends nothing after.
    leveldb::Status Sync() override { return keep(m_file->close()); }
    leveldb::Status Close() override { return keep(m_file->close()); }
    const Status& error() const { return m_error; }

private:
    leveldb::Status keep(const Status& s) {
        if (s.isOk()) return leveldb::Status::OK();
        if (m_error.isOk()) m_error = s;
        return leveldb::Status::IOError(s.message());
    }
    std::unique_ptr<storage::WritableFile> m_file;
    Status m_error;
};

}  // namespace

struct IndexTableWriter::Impl {
    std::string path;
    std::unique_ptr<StorageTableFile> file;
    std::unique_ptr<leveldb::TableBuilder> builder;
    bool finished = false;

    Status failure(const leveldb::Status& s) const {
        if (!file->error().isOk()) return file->error();
        return dataLoss("writing " + path + ": " + s.ToString());
    }
};

IndexTableWriter::IndexTableWriter(std::unique_ptr<Impl> impl) : m_impl(std::move(impl)) {}

IndexTableWriter::~IndexTableWriter() {
    if (m_impl->builder && !m_impl->finished) m_impl->builder->Abandon();
    m_impl->builder.reset();
}

Result<std::unique_ptr<IndexTableWriter>> IndexTableWriter::create(const std::string& path,
                                                                   const storage::CreateOptions& options) {
    auto impl = std::make_unique<Impl>();
    impl->path = path;
    CKPT_ASSIGN_OR_RETURN(auto file, storage::create(path, options));
    impl->file = std::make_unique<StorageTableFile>(std::move(file));
    leveldb::Options o = tableOptions();
    impl->builder = std::make_unique<leveldb::TableBuilder>(o, impl->file.get());
    return std::unique_ptr<IndexTableWriter>(new IndexTableWriter(std::move(impl)));
}

Status IndexTableWriter::add(std::string_view key, std::string_view value) {
    m_impl->builder->Add(leveldb::Slice(key.data(), key.size()), leveldb::Slice(value.data(), value.size()));
    const leveldb::Status s = m_impl->builder->status();
    if (!s.ok()) return m_impl->failure(s);
    return okStatus();
}

Status IndexTableWriter::finish() {
    m_impl->finished = true;
    leveldb::Status s = m_impl->builder->Finish();
    if (s.ok()) s = m_impl->file->Sync();
    if (!s.ok()) return m_impl->failure(s);
    return okStatus();
}

}  // namespace ckpt::format
