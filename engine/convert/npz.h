#pragma once
// numpy's .npz: a zip archive of NAME.npy members (np.savez stores them,
// np.savez_compressed deflates them), through libzip. Writing streams: each
// member's values are fetched by a callback while the archive is written,
// one member at a time, stored (no compression), ZIP64 where a member or the
// archive needs it. Reading takes stored and deflated members alike, whole
// (read) or streamed in bounded pieces (readValues, which import uses).
// Internal to the engine (ckpt/convert.h is the API). An NpzReader may be
// read from several threads (the archive is read under a lock).
//   NpzReader::open(path) -> members() -> read(member) | readValues(member, ...)

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "ckpt/cancellation.h"
#include "ckpt/status.h"
#include "ckpt/tensor.h"
#include "ckpt/tensor_source.h"

struct zip;

namespace ckpt::convert {

// The side entry our exports carry: a 0-d '<U' array (unicode string)
// holding JSON, which numpy.load reads without allow_pickle.
inline constexpr std::string_view kNpzMetadataName = "__ckpt_metadata__";

struct NpzMember {
    std::string name;      // without ".npy"
    std::string preamble;  // npyPreamble(...)
    uint64_t dataBytes = 0;
    // Fills 'bytes' with exactly dataBytes bytes of values.
    std::function<Status(std::vector<uint8_t>& bytes)> fill;
};

// Writes the archive at 'path' (libzip writes a temp file beside it and
// renames it there on success; on failure nothing is left at 'path' by us).
// 'progress' gets each member's bytes as they go out. A failed fill() or a
// write error (ENOSPC: ResourceExhausted) comes back as the Status.
Status writeNpzFile(const std::string& path, const std::vector<NpzMember>& members, const ProgressSink& progress,
                    const CancellationToken* cancel);

// A 0-d '<U' member holding 'text' (ASCII) as numpy spells it.
NpzMember npzStringMember(std::string name, std::string_view text);

class NpzReader {
public:
    struct Member {
        std::string name;  // without ".npy"
        uint64_t index = 0;
        std::string descr;
        TensorShape shape;
        uint64_t dataOffset = 0;
        uint64_t size = 0;     // uncompressed, preamble included
        std::string preamble;  // the .npy header bytes
        bool stored = false;   // not compressed: seekable
    };
    // Lists the members and parses each preamble. InvalidArgument naming the
    // file and member for a damaged archive, a member that is not .npy,
    // a malformed preamble or sizes that disagree.
    [[nodiscard]] static Result<std::unique_ptr<NpzReader>> open(const std::string& path);
    ~NpzReader();
    NpzReader(const NpzReader&) = delete;
    NpzReader& operator=(const NpzReader&) = delete;

    const std::vector<Member>& members() const { return m_members; }
    // A numeric member's values (unsupported descrs: InvalidArgument).
    Result<Tensor> read(const Member& member) const;
    // A '<U' member as ASCII text (our side entry).
    Result<std::string> readString(const Member& member) const;
    // The member's value bytes [offset, offset + length) (after its .npy
    // header) handed to 'sink' in pieces of at most 1 MiB as they come out
    // of the archive: memory stays bounded whatever the member's size.
    // Stored members seek there; deflated ones inflate from their start.
    // Reading to the member's end checks its crc32 (DataLoss naming it).
    Status readValues(const Member& member, uint64_t offset, uint64_t length, const TensorSource::ByteSink& sink) const;

private:
    NpzReader(std::string path, zip* archive) : m_path(std::move(path)), m_zip(archive) {}
    Result<std::vector<uint8_t>> readRaw(const Member& member) const;
    std::string m_path;
    zip* m_zip;
    std::vector<Member> m_members;
    mutable std::mutex m_lock;  // around every libzip call on m_zip and its files
};

}  // namespace ckpt::convert
