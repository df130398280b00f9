#include "index_checksums.h"

#include <cstdint>
#include <cstring>
#include <optional>
#include <string_view>

#include "format/index_table.h"
#include "platform/crc32c.h"

namespace ckpt::fuzz {
namespace {

struct Handle {
    uint64_t offset = 0;
    uint64_t size = 0;
};

std::optional<uint64_t> readVarint(std::string_view& in) {
    uint64_t value = 0;
    for (int shift = 0; shift < 64 && !in.empty(); shift += 7) {
        const auto byte = static_cast<uint8_t>(in.front());
        in.remove_prefix(1);
        value |= static_cast<uint64_t>(byte & 0x7f) << shift;
        if (!(byte & 0x80)) return value;
    }
    return std::nullopt;
}

std::optional<Handle> readHandle(std::string_view& in) {
    const auto offset = readVarint(in);
    const auto size = readVarint(in);
    if (!offset || !size) return std::nullopt;
    return Handle{*offset, *size};
}

bool inTable(const std::string& table, const Handle& h) {
    return h.offset <= table.size() && h.size <= table.size() - h.offset &&
           format::kBlockTrailerSize <= table.size() - h.offset - h.size;
}

// Recomputes the trailer of the block at 'h': masked crc32c of contents + type byte.
void refresh(std::string& table, const Handle& h) {
    if (!inTable(table, h)) return;
    const uint32_t crc = platform::crc32cMask(platform::crc32c(table.data() + h.offset, h.size + 1));
    std::memcpy(table.data() + h.offset + h.size + 1, &crc, sizeof crc);
}

// The block handles in an uncompressed index block's values.
template <typename Visit>
void forEachHandle(std::string_view block, Visit visit) {
    if (block.size() < 4) return;
    uint32_t restarts = 0;
    std::memcpy(&restarts, block.data() + block.size() - 4, 4);
    if (restarts > (block.size() - 4) / 4) return;
    std::string_view entries = block.substr(0, block.size() - 4 - 4 * static_cast<size_t>(restarts));
    while (!entries.empty()) {
        const auto shared = readVarint(entries);
        const auto unshared = readVarint(entries);
        const auto valueSize = readVarint(entries);
        if (!shared || !unshared || !valueSize || *unshared > entries.size()) return;
        entries.remove_prefix(*unshared);
        if (*valueSize > entries.size()) return;
        std::string_view value = entries.substr(0, *valueSize);
        entries.remove_prefix(*valueSize);
        if (const auto handle = readHandle(value)) visit(*handle);
    }
}

}  // namespace

void refreshBlockChecksums(std::string& table) {
    if (table.size() < format::kSstableFooterSize) return;
    std::string_view footer(table.data() + table.size() - format::kSstableFooterSize, format::kSstableFooterSize);
    const auto metaindex = readHandle(footer);
    const auto index = readHandle(footer);
    if (!metaindex || !index) return;
    refresh(table, *metaindex);
    if (!inTable(table, *index)) return;
    const bool compressed = table[index->offset + index->size] != 0;
    if (!compressed)
        forEachHandle(std::string_view(table).substr(index->offset, index->size), [&](const Handle& h) { refresh(table, h); });
    refresh(table, *index);
}

}  // namespace ckpt::fuzz
