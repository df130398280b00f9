#include "format/region_scan.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <functional>
#include <map>

#include "format/ordered_code.h"
#include "format/region_read.h"
#include "platform/cancellation_scope.h"
#include "platform/crc32c.h"
#include "platform/parallel.h"
#include "platform/file.h"
#include "storage/dispatch.h"

namespace ckpt::format {
namespace {

struct PartJob {
    size_t region;  // index into the regions
    RegionPart part;
};

// Where a part of a region starts in its file.
uint64_t fileOffset(const ScannedRegion& r, const RegionPart& part) {
    return static_cast<uint64_t>(r.region.offset) + part.begin;
}

std::string regionName(const ScannedRegion& r) { return printableKey(r.key) + " in " + platform::baseName(r.file->location()); }

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

// One part's bytes, mapped in place when the system allows (no copy out of
// the page cache), else read into the worker's scratch buffer.
struct PartBytes {
    storage::MappedView mapped;
    std::span<const uint8_t> bytes;
    uint32_t crc = 0;
};

Status readPart(const ScannedRegion& r, const RegionPart& part, std::vector<uint8_t>& scratch, PartBytes& out) {
    const uint64_t offset = fileOffset(r, part);
    if (part.length == 0) {
        out.bytes = {};
        out.crc = 0;
        return okStatus();
    }
    r.file->adviseSequential(offset, part.length);
    if (auto view = r.file->map(offset, static_cast<size_t>(part.length))) {
        out.mapped = std::move(*view);
        out.bytes = {out.mapped.data(), out.mapped.size()};
        out.crc = platform::crc32cExtend(0, out.bytes.data(), out.bytes.size());
        return okStatus();
    }
    scratch.resize(std::max<size_t>(scratch.size(), static_cast<size_t>(part.length)));
    std::vector<uint8_t> unused;
    CKPT_ASSIGN_OR_RETURN(out.crc, readRegionPart(*r.file, offset, part.length, scratch.data(), unused));
    out.bytes = {scratch.data(), static_cast<size_t>(part.length)};
    return okStatus();
}

// What one worker takes at a time: a part read on its own (readRegionPart:
// mapped or pread locally), or a window of a file that cannot be mapped (an
// object in a store, where every read() is a request).
struct WorkItem {
    size_t first = 0;  // into the work order
    size_t count = 1;
    bool window = false;
    uint64_t begin = 0, end = 0;  // file bytes of a window
};

// Checksum-only parts in files without mapped reads, in file order, become
// windows: consecutive parts of one file whose span is at most
// kRegionPartBytes, each read with one read() into the worker's buffer and
// checksummed part by part as it lands. A shard of many small tensors then
// costs a few large requests instead of one per tensor (the store's backend
// fetches one read as one ranged GET), and memory stays at one window per
// worker, never a whole shard. Every other part keeps its place and path,
// so local scans are unchanged.
std::vector<WorkItem> planWork(std::span<const ScannedRegion> regions, std::span<const PartJob> parts,
                               std::vector<size_t>& order) {
    std::map<const storage::RandomAccessFile*, bool> unmappable;
    std::vector<size_t> windowed;
    std::vector<WorkItem> items;
    for (size_t k = 0; k < parts.size(); ++k) {
        const ScannedRegion& r = regions[parts[k].region];
        bool window = !r.readWhole && !r.copyTo && parts[k].part.length > 0;
        if (window) {
            auto [it, added] = unmappable.try_emplace(r.file, false);
            if (added) it->second = !storage::capabilitiesFor(r.file->location()).mappedReads;
            window = it->second;
        }
        if (window) {
            windowed.push_back(k);
        } else {
            items.push_back({order.size(), 1, false, 0, 0});
            order.push_back(k);
        }
    }
    auto offsetOf = [&](size_t k) { return fileOffset(regions[parts[k].region], parts[k].part); };
    std::sort(windowed.begin(), windowed.end(), [&](size_t a, size_t b) {
        const auto* fa = regions[parts[a].region].file;
        const auto* fb = regions[parts[b].region].file;
        return fa != fb ? std::less<>()(fa, fb) : offsetOf(a) < offsetOf(b);
    });
    for (size_t k : windowed) {
        const uint64_t begin = offsetOf(k), end = begin + parts[k].part.length;
        if (!items.empty() && items.back().window) {
            WorkItem& w = items.back();
            const size_t last = order[w.first + w.count - 1];
            if (regions[parts[last].region].file == regions[parts[k].region].file &&
                std::max(w.end, end) - w.begin <= kRegionPartBytes) {
                w.end = std::max(w.end, end);
                ++w.count;
                order.push_back(k);
                continue;
            }
        }
        items.push_back({order.size(), 1, true, begin, end});
        order.push_back(k);
    }
    return items;
}

// What one worker takes at a time in a pair scan: one part of a pair, or a
// window of small pairs (see planPairWork).
struct PairItem {
    size_t first = 0;  // into the work order
    size_t count = 1;
    bool window = false;
    uint64_t beginA = 0, endA = 0, beginB = 0, endB = 0;  // file bytes of a window, per side
};

// Largest span of file bytes one side of a pair window reads.
constexpr uint64_t kPairWindowBytes = 1u << 20;

// Pairs of small regions (under kMapMinBytes, so one part each) are read in
// windows: runs of pairs, in the order of A's file offsets, whose regions
// lie close together in one file per side. Each side of a window is one
// read into the worker's buffer, so 100,000 tiny tensors cost a dozen
// reads instead of a mapping each (fadvise, fstat, mmap, madvise, munmap:
// 90% of a diff's time). A window spans at most kPairWindowBytes and at
// most twice the bytes its regions hold (or kMapMinBytes) on each side:
// gaps between regions are read only where that is cheaper than a call.
// Every other part is an item of its own, read as readPart reads it.
std::vector<PairItem> planPairWork(std::span<const ScannedRegion> a, std::span<const ScannedRegion> b,
                                   std::span<const PartJob> parts, std::vector<size_t>& order) {
    std::vector<PairItem> items;
    struct Small {
        const storage::RandomAccessFile* file;  // A's
        uint64_t offset;                        // in A's file
        size_t part;
    };
    std::vector<Small> small;
    for (size_t k = 0; k < parts.size(); ++k) {
        const uint64_t length = parts[k].part.length;
        if (length > 0 && length < kMapMinBytes) {
            small.push_back({a[parts[k].region].file, fileOffset(a[parts[k].region], parts[k].part), k});
        } else {
            items.push_back({order.size(), 1, false, 0, 0, 0, 0});
            order.push_back(k);
        }
    }
    auto inFileOrder = [](const Small& x, const Small& y) {
        return x.file != y.file ? std::less<>()(x.file, y.file) : x.offset < y.offset;
    };
    // Pairs usually arrive in file order already (an index lists keys sorted).
    if (!std::is_sorted(small.begin(), small.end(), inFileOrder)) std::sort(small.begin(), small.end(), inFileOrder);
    auto startA = [&](size_t k) { return fileOffset(a[parts[k].region], parts[k].part); };
    auto startB = [&](size_t k) { return fileOffset(b[parts[k].region], parts[k].part); };
    uint64_t held = 0;  // bytes of the last window's regions, on each side
    for (const Small& s : small) {
        const size_t k = s.part;
        const uint64_t length = parts[k].part.length;
        const uint64_t beginA = startA(k), beginB = startB(k);
        if (!items.empty() && items.back().window) {
            PairItem& w = items.back();
            const size_t last = order[w.first + w.count - 1];
            const uint64_t spanA = std::max(w.endA, beginA + length) - w.beginA;
            const uint64_t spanB = std::max(w.endB, beginB + length) - std::min(w.beginB, beginB);
            const uint64_t limit = std::min(kPairWindowBytes, std::max(2 * (held + length), kMapMinBytes));
            if (a[parts[last].region].file == a[parts[k].region].file && b[parts[last].region].file == b[parts[k].region].file &&
                spanA <= limit && spanB <= limit) {
                w.endA = std::max(w.endA, beginA + length);
                w.beginB = std::min(w.beginB, beginB);
                w.endB = std::max(w.endB, beginB + length);
                held += length;
                ++w.count;
                order.push_back(k);
                continue;
            }
        }
        items.push_back({order.size(), 1, true, beginA, beginA + length, beginB, beginB + length});
        held = length;
        order.push_back(k);
    }
    return items;
}

}  // namespace

Result<ScanResult> scanRegions(std::span<const ScannedRegion> regions, const ScanOptions& options) {
    // A Cancel also stops the object-store transfer in flight, not only the next part.
    const platform::CancellationScope scope(options.cancel);
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
    std::vector<size_t> order;
    order.reserve(parts.size());
    const std::vector<WorkItem> items = planWork(regions, parts, order);
    std::vector<std::vector<uint8_t>> scratch(std::max<size_t>(1, options.threads));  // one per worker
    std::atomic<int64_t> bytesDone{0};
    std::atomic<bool> wasCancelled{false};
    const Status pool = platform::forEachItem(items.size(), scratch.size(), [&](size_t worker, size_t i) {
        if (wasCancelled || (options.cancel && options.cancel->isCancelled())) {
            wasCancelled = true;
            return;
        }
        const WorkItem& item = items[i];
        if (item.window) {
            std::vector<uint8_t>& buffer = scratch[worker];
            buffer.resize(std::max(buffer.size(), static_cast<size_t>(item.end - item.begin)));
            const ScannedRegion& first = regions[parts[order[item.first]].region];
            const Status read = first.file->read(item.begin, static_cast<size_t>(item.end - item.begin), buffer.data());
            int64_t length = 0;
            for (size_t j = item.first; j < item.first + item.count; ++j) {
                const size_t k = order[j];
                const uint64_t at = fileOffset(regions[parts[k].region], parts[k].part);
                if (read.isOk())
                    partCrcs[k] =
                        platform::crc32cExtend(0, buffer.data() + (at - item.begin), static_cast<size_t>(parts[k].part.length));
                else partStatus[k] = read;
                length += static_cast<int64_t>(parts[k].part.length);
            }
            const int64_t done = bytesDone.fetch_add(length) + length;
            if (options.progress) options.progress(done);
            return;
        }
        const size_t k = order[item.first];
        const PartJob& job = parts[k];
        const ScannedRegion& r = regions[job.region];
        if (r.readWhole) {
            partStatus[k] = r.readWhole();
        } else {
            uint8_t* out = r.copyTo ? r.copyTo + job.part.begin : nullptr;
            auto crc = readRegionPart(*r.file, fileOffset(r, job.part), job.part.length, out, scratch[worker]);
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

Status checkBounds(const ScannedRegion& r) {
    const auto offset = static_cast<uint64_t>(r.region.offset);
    const auto size = static_cast<uint64_t>(r.region.size);
    const uint64_t fileSize = r.file->size();
    if (offset <= fileSize && size <= fileSize - offset) return okStatus();
    return dataLoss("entry " + regionName(r) + " points past the end of the file (offset " + std::to_string(offset) + " + size " +
                    std::to_string(size) + " > " + std::to_string(fileSize) + " bytes)");
}

Result<storage::MappedView> mapVerifiedRegion(const ScannedRegion& r) {
    CKPT_RETURN_IF_ERROR(checkBounds(r));
    const auto size = static_cast<uint64_t>(r.region.size);
    if (size == 0) return failedPrecondition("an empty region has nothing to map");
    auto view = r.file->map(static_cast<uint64_t>(r.region.offset), static_cast<size_t>(size));
    if (!view) return failedPrecondition(view.status().message());
    const PartJob whole{0, {0, size}};
    const uint32_t crc = platform::crc32cExtend(0, view->data(), view->size());
    CKPT_RETURN_IF_ERROR(finishRegion(r, std::span(&whole, 1), std::span<const Status>(), std::span(&crc, 1)));
    return std::move(*view);
}

Result<RegionStream> RegionStream::open(const ScannedRegion& region, bool checksum) {
    if (region.copyTo || region.readWhole) return invalidArgument("a region stream neither copies nor decodes");
    CKPT_RETURN_IF_ERROR(checkBounds(region));
    RegionStream stream;
    stream.m_region = region;
    stream.m_checksum = checksum;
    // A small region is read with one pread, as readRegionPart reads it:
    // advice and a mapping would cost more than the copy.
    if (static_cast<uint64_t>(region.region.size) < kMapMinBytes) stream.m_mapping = false;
    else region.file->adviseSequential(static_cast<uint64_t>(region.region.offset), static_cast<uint64_t>(region.region.size));
    return stream;
}

Result<std::span<const uint8_t>> RegionStream::next(uint64_t length) {
    const auto size = static_cast<uint64_t>(m_region.region.size);
    if (length > size - m_position ||
        (length > 0 && m_position / kStreamChunkBytes != (m_position + length - 1) / kStreamChunkBytes))
        return invalidArgument("window of " + std::to_string(length) + " bytes at " + std::to_string(m_position) +
                               " does not fit the stream of " + printableKey(m_region.key));
    const uint64_t offset = static_cast<uint64_t>(m_region.region.offset);
    std::span<const uint8_t> window;
    if (m_mapping && m_position >= m_chunkEnd) {
        m_chunk = {};  // unmapped before the next one: memory stays at one chunk
        const uint64_t begin = m_position / kStreamChunkBytes * kStreamChunkBytes;
        const uint64_t end = std::min(size, begin + kStreamChunkBytes);
        if (auto view = m_region.file->map(offset + begin, static_cast<size_t>(end - begin))) {
            m_chunk = std::move(*view);
            m_chunkBegin = begin;
            m_chunkEnd = end;
        } else {
            m_mapping = false;  // read from here on; a real read error shows there
        }
    }
    if (m_mapping) {
        window = {m_chunk.data() + (m_position - m_chunkBegin), static_cast<size_t>(length)};
    } else {
        m_buffer.resize(std::max<size_t>(m_buffer.size(), static_cast<size_t>(length)));
        CKPT_RETURN_IF_ERROR(m_region.file->read(offset + m_position, static_cast<size_t>(length), m_buffer.data()));
        window = {m_buffer.data(), static_cast<size_t>(length)};
    }
    if (m_checksum) m_crc = platform::crc32cExtend(m_crc, window.data(), window.size());
    m_position += length;
    return window;
}

Status RegionStream::finish() const {
    const auto size = static_cast<uint64_t>(m_region.region.size);
    if (m_position != size)
        return internalError("the stream of " + regionName(m_region) + " ended at " + std::to_string(m_position) + " of " +
                             std::to_string(size) + " bytes");
    if (!m_checksum) return okStatus();
    const PartJob whole{0, {0, size}};
    return finishRegion(m_region, std::span(&whole, 1), std::span<const Status>(), std::span(&m_crc, 1));
}

Result<PairScanResult> scanRegionPairs(std::span<const ScannedRegion> a, std::span<const ScannedRegion> b,
                                       const ScanOptions& options, const RegionPairConsumer& consume) {
    if (a.size() != b.size()) return invalidArgument("region pairs need as many regions on each side");
    const platform::CancellationScope scope(options.cancel);
    PairScanResult result;
    result.a.resize(a.size());
    result.b.resize(b.size());
    std::vector<PartJob> parts;
    parts.reserve(a.size());
    std::vector<std::pair<size_t, size_t>> partsOf(a.size(), {0, 0});
    for (size_t i = 0; i < a.size(); ++i) {
        if (a[i].region.size != b[i].region.size)
            return invalidArgument("regions of " + printableKey(a[i].key) + " differ in size");
        result.a[i] = checkBounds(a[i]);
        result.b[i] = checkBounds(b[i]);
        partsOf[i].first = parts.size();
        const auto size = static_cast<uint64_t>(a[i].region.size);
        if (result.a[i].isOk() && result.b[i].isOk())
            for (uint64_t k = 0; k < regionPartCount(size); ++k) parts.push_back({i, regionPart(size, k)});
        partsOf[i].second = parts.size() - partsOf[i].first;
    }

    std::vector<uint32_t> crcsA(parts.size(), 0), crcsB(parts.size(), 0);
    std::vector<Status> statusA(parts.size()), statusB(parts.size());
    std::vector<size_t> order;
    order.reserve(parts.size());
    const std::vector<PairItem> items = planPairWork(a, b, parts, order);
    const size_t workers = std::max<size_t>(1, options.threads);
    std::vector<std::vector<uint8_t>> scratchA(workers), scratchB(workers);
    std::atomic<int64_t> bytesDone{0};
    std::atomic<bool> wasCancelled{false};
    auto readWindow = [&](const ScannedRegion& r, uint64_t begin, uint64_t end, std::vector<uint8_t>& buffer) {
        buffer.resize(std::max(buffer.size(), static_cast<size_t>(end - begin)));
        return r.file->read(begin, static_cast<size_t>(end - begin), buffer.data());
    };
    const Status pool = platform::forEachItem(items.size(), workers, [&](size_t worker, size_t i) {
        if (wasCancelled || (options.cancel && options.cancel->isCancelled())) {
            wasCancelled = true;
            return;
        }
        const PairItem& item = items[i];
        if (item.window) {
            const PartJob& head = parts[order[item.first]];
            const Status readA = readWindow(a[head.region], item.beginA, item.endA, scratchA[worker]);
            const Status readB = readWindow(b[head.region], item.beginB, item.endB, scratchB[worker]);
            int64_t length = 0;
            for (size_t j = item.first; j < item.first + item.count; ++j) {
                const size_t k = order[j];
                const PartJob& job = parts[k];
                statusA[k] = readA;
                statusB[k] = readB;
                if (!readA.isOk() || !readB.isOk()) continue;
                const auto n = static_cast<size_t>(job.part.length);
                const std::span<const uint8_t> bytesA(
                    scratchA[worker].data() + (fileOffset(a[job.region], job.part) - item.beginA), n);
                const std::span<const uint8_t> bytesB(
                    scratchB[worker].data() + (fileOffset(b[job.region], job.part) - item.beginB), n);
                crcsA[k] = platform::crc32cExtend(0, bytesA.data(), n);
                crcsB[k] = platform::crc32cExtend(0, bytesB.data(), n);
                consume({job.region, k - partsOf[job.region].first, job.part.begin, bytesA, bytesB});
                length += static_cast<int64_t>(2 * n);
            }
            const int64_t done = bytesDone.fetch_add(length) + length;
            if (options.progress) options.progress(done);
            return;
        }
        const size_t k = order[item.first];
        const PartJob& job = parts[k];
        PartBytes bytesA, bytesB;
        statusA[k] = readPart(a[job.region], job.part, scratchA[worker], bytesA);
        statusB[k] = readPart(b[job.region], job.part, scratchB[worker], bytesB);
        if (!statusA[k].isOk() || !statusB[k].isOk()) return;
        crcsA[k] = bytesA.crc;
        crcsB[k] = bytesB.crc;
        consume({job.region, k - partsOf[job.region].first, job.part.begin, bytesA.bytes, bytesB.bytes});
        const auto length = static_cast<int64_t>(2 * job.part.length);
        const int64_t done = bytesDone.fetch_add(length) + length;
        if (options.progress) options.progress(done);
    });
    CKPT_RETURN_IF_ERROR(pool);
    if (wasCancelled) return cancelled("region scan cancelled");

    for (size_t i = 0; i < a.size(); ++i) {
        const auto [first, count] = partsOf[i];
        if (count == 0) continue;  // failed a bounds check
        const std::span<const PartJob> pieces = std::span(parts).subspan(first, count);
        result.a[i] = finishRegion(a[i], pieces, std::span<const Status>(statusA).subspan(first, count),
                                   std::span<const uint32_t>(crcsA).subspan(first, count));
        result.b[i] = finishRegion(b[i], pieces, std::span<const Status>(statusB).subspan(first, count),
                                   std::span<const uint32_t>(crcsB).subspan(first, count));
    }
    result.bytesScanned = bytesDone.load();
    return result;
}

}  // namespace ckpt::format
