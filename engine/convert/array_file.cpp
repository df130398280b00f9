#include "convert/array_file.h"

#include <algorithm>

#include "ckpt/npy.h"
#include "convert/npz.h"
#include "convert/safetensors.h"
#include "platform/file.h"
#include "storage/dispatch.h"

namespace ckpt::convert {
namespace {

class SafetensorsFile final : public ArrayFile {
public:
    static Result<std::unique_ptr<ArrayFile>> open(std::unique_ptr<storage::RandomAccessFile> file) {
        const uint64_t size = file->size();
        std::string head(std::min<uint64_t>(size, 8), '\0');
        CKPT_RETURN_IF_ERROR(file->read(0, head.size(), head.data()));
        if (head.size() == 8) {
            uint64_t length = 0;
            for (int i = 0; i < 8; ++i)
                length |= static_cast<uint64_t>(static_cast<uint8_t>(head[static_cast<size_t>(i)])) << (8 * i);
            // Only read as much as the parser will accept; it names the rest.
            if (length <= kMaxSafetensorsHeaderBytes && length <= size - 8) {
                head.resize(8 + length);
                CKPT_RETURN_IF_ERROR(file->read(8, length, head.data() + 8));
            }
        }
        CKPT_ASSIGN_OR_RETURN(auto header, parseSafetensorsHeader(head, size, file->location()));
        std::unique_ptr<SafetensorsFile> out(new SafetensorsFile);
        for (const SafetensorsEntry& e : header.entries) out->m_arrays.push_back({e.name, e.dtype, e.shape});
        out->m_header = std::move(header);
        out->m_file = std::move(file);
        return std::unique_ptr<ArrayFile>(std::move(out));
    }
    ArrayFormat format() const override { return ArrayFormat::Safetensors; }
    Result<Tensor> read(size_t index) const override {
        const SafetensorsEntry& e = m_header.entries[index];
        Tensor t;
        t.dtype = e.dtype;
        t.shape = e.shape;
        t.bytes.resize(e.end - e.begin);  // inside the file: checked by the parser
        CKPT_RETURN_IF_ERROR(m_file->read(m_header.dataStart + e.begin, t.bytes.size(), t.bytes.data()));
        return t;
    }

private:
    SafetensorsHeader m_header;
    std::unique_ptr<storage::RandomAccessFile> m_file;
};

class NpzFile final : public ArrayFile {
public:
    static Result<std::unique_ptr<ArrayFile>> open(const std::string& path) {
        CKPT_ASSIGN_OR_RETURN(auto reader, NpzReader::open(path));
        std::unique_ptr<NpzFile> out(new NpzFile);
        for (const NpzReader::Member& m : reader->members()) {
            if (m.name == kNpzMetadataName) continue;
            CKPT_ASSIGN_OR_RETURN(NpyHeader h, parseNpyHeader(m.preamble, "member " + m.name + " of " + path));
            const uint64_t want = static_cast<uint64_t>(*h.shape.numElements()) * dataTypeSize(h.dtype);
            if (want != m.size - m.dataOffset)
                return invalidArgument("member " + m.name + " of " + path + ": shape " + h.shape.toString() + " needs " +
                                       std::to_string(want) + " bytes, the member holds " +
                                       std::to_string(m.size - m.dataOffset));
            out->m_arrays.push_back({m.name, h.dtype, h.shape});
            out->m_members.push_back(&m);
        }
        out->m_reader = std::move(reader);
        return std::unique_ptr<ArrayFile>(std::move(out));
    }
    ArrayFormat format() const override { return ArrayFormat::Npz; }
    Result<Tensor> read(size_t index) const override { return m_reader->read(*m_members[index]); }

private:
    std::unique_ptr<NpzReader> m_reader;
    std::vector<const NpzReader::Member*> m_members;  // point into m_reader's list
};

}  // namespace

Result<std::unique_ptr<ArrayFile>> ArrayFile::open(const std::string& path) {
    CKPT_ASSIGN_OR_RETURN(auto file, storage::openRandomAccess(path));
    // A zip starts with a local header, or the end record when empty.
    std::string magic(std::min<uint64_t>(file->size(), 4), '\0');
    CKPT_RETURN_IF_ERROR(file->read(0, magic.size(), magic.data()));
    if (magic == std::string_view("PK\x03\x04", 4) || magic == std::string_view("PK\x05\x06", 4)) return NpzFile::open(path);
    return SafetensorsFile::open(std::move(file));
}

}  // namespace ckpt::convert
