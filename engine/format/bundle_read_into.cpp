// BundleReader's reads into caller memory (ckpt/bundle_reader.h): the
// checksummed region scan of format/region_scan.h pointed at the caller's
// buffers, and row ranges read without the whole region.

#include <cstring>

#include "ckpt/bundle_reader.h"
#include "format/bundle_reader_access.h"
#include "format/ordered_code.h"
#include "format/region_scan.h"
#include "platform/file.h"
#include "platform/parallel.h"

namespace ckpt {
namespace {

// Below this a batch stays on the calling thread: starting workers costs
// more than the read (restore's value reader draws the line at the same size).
constexpr int64_t kParallelThresholdBytes = 8 << 20;

Status checkTarget(const TensorReadTarget& t, const std::string& indexPath) {
    if (!t.info) return invalidArgument("a read target without a tensor");
    const TensorInfo& info = *t.info;
    if (!isFixedSize(info.dtype) || !isDecodable(info.dtype))
        return invalidArgument("cannot read " + format::printableKey(info.key) + " from " + indexPath +
                               " into a buffer: " + std::string(dataTypeName(info.dtype)) + " has no fixed-size values");
    const int64_t expected = info.storedBytes();
    if (static_cast<int64_t>(t.out.size()) != expected)
        return invalidArgument("buffer of " + std::to_string(t.out.size()) + " bytes for " + format::printableKey(info.key) +
                               ", which needs " + std::to_string(expected));
    return okStatus();
}

}  // namespace

Result<std::vector<Status>> BundleReader::readTensorsInto(std::span<const TensorReadTarget> targets,
                                                          const ReadIntoOptions& options) const {
    std::vector<Status> result(targets.size());
    std::vector<format::ScannedRegion> regions;
    std::vector<size_t> targetOf;  // region -> target
    int64_t total = 0;
    for (size_t i = 0; i < targets.size(); ++i) {
        const TensorReadTarget& t = targets[i];
        if (Status s = checkTarget(t, indexPath()); !s.isOk()) {
            result[i] = std::move(s);
            continue;
        }
        const TensorInfo& info = *t.info;
        format::ScannedRegion r;
        r.key = info.key;
        r.region = info.region;
        if (info.isPartitioned()) {
            // Assembled from its slices by read(), each checked; then copied.
            // Its size counts for progress (the entry's own region is empty).
            r.region.size = info.storedBytes();
            r.readWhole = [this, &info, out = t.out]() -> Status {
                auto value = read(info);
                if (!value) return value.status();
                if (!value->bytes.empty()) std::memcpy(out.data(), value->bytes.data(), out.size());
                return okStatus();
            };
        } else {
            auto file = format::shardFile(*this, info.region.shardId);
            if (!file) {
                result[i] = file.status();
                continue;
            }
            r.file = *file;
            r.copyTo = t.out.data();
        }
        total += info.storedBytes();
        regions.push_back(std::move(r));
        targetOf.push_back(i);
    }
    format::ScanOptions scan;
    scan.threads = total < kParallelThresholdBytes ? 1 : platform::threadsOrDefault(options.threads);
    scan.cancel = options.cancel;
    if (options.progress) {
        scan.progress = [&options, total](int64_t done) { options.progress(done, total, "read"); };
    }
    CKPT_ASSIGN_OR_RETURN(format::ScanResult scanned, format::scanRegions(regions, scan));
    for (size_t k = 0; k < regions.size(); ++k) {
        result[targetOf[k]] = std::move(scanned.regions[k]);
        const TensorReadTarget& t = targets[targetOf[k]];
        // readWhole failures (scanRegions zeroes only the regions it copied).
        if (!result[targetOf[k]].isOk() && !t.out.empty()) std::memset(t.out.data(), 0, t.out.size());
    }
    return result;
}

Status BundleReader::readRowsInto(const TensorInfo& info, int64_t rowBegin, int64_t rowEnd, std::span<uint8_t> out) const {
    const std::string what = format::printableKey(info.key) + " in " + indexPath();
    if (!isFixedSize(info.dtype) || !isDecodable(info.dtype))
        return invalidArgument("cannot read rows of " + what + ": " + std::string(dataTypeName(info.dtype)) +
                               " has no fixed-size values");
    if (info.shape.rank() < 1) return invalidArgument("cannot read rows of " + what + ": it is a scalar");
    const int64_t rows = info.shape.dims[0];
    if (rowBegin < 0 || rowEnd < rowBegin || rowEnd > rows)
        return invalidArgument("rows [" + std::to_string(rowBegin) + ", " + std::to_string(rowEnd) + ") lie outside " + what +
                               " of shape " + info.shape.toString());
    // numElements() is known not to overflow (the index was checked), so
    // neither does a row's share of it.
    const int64_t rowBytes = rows == 0 ? 0 : info.storedBytes() / rows;
    const int64_t length = (rowEnd - rowBegin) * rowBytes;
    if (static_cast<int64_t>(out.size()) != length)
        return invalidArgument("buffer of " + std::to_string(out.size()) + " bytes for " + std::to_string(rowEnd - rowBegin) +
                               " row(s) of " + what + ", which need " + std::to_string(length));
    if (length == 0) return okStatus();
    if (info.isPartitioned()) {
        CKPT_ASSIGN_OR_RETURN(Tensor whole, read(info));
        std::memcpy(out.data(), whole.bytes.data() + rowBegin * rowBytes, out.size());
        return okStatus();
    }
    CKPT_ASSIGN_OR_RETURN(const storage::RandomAccessFile* file, format::shardFile(*this, info.region.shardId));
    format::ScannedRegion bounds{file, info.key, info.region, nullptr, nullptr};
    CKPT_RETURN_IF_ERROR(format::checkBounds(bounds));
    return file->read(static_cast<uint64_t>(info.region.offset + rowBegin * rowBytes), out.size(), out.data());
}

}  // namespace ckpt
