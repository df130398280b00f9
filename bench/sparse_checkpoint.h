#pragma once
// Name-based checkpoints that the scale benchmarks write without the save
// pipeline: an index written by the engine's own table writer over data
// files of the caller's choosing. writeSparse's data files are holes (every
// tensor zeros, whose crc32c the index states), so a ~1 TB checkpoint of
// 1,000,000 tensors costs only its index on disk. Shared by bench_scale
// (the CLI at scale) and bench_open_stall (the explorer at scale).
//   CKPT_RETURN_IF_ERROR(bench::writeSparse("/var/tmp/x/a/ckpt-1", 1'000'000, 1 << 20, 16));

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

#include "ckpt/bundle_naming.h"
#include "ckpt/status.h"
#include "format/index_table.h"
#include "platform/crc32c.h"
#include "tensor_bundle.pb.h"

namespace ckpt::bench {

struct IndexEntry {
    std::string key;
    int32_t shard = 0;
    int64_t offset = 0;
    int64_t bytes = 0;
    uint32_t maskedCrc = 0;
};

// The index of a name-based bundle of float32 vectors (keys sorted by the caller).
inline Status writeIndex(const std::string& prefix, const std::vector<IndexEntry>& entries, int32_t shards) {
    auto writer = format::IndexTableWriter::create(indexFileName(prefix));
    if (!writer.ok()) return writer.status();
    tensorflow::BundleHeaderProto header;
    header.set_num_shards(shards);
    header.mutable_version()->set_producer(1);
    CKPT_RETURN_IF_ERROR((*writer)->add("", header.SerializeAsString()));
    tensorflow::BundleEntryProto e;
    std::string value;
    for (const IndexEntry& t : entries) {
        e.Clear();
        e.set_dtype(tensorflow::DT_FLOAT);
        e.mutable_shape()->add_dim()->set_size(t.bytes / 4);
        e.set_shard_id(t.shard);
        e.set_offset(t.offset);
        e.set_size(t.bytes);
        e.set_crc32c(t.maskedCrc);
        e.SerializeToString(&value);
        CKPT_RETURN_IF_ERROR((*writer)->add(t.key, value));
    }
    return (*writer)->finish();
}

// "model/block_0012/layer_345/kernel": a thousand layers per block, so a
// block is a node with 1,000 children in any display tree of the keys.
inline std::string scaleKey(int64_t i) {
    char key[64];
    std::snprintf(key, sizeof key, "model/block_%04lld/layer_%03lld/kernel", static_cast<long long>(i / 1000),
                  static_cast<long long>(i % 1000));
    return key;
}

// crc32c of 'n' zero bytes, from one MiB of zeros combined.
inline uint32_t zerosCrc(uint64_t n) {
    static const std::vector<uint8_t> zeros(1u << 20, 0);
    const uint32_t mib = platform::crc32c(zeros.data(), zeros.size());
    uint32_t crc = 0;
    uint64_t done = 0;
    for (; done + zeros.size() <= n; done += zeros.size())
        crc = done == 0 ? mib : platform::crc32cCombine(crc, mib, zeros.size());
    if (done < n) {
        const uint32_t rest = platform::crc32c(zeros.data(), static_cast<size_t>(n - done));
        crc = done == 0 ? rest : platform::crc32cCombine(crc, rest, n - done);
    }
    return crc;
}

// n tensors of 'bytes' each over 'shards' sparse data files: holes, no disk.
inline Status writeSparse(const std::string& prefix, int64_t n, int64_t bytes, int32_t shards) {
    std::error_code ec;
    std::filesystem::create_directories(std::filesystem::path(prefix).parent_path(), ec);
    if (ec) return internalError("cannot create the directory of " + prefix + ": " + ec.message());
    const uint32_t crc = platform::crc32cMask(zerosCrc(static_cast<uint64_t>(bytes)));
    std::vector<IndexEntry> entries(static_cast<size_t>(n));
    std::vector<int64_t> shardBytes(static_cast<size_t>(shards), 0);
    for (int64_t i = 0; i < n; ++i) {
        const auto shard = static_cast<int32_t>(i % shards);
        entries[static_cast<size_t>(i)] = {scaleKey(i), shard, shardBytes[static_cast<size_t>(shard)], bytes, crc};
        shardBytes[static_cast<size_t>(shard)] += bytes;
    }
    for (int32_t s = 0; s < shards; ++s) {
        const std::string path = dataFileName(prefix, s, shards);
        const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd < 0 || ::ftruncate(fd, shardBytes[static_cast<size_t>(s)]) != 0 || ::close(fd) != 0)
            return internalError("cannot create the sparse file " + path + ": " + std::strerror(errno));
    }
    std::sort(entries.begin(), entries.end(), [](const IndexEntry& a, const IndexEntry& b) { return a.key < b.key; });
    return writeIndex(prefix, entries, shards);
}

// The same checkpoint under another name: its index copied, its data hard-linked.
inline Status linkCopy(const std::string& from, const std::string& to) {
    namespace fs = std::filesystem;
    std::error_code ec;
    fs::create_directories(fs::path(to).parent_path(), ec);
    if (!ec) fs::copy_file(indexFileName(from), indexFileName(to), fs::copy_options::overwrite_existing, ec);
    const std::string stem = fs::path(from).filename().string();
    for (fs::directory_iterator it(fs::path(from).parent_path(), ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        if (name.rfind(stem + ".data-", 0) != 0) continue;
        const fs::path target = fs::path(to).parent_path() / (fs::path(to).filename().string() + name.substr(stem.size()));
        fs::remove(target, ec);
        if (!ec) fs::create_hard_link(it->path(), target, ec);
    }
    if (ec) return internalError("cannot copy " + from + " to " + to + ": " + ec.message());
    return okStatus();
}

}  // namespace ckpt::bench
