#include "format/region_scan.h"

#include <algorithm>
#include <atomic>
#include <cstdio>

#include "format/ordered_code.h"
#include "format/region_read.h"
#include "platform/crc32c.h"
#include "platform/parallel.h"

namespace ckpt::format {
namespace {

struct PartJob {
    size_t region;  // index into the regions
    RegionPart part;
};

std::string regionName(const ScannedRegion& r) { return printableKey(r.key) + " in " + platform::baseName(r.file->path()); }

Status checkBounds(const ScannedRegion& r) {
    const auto offset = static_cast<uint64_t>(r.region.offset);
    const auto size = static_cast<uint64_t>(r.region.size);
    const uint64_t fileSize = r.file->size();
    if (offset <= fileSize && size <= fileSize - offset) return okStatus();
    return dataLoss("entry " + regionName(r) + " points past the end of the file (offset " + std::to_string(offset) + " + size " +
                    std::to_string(size) + " > " + std::to_string(fileSize) + " bytes)");
}

// The first failed part's status, else the joined checksum against the stored one.
Status finishRegion(const ScannedRegion& r, std::span<const PartJob> parts, std::span<const Status> partStatus,
                    std::span<const uint32_t> partCrcs) {
    for (const Status& s : partStatus)
        if (!s.isOk()) return s;
    std::vector<RegionPart> pieces;
    for (const PartJob& p : parts) pieces.push_back(p.part);
    const uint32_t crc = platform::crc32cMask(combinePartCrcs(pieces, partCrcs));
    if (crc == r.region.maskedCrc32c) return okStatus();
    char detail[96];
    std::snprintf(detail, sizeof detail, " (stored 0x%08x, computed 0x%08x)", r.region.maskedCrc32c, crc);
    return dataLoss("checksum mismatch for " + regionName(r) + " at offset " + std::to_string(r.region.offset) + detail);
}

}  // namespace

Result<ScanResult> scanRegions(std::span<const ScannedRegion> regions, const ScanOptions& options) {
    ScanResult result;
    result.regions.resize(regions.size());
    // Each region's parts stay contiguous so finishRegion can join them.
    std::vector<PartJob> parts;
    std::vector<std::pair<size_t, size_t>> partsOf(regions.size(), {0, 0});  // first part, count
    for (size_t i = 0; i < regions.size(); ++i) {
        const ScannedRegion& r = regions[i];
        const auto size = static_cast<uint64_t>(r.region.size);
        partsOf[i].first = parts.size();
        if (r.readWhole) {
            parts.push_back({i, {0, size}});
        } else if (Status s = checkBounds(r); !s.isOk()) {
            result.regions[i] = std::move(s);
        } else {
            for (const RegionPart& p : splitRegion(size)) parts.push_back({i, p});
        }
        partsOf[i].second = parts.size() - partsOf[i].first;
    }

    std::vector<uint32_t> partCrcs(parts.size(), 0);
    std::vector<Status> partStatus(parts.size());
    std::vector<std::vector<uint8_t>> scratch(std::max<size_t>(1, options.threads));  // one per worker
    std::atomic<int64_t> bytesDone{0};
    std::atomic<bool> wasCancelled{false};
    const Status pool = platform::forEachItem(parts.size(), scratch.size(), [&](size_t worker, size_t k) {
        if (wasCancelled || (options.cancel && options.cancel->isCancelled())) {
            wasCancelled = true;
            return;
        }
        const PartJob& job = parts[k];
        const ScannedRegion& r = regions[job.region];
        if (r.readWhole) {
            partStatus[k] = r.readWhole();
        } else {
            uint8_t* out = r.copyTo ? r.copyTo + job.part.begin : nullptr;
            auto crc = readRegionPart(*r.file, static_cast<uint64_t>(r.region.offset) + job.part.begin, job.part.length, out,
                                      scratch[worker]);
            if (crc) partCrcs[k] = *crc;
            else partStatus[k] = crc.status();
        }
        const auto length = static_cast<int64_t>(job.part.length);
        const int64_t done = bytesDone.fetch_add(length) + length;
        if (options.progress) options.progress(done);
    });
    CKPT_RETURN_IF_ERROR(pool);
    if (wasCancelled) return cancelled("region scan cancelled");

    for (size_t i = 0; i < regions.size(); ++i) {
        const auto [first, count] = partsOf[i];
        if (count == 0) continue;  // failed its bounds check
        const std::span<const Status> status(partStatus.data() + first, count);
        if (regions[i].readWhole) {
            result.regions[i] = status.front();
            continue;
        }
        result.regions[i] = finishRegion(regions[i], std::span(parts).subspan(first, count), status,
                                         std::span<const uint32_t>(partCrcs).subspan(first, count));
        if (!result.regions[i].isOk() && regions[i].copyTo)
            std::fill_n(regions[i].copyTo, static_cast<size_t>(regions[i].region.size), uint8_t{0});
    }
    result.bytesScanned = bytesDone.load();
    return result;
}

}  // namespace ckpt::format
