#include "zeros_npz.h"

#include <zlib.h>

#include <fstream>
#include <vector>

#include "ckpt/npy.h"

namespace ckpt::testing {
namespace {

void put16(std::string& out, uint32_t v) {
    out.push_back(static_cast<char>(v & 0xff));
    out.push_back(static_cast<char>((v >> 8) & 0xff));
}
void put32(std::string& out, uint32_t v) {
    put16(out, v & 0xffff);
    put16(out, v >> 16);
}
void put64(std::string& out, uint64_t v) {
    put32(out, static_cast<uint32_t>(v));
    put32(out, static_cast<uint32_t>(v >> 32));
}

// Raw deflate of 'in' ending in a full flush (byte-aligned, no history kept).
std::string deflatePiece(z_stream& z, const std::string& in, int flush) {
    std::string out;
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
    z.avail_in = static_cast<uInt>(in.size());
    std::vector<char> buffer(1 << 16);
    do {
        z.next_out = reinterpret_cast<Bytef*>(buffer.data());
        z.avail_out = static_cast<uInt>(buffer.size());
        deflate(&z, flush);
        out.append(buffer.data(), buffer.size() - z.avail_out);
    } while (z.avail_out == 0);
    return out;
}

}  // namespace

std::string writeZerosNpz(const std::string& path, const std::string& memberName, const TensorShape& shape) {
    constexpr uint64_t kPiece = 1u << 20;
    const std::string preamble = npyPreamble("<f4", shape);
    const uint64_t zeros = static_cast<uint64_t>(shape.numElements().value_or(0)) * 4;
    const uint64_t size = preamble.size() + zeros;

    z_stream z{};
    if (deflateInit2(&z, Z_BEST_COMPRESSION, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK) return "deflateInit2 failed";
    const std::string head = deflatePiece(z, preamble, Z_FULL_FLUSH);
    const std::string piece = deflatePiece(z, std::string(kPiece, '\0'), Z_FULL_FLUSH);
    const std::string rest = deflatePiece(z, std::string(zeros % kPiece, '\0'), Z_FULL_FLUSH);
    const std::string tail = deflatePiece(z, std::string(), Z_FINISH);
    deflateEnd(&z);
    const uint64_t pieces = zeros / kPiece;
    const uint64_t compressed = head.size() + pieces * piece.size() + rest.size() + tail.size();

    uLong crc = crc32(0, reinterpret_cast<const Bytef*>(preamble.data()), static_cast<uInt>(preamble.size()));
    const std::string zeroPiece(kPiece, '\0');
    const uLong pieceCrc = crc32(0, reinterpret_cast<const Bytef*>(zeroPiece.data()), static_cast<uInt>(kPiece));
    for (uint64_t i = 0; i < pieces; ++i) crc = crc32_combine(crc, pieceCrc, static_cast<z_off_t>(kPiece));
    const uLong restCrc = crc32(0, reinterpret_cast<const Bytef*>(zeroPiece.data()), static_cast<uInt>(zeros % kPiece));
    crc = crc32_combine(crc, restCrc, static_cast<z_off_t>(zeros % kPiece));

    const std::string name = memberName + ".npy";
    const bool zip64 = size >= 0xffffffffu || compressed >= 0xffffffffu;
    std::string extra;
    if (zip64) {
        put16(extra, 0x0001);  // ZIP64 extended information: uncompressed, compressed size
        put16(extra, 16);
        put64(extra, size);
        put64(extra, compressed);
    }
    const uint32_t version = zip64 ? 45 : 20;
    const uint32_t shortSize = zip64 ? 0xffffffffu : static_cast<uint32_t>(size);
    const uint32_t shortCompressed = zip64 ? 0xffffffffu : static_cast<uint32_t>(compressed);

    std::string local;
    put32(local, 0x04034b50);
    put16(local, version);
    put16(local, 0);     // flags
    put16(local, 8);     // deflated
    put16(local, 0);     // time
    put16(local, 0x21);  // date: 1980-01-01
    put32(local, static_cast<uint32_t>(crc));
    put32(local, shortCompressed);
    put32(local, shortSize);
    put16(local, static_cast<uint32_t>(name.size()));
    put16(local, static_cast<uint32_t>(extra.size()));
    local += name + extra;

    std::string central;
    put32(central, 0x02014b50);
    put16(central, version);  // made by
    put16(central, version);  // needed
    put16(central, 0);
    put16(central, 8);
    put16(central, 0);
    put16(central, 0x21);
    put32(central, static_cast<uint32_t>(crc));
    put32(central, shortCompressed);
    put32(central, shortSize);
    put16(central, static_cast<uint32_t>(name.size()));
    put16(central, static_cast<uint32_t>(extra.size()));
    put16(central, 0);  // comment
    put16(central, 0);  // disk
    put16(central, 0);  // internal attributes
    put32(central, 0);  // external attributes
    put32(central, 0);  // the local header's offset
    central += name + extra;

    const uint64_t centralOffset = local.size() + compressed;
    std::string end;
    put32(end, 0x06054b50);
    put16(end, 0);
    put16(end, 0);
    put16(end, 1);
    put16(end, 1);
    put32(end, static_cast<uint32_t>(central.size()));
    put32(end, static_cast<uint32_t>(centralOffset));
    put16(end, 0);

    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << local << head;
    for (uint64_t i = 0; i < pieces; ++i) out << piece;
    out << rest << tail << central << end;
    return out ? std::string() : "cannot write " + path;
}

}  // namespace ckpt::testing
