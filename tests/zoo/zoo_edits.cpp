#include "zoo_edits.h"

#include <filesystem>
#include <fstream>

#include "format/index_table.h"
#include "platform/crc32c.h"

namespace ckpt::zoo {
namespace {

// LevelDB's varint64 (docs/format.md, "Block handles"); the footer's handles use it.
bool readVarint(const std::string& bytes, size_t& pos, uint64_t& value) {
    value = 0;
    for (int shift = 0; shift <= 63 && pos < bytes.size(); shift += 7) {
        const auto byte = static_cast<uint8_t>(bytes[pos++]);
        value |= uint64_t(byte & 0x7f) << shift;
        if (!(byte & 0x80)) return true;
    }
    return false;
}

}  // namespace

Result<std::string> readFile(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return notFound("cannot read " + path);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

Status writeFile(const std::string& path, const std::string& bytes) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    return out ? okStatus() : internalError("cannot write " + path);
}

Status overwrite(const std::string& path, uint64_t offset, const std::string& bytes) {
    CKPT_ASSIGN_OR_RETURN(std::string contents, readFile(path));
    if (offset + bytes.size() > contents.size())
        return outOfRange("offset " + std::to_string(offset) + " past the end of " + path);
    contents.replace(offset, bytes.size(), bytes);
    return writeFile(path, contents);
}

Status flipBit(const std::string& path, uint64_t offset, uint8_t mask) {
    CKPT_ASSIGN_OR_RETURN(std::string contents, readFile(path));
    if (offset >= contents.size()) return outOfRange("offset " + std::to_string(offset) + " past the end of " + path);
    contents[offset] = static_cast<char>(contents[offset] ^ mask);
    return writeFile(path, contents);
}

Status truncateFile(const std::string& path, uint64_t size) {
    std::error_code ec;
    std::filesystem::resize_file(path, size, ec);
    return ec ? internalError("cannot truncate " + path + ": " + ec.message()) : okStatus();
}

Result<TableLayout> readTableLayout(const std::string& indexPath) {
    CKPT_ASSIGN_OR_RETURN(std::string bytes, readFile(indexPath));
    if (bytes.size() < format::kSstableFooterSize) return dataLoss(indexPath + " is shorter than a footer");
    TableLayout t;
    t.fileSize = bytes.size();
    t.footerOffset = bytes.size() - format::kSstableFooterSize;
    size_t pos = t.footerOffset;
    if (!readVarint(bytes, pos, t.metaindexOffset) || !readVarint(bytes, pos, t.metaindexSize) ||
        !readVarint(bytes, pos, t.indexOffset) || !readVarint(bytes, pos, t.indexSize))
        return dataLoss("bad footer in " + indexPath);
    t.dataBlockSize = t.metaindexOffset - format::kBlockTrailerSize;
    return t;
}

Result<IndexEntries> readIndex(const std::string& indexPath) {
    IndexEntries entries;
    CKPT_RETURN_IF_ERROR(format::scanIndexTable(indexPath, [&](std::string_view key, std::string_view value) {
        entries.emplace_back(std::string(key), std::string(value));
        return okStatus();
    }));
    return entries;
}

Status writeIndex(const std::string& indexPath, const IndexEntries& entries) {
    std::filesystem::remove(indexPath);
    CKPT_ASSIGN_OR_RETURN(auto writer, format::IndexTableWriter::create(indexPath));
    for (const auto& [key, value] : entries) CKPT_RETURN_IF_ERROR(writer->add(key, value));
    return writer->finish();
}

Status editIndex(const std::string& indexPath, const std::function<Status(IndexEntries&)>& edit) {
    CKPT_ASSIGN_OR_RETURN(IndexEntries entries, readIndex(indexPath));
    CKPT_RETURN_IF_ERROR(edit(entries));
    return writeIndex(indexPath, entries);
}

Status editEntry(const std::string& indexPath, const std::string& key,
                 const std::function<void(tensorflow::BundleEntryProto&)>& edit) {
    return editIndex(indexPath, [&](IndexEntries& entries) {
        for (auto& [k, value] : entries) {
            if (k != key) continue;
            tensorflow::BundleEntryProto entry;
            if (!entry.ParseFromString(value)) return dataLoss("entry " + key + " does not parse");
            edit(entry);
            value = entry.SerializeAsString();
            return okStatus();
        }
        return notFound("no entry " + key + " in " + indexPath);
    });
}

Status editHeader(const std::string& indexPath, const std::function<void(tensorflow::BundleHeaderProto&)>& edit) {
    return editIndex(indexPath, [&](IndexEntries& entries) {
        if (entries.empty() || !entries.front().first.empty()) return notFound("no header in " + indexPath);
        tensorflow::BundleHeaderProto header;
        if (!header.ParseFromString(entries.front().second)) return dataLoss("header does not parse");
        edit(header);
        entries.front().second = header.SerializeAsString();
        return okStatus();
    });
}

Status patchDataBlock(const std::string& indexPath, const std::string& from, const std::string& to) {
    if (from.size() != to.size()) return invalidArgument("patch must keep the block's length");
    CKPT_ASSIGN_OR_RETURN(TableLayout layout, readTableLayout(indexPath));
    CKPT_ASSIGN_OR_RETURN(std::string bytes, readFile(indexPath));
    const size_t at = bytes.find(from);
    if (at == std::string::npos || at + from.size() > layout.dataBlockSize)
        return notFound("bytes to patch not in the data block of " + indexPath);
    bytes.replace(at, to.size(), to);
    // Block trailer: 1-byte compression type, then the masked crc32c of
    // block contents + type (docs/format.md, "Block trailer and checksum").
    const uint32_t crc = platform::crc32cMask(platform::crc32c(bytes.data(), layout.dataBlockSize + 1));
    for (int i = 0; i < 4; ++i) bytes[layout.dataBlockSize + 1 + i] = static_cast<char>((crc >> (8 * i)) & 0xff);
    return writeFile(indexPath, bytes);
}

std::string headerBytes(int32_t shards) {
    tensorflow::BundleHeaderProto h;
    h.set_num_shards(shards);
    h.mutable_version()->set_producer(1);
    return h.SerializeAsString();
}

std::string entryBytes(int dtype, const std::vector<int64_t>& dims, int64_t size, int32_t shard, int64_t offset, uint32_t crc) {
    tensorflow::BundleEntryProto e;
    e.set_dtype(static_cast<tensorflow::DataType>(dtype));
    for (int64_t d : dims) e.mutable_shape()->add_dim()->set_size(d);
    e.set_shard_id(shard);
    e.set_offset(offset);
    e.set_size(size);
    e.set_crc32c(crc);
    return e.SerializeAsString();
}

}  // namespace ckpt::zoo
