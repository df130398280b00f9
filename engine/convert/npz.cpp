#include "convert/npz.h"

#include <zip.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <cstdio>

#include "ckpt/npy.h"
#include "format/npy_preamble.h"

namespace ckpt::convert {
namespace {

// Deflate cannot expand data by more than about 1032:1; a member claiming
// more than this over its compressed size is a zip bomb or a lie.
constexpr uint64_t kMaxDeflateRatio = 1100;

Status statusFromZipError(zip_error_t* error, const std::string& what) {
    const int sys = zip_error_code_system(error);
    const std::string text = what + ": " + zip_error_strerror(error);
    if (zip_error_system_type(error) == ZIP_ET_SYS && (sys == ENOSPC || sys == EFBIG || sys == EDQUOT))
        return {StatusCode::ResourceExhausted, text};
    if (zip_error_code_zip(error) == ZIP_ER_INCONS || zip_error_code_zip(error) == ZIP_ER_NOZIP ||
        zip_error_code_zip(error) == ZIP_ER_CRC || zip_error_code_zip(error) == ZIP_ER_COMPNOTSUPP)
        return invalidArgument(text);
    return {StatusCode::DataLoss, text};
}

// One member's bytes handed to libzip while it writes the archive.
struct MemberSource {
    const NpzMember* member = nullptr;
    const ProgressSink* progress = nullptr;
    const CancellationToken* cancel = nullptr;
    Status* firstError = nullptr;  // the archive's first non-zip failure
    int64_t* done = nullptr;
    int64_t total = 0;
    std::vector<uint8_t> values;
    uint64_t pos = 0;
    zip_error_t error{};
};

zip_int64_t memberCallback(void* state, void* data, zip_uint64_t len, zip_source_cmd_t cmd) {
    auto* s = static_cast<MemberSource*>(state);
    const uint64_t preamble = s->member->preamble.size();
    const uint64_t size = preamble + s->member->dataBytes;
    switch (cmd) {
    case ZIP_SOURCE_OPEN: {
        if (s->cancel && s->cancel->isCancelled()) {
            if (s->firstError->isOk()) *s->firstError = cancelled("export cancelled");
            zip_error_set(&s->error, ZIP_ER_CANCELLED, 0);
            return -1;
        }
        Status st = s->member->fill(s->values);
        if (st.isOk() && s->values.size() != s->member->dataBytes)
            st = internalError("member " + s->member->name + " filled with the wrong byte count");
        if (!st.isOk()) {
            if (s->firstError->isOk()) *s->firstError = st;
            zip_error_set(&s->error, ZIP_ER_READ, 0);
            return -1;
        }
        s->pos = 0;
        return 0;
    }
    case ZIP_SOURCE_READ: {
        auto* out = static_cast<uint8_t*>(data);
        const uint64_t n = std::min<uint64_t>(len, size - s->pos);
        for (uint64_t i = 0; i < n;) {
            const uint64_t at = s->pos + i;
            if (at < preamble) {
                const uint64_t k = std::min(n - i, preamble - at);
                std::memcpy(out + i, s->member->preamble.data() + at, k);
                i += k;
            } else {
                const uint64_t k = n - i;
                std::memcpy(out + i, s->values.data() + (at - preamble), k);
                i += k;
            }
        }
        s->pos += n;
        if (*s->progress && n > 0) {
            *s->done += static_cast<int64_t>(n);
            (*s->progress)(*s->done, s->total, "write");
        }
        return static_cast<zip_int64_t>(n);
    }
    case ZIP_SOURCE_CLOSE: std::vector<uint8_t>().swap(s->values); return 0;
    case ZIP_SOURCE_STAT: {
        auto* st = static_cast<zip_stat_t*>(data);
        zip_stat_init(st);
        st->valid = ZIP_STAT_SIZE;
        st->size = size;
        return sizeof(zip_stat_t);
    }
    case ZIP_SOURCE_ERROR: return zip_error_to_data(&s->error, data, len);
    case ZIP_SOURCE_FREE: delete s; return 0;
    case ZIP_SOURCE_SUPPORTS:
        return zip_source_make_command_bitmap(ZIP_SOURCE_OPEN, ZIP_SOURCE_READ, ZIP_SOURCE_CLOSE, ZIP_SOURCE_STAT,
                                              ZIP_SOURCE_ERROR, ZIP_SOURCE_FREE, -1);
    default: zip_error_set(&s->error, ZIP_ER_OPNOTSUPP, 0); return -1;
    }
}

}  // namespace

NpzMember npzStringMember(std::string name, std::string_view text) {
    // numpy's '<U' is UTF-32LE; ASCII needs only the low byte of each unit.
    NpzMember m;
    m.name = std::move(name);
    m.preamble = npyPreamble("<U" + std::to_string(std::max<size_t>(text.size(), 1)), TensorShape{});
    std::vector<uint8_t> bytes(std::max<size_t>(text.size(), 1) * 4, 0);
    for (size_t i = 0; i < text.size(); ++i) bytes[i * 4] = static_cast<uint8_t>(text[i]);
    m.dataBytes = bytes.size();
    m.fill = [bytes = std::move(bytes)](std::vector<uint8_t>& out) {
        out = bytes;
        return okStatus();
    };
    return m;
}

Status writeNpzFile(const std::string& path, const std::vector<NpzMember>& members, const ProgressSink& progress,
                    const CancellationToken* cancel) {
    int openError = 0;
    zip_t* archive = zip_open(path.c_str(), ZIP_CREATE | ZIP_TRUNCATE, &openError);
    if (!archive) {
        zip_error_t e;
        zip_error_init_with_code(&e, openError);
        Status st = statusFromZipError(&e, "cannot create " + path);
        zip_error_fini(&e);
        return st;
    }
    Status firstError;
    int64_t done = 0, total = 0;
    for (const NpzMember& m : members) total += static_cast<int64_t>(m.preamble.size() + m.dataBytes);
    for (const NpzMember& m : members) {
        auto* state = new MemberSource{&m, &progress, cancel, &firstError, &done, total, {}, 0, {}};
        zip_error_init(&state->error);
        zip_source_t* source = zip_source_function(archive, memberCallback, state);
        if (!source) {
            delete state;
            zip_discard(archive);
            return internalError("libzip refused a source for " + m.name);
        }
        const std::string entry = m.name + ".npy";
        const zip_int64_t index = zip_file_add(archive, entry.c_str(), source, ZIP_FL_ENC_UTF_8);
        if (index < 0) {
            zip_source_free(source);
            Status st = statusFromZipError(zip_get_error(archive), "cannot add " + entry + " to " + path);
            zip_discard(archive);
            return st;
        }
        // Stored, as np.savez does: readers may then map members in place.
        zip_set_file_compression(archive, static_cast<zip_uint64_t>(index), ZIP_CM_STORE, 0);
    }
    if (zip_close(archive) != 0) {
        Status st = firstError.isOk() ? statusFromZipError(zip_get_error(archive), "cannot write " + path) : firstError;
        zip_discard(archive);  // libzip removes its own temp file
        return st;
    }
    return okStatus();
}

Result<std::unique_ptr<NpzReader>> NpzReader::open(const std::string& path) {
    int openError = 0;
    zip_t* archive = zip_open(path.c_str(), ZIP_RDONLY | ZIP_CHECKCONS, &openError);
    if (!archive) {
        zip_error_t e;
        zip_error_init_with_code(&e, openError);
        Status st = statusFromZipError(&e, "cannot read " + path + " as an npz (zip) archive");
        zip_error_fini(&e);
        if (openError == ZIP_ER_NOENT) return notFound("no such file: " + path);
        return st;
    }
    std::unique_ptr<NpzReader> reader(new NpzReader(path, archive));
    const zip_int64_t count = zip_get_num_entries(archive, 0);
    for (zip_int64_t i = 0; i < count; ++i) {
        zip_stat_t st;
        if (zip_stat_index(archive, static_cast<zip_uint64_t>(i), 0, &st) != 0)
            return statusFromZipError(zip_get_error(archive), "cannot list " + path);
        std::string name = st.name ? st.name : "";
        const std::string where = "member " + name + " of " + path;
        if (name.size() < 4 || name.substr(name.size() - 4) != ".npy") return invalidArgument(where + " is not a .npy array");
        const bool stored = st.comp_method == ZIP_CM_STORE;
        if ((stored && st.size != st.comp_size) || (!stored && st.size / kMaxDeflateRatio > st.comp_size))
            return invalidArgument(where + " claims " + std::to_string(st.size) + " bytes from " + std::to_string(st.comp_size) +
                                   " compressed ones");
        Member m;
        m.name = name.substr(0, name.size() - 4);
        m.index = static_cast<uint64_t>(i);
        m.size = st.size;
        m.stored = stored;
        // The preamble: 12 bytes say how long the rest of it is.
        zip_file_t* f = zip_fopen_index(archive, m.index, 0);
        if (!f) return statusFromZipError(zip_get_error(archive), "cannot open " + where);
        std::string head(std::min<uint64_t>(st.size, 12), '\0');
        zip_int64_t got = zip_fread(f, head.data(), head.size());
        uint64_t want = head.size();
        if (got == static_cast<zip_int64_t>(head.size()) && head.size() >= 10) {
            const auto major = static_cast<uint8_t>(head[6]);
            uint64_t len = static_cast<uint8_t>(head[8]) | static_cast<uint64_t>(static_cast<uint8_t>(head[9])) << 8;
            if (major >= 2 && head.size() == 12)
                len |= static_cast<uint64_t>(static_cast<uint8_t>(head[10])) << 16 |
                       static_cast<uint64_t>(static_cast<uint8_t>(head[11])) << 24;
            const uint64_t end = (major >= 2 ? 12 : 10) + std::min(len, format::kMaxNpyHeaderBytes + 1);
            want = std::min<uint64_t>(end, st.size);
            if (want > head.size()) {
                const size_t had = head.size();
                head.resize(want);
                const zip_int64_t more = zip_fread(f, head.data() + had, want - had);
                got = more < 0 ? -1 : got + more;
            }
        }
        zip_fclose(f);
        if (got != static_cast<zip_int64_t>(want))
            return invalidArgument("cannot read the .npy header of " + where + ": " + zip_strerror(archive));
        CKPT_ASSIGN_OR_RETURN(auto pre, format::parseNpyPreamble(head, where));
        m.descr = pre.descr;
        m.shape = pre.shape;
        m.dataOffset = pre.dataOffset;
        m.preamble = head.substr(0, pre.dataOffset);
        reader->m_members.push_back(std::move(m));
    }
    return reader;
}

NpzReader::~NpzReader() {
    if (m_zip) zip_discard(m_zip);
}

Status NpzReader::readValues(const Member& member, uint64_t offset, uint64_t length, const TensorSource::ByteSink& sink) const {
    constexpr uint64_t kPiece = 1u << 20;
    const std::string where = "member " + member.name + " of " + m_path;
    const uint64_t values = member.size - member.dataOffset;
    if (offset > values || length > values - offset)
        return internalError("bytes " + std::to_string(offset) + "+" + std::to_string(length) + " lie outside the " +
                             std::to_string(values) + " value bytes of " + where);
    zip_file_t* f = nullptr;
    {
        const std::lock_guard lock(m_lock);
        f = zip_fopen_index(m_zip, member.index, 0);
        if (!f) return statusFromZipError(zip_get_error(m_zip), "cannot open " + where);
    }
    struct Close {
        std::mutex& lock;
        zip_file_t* f;
        ~Close() {
            const std::lock_guard held(lock);
            zip_fclose(f);
        }
    } close{m_lock, f};
    std::vector<uint8_t> piece(std::min<uint64_t>(kPiece, std::max<uint64_t>(length, 1)));
    // Read n bytes into 'piece' (all of them, or fail naming the member).
    auto readPiece = [&](uint64_t n) -> Status {
        uint64_t got = 0;
        while (got < n) {
            zip_int64_t r = 0;
            {
                const std::lock_guard lock(m_lock);
                r = zip_fread(f, piece.data() + got, n - got);
                if (r < 0) return dataLoss("cannot read " + where + ": " + zip_file_strerror(f));
            }
            if (r == 0) return dataLoss(where + " ends before its " + std::to_string(values) + " value bytes");
            got += static_cast<uint64_t>(r);
        }
        return okStatus();
    };
    uint64_t skip = member.dataOffset + offset;
    if (member.stored && skip > 0) {
        const std::lock_guard lock(m_lock);
        if (zip_fseek(f, static_cast<zip_int64_t>(skip), SEEK_SET) != 0)
            return dataLoss("cannot seek in " + where + ": " + zip_file_strerror(f));
        skip = 0;
    }
    for (; skip > 0;) {  // a deflated member: inflate up to the range
        const uint64_t n = std::min<uint64_t>(skip, piece.size());
        CKPT_RETURN_IF_ERROR(readPiece(n));
        skip -= n;
    }
    for (uint64_t done = 0; done < length;) {
        const uint64_t n = std::min<uint64_t>(length - done, piece.size());
        CKPT_RETURN_IF_ERROR(readPiece(n));
        CKPT_RETURN_IF_ERROR(sink(std::span<const uint8_t>(piece.data(), n)));
        done += n;
    }
    if (offset + length == values) {
        // libzip compares the crc32 once a read finds the member's end.
        uint8_t more = 0;
        const std::lock_guard lock(m_lock);
        const zip_int64_t r = zip_fread(f, &more, 1);
        if (r < 0) return dataLoss("cannot read " + where + ": " + zip_file_strerror(f));
        if (r > 0) return dataLoss(where + " holds more than its " + std::to_string(values) + " value bytes");
    }
    return okStatus();
}

Result<std::vector<uint8_t>> NpzReader::readRaw(const Member& member) const {
    const std::lock_guard lock(m_lock);
    // The data is size - dataOffset bytes: bounded by the checks in open().
    std::vector<uint8_t> bytes(member.size - member.dataOffset);
    zip_file_t* f = zip_fopen_index(m_zip, member.index, 0);
    if (!f) return statusFromZipError(zip_get_error(m_zip), "cannot open member " + member.name + " of " + m_path);
    std::vector<char> skip(member.dataOffset);
    bool ok = zip_fread(f, skip.data(), skip.size()) == static_cast<zip_int64_t>(skip.size());
    uint64_t got = 0;
    while (ok && got < bytes.size()) {
        const zip_int64_t n = zip_fread(f, bytes.data() + got, bytes.size() - got);
        if (n <= 0) ok = false;
        else got += static_cast<uint64_t>(n);
    }
    Status st;
    if (!ok) st = dataLoss("cannot read member " + member.name + " of " + m_path + ": " + zip_file_strerror(f));
    zip_fclose(f);
    if (!st.isOk()) return st;
    return bytes;
}

Result<Tensor> NpzReader::read(const Member& member) const {
    CKPT_ASSIGN_OR_RETURN(NpyHeader header, parseNpyHeader(member.preamble, "member " + member.name + " of " + m_path));
    const uint64_t want = static_cast<uint64_t>(*header.shape.numElements()) * dataTypeSize(header.dtype);
    if (want != member.size - member.dataOffset)
        return invalidArgument("member " + member.name + " of " + m_path + ": shape " + header.shape.toString() + " needs " +
                               std::to_string(want) + " bytes, the member holds " +
                               std::to_string(member.size - member.dataOffset));
    Tensor t;
    t.dtype = header.dtype;
    t.shape = std::move(header.shape);
    CKPT_ASSIGN_OR_RETURN(t.bytes, readRaw(member));
    return t;
}

Result<std::string> NpzReader::readString(const Member& member) const {
    if (member.descr.size() < 3 || member.descr.substr(0, 2) != "<U" || !member.shape.dims.empty())
        return invalidArgument("member " + member.name + " of " + m_path + " is not a 0-d unicode string");
    CKPT_ASSIGN_OR_RETURN(auto bytes, readRaw(member));
    std::string text;
    for (size_t i = 0; i + 3 < bytes.size(); i += 4) {
        if (bytes[i + 1] || bytes[i + 2] || bytes[i + 3] || bytes[i] >= 0x80)
            return invalidArgument("member " + member.name + " of " + m_path + " holds non-ASCII text");
        if (bytes[i] == 0) break;  // numpy pads with NULs
        text += static_cast<char>(bytes[i]);
    }
    return text;
}

}  // namespace ckpt::convert
