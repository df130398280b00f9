#include "convert/export_plan.h"

#include <algorithm>
#include <cstdio>
#include <set>

#include <nlohmann/json.hpp>

#include "ckpt/checkpoint_step.h"
#include "ckpt/npy.h"
#include "convert/npz.h"
#include "convert/safetensors.h"
#include "platform/crc32c.h"

namespace ckpt::convert {
namespace {

bool formatHolds(ArrayFormat format, DataType dtype) {
    return format == ArrayFormat::Npz ? !npyDescr(dtype).empty() : !safetensorsDtype(dtype).empty();
}

std::string hex8(uint32_t v) {
    char buf[9];
    std::snprintf(buf, sizeof buf, "%08x", v);
    return buf;
}

// At most 'limit' items of a list for a message, then how many more.
std::string listed(const std::vector<std::string>& items, size_t limit = 20) {
    std::string out;
    for (size_t i = 0; i < items.size() && i < limit; ++i) out += (i ? ", " : "") + items[i];
    if (items.size() > limit) out += " and " + std::to_string(items.size() - limit) + " more";
    return out;
}

std::pair<int32_t, int64_t> dataPosition(const TensorInfo& t) {
    const StoredRegion& r = t.isPartitioned() ? t.slices.front().region : t.region;
    return {r.shardId, r.offset};
}

}  // namespace

Result<ExportPlan> planExport(const Checkpoint& checkpoint, const ExportOptions& options) {
    const BundleReader& reader = checkpoint.bundle();
    ExportPlan plan;
    std::vector<std::string> unsupported;
    int64_t optimizerDropped = 0;
    std::set<std::string> used;
    std::vector<std::string> clashes;
    for (NamedTensor& named : namedTensors(checkpoint)) {
        const TensorInfo& t = *named.info;
        if (options.weightsOnly && named.optimizerState) {
            ++optimizerDropped;
            continue;
        }
        PlannedArray a;
        a.info = &t;
        // Two statements, not a conditional: a conditional mixing an rvalue and a
        // const lvalue copies both ways.
        if (options.names == ArrayNaming::ObjectPaths)
            a.name = std::move(named.name);
        else
            a.name = t.key;
        if (!formatHolds(options.format, t.dtype)) {
            unsupported.push_back("\"" + a.name + "\" (" + std::string(dataTypeName(t.dtype)) + ")");
            continue;
        }
        if (a.name == kNpzMetadataName || !used.insert(a.name).second) clashes.push_back("\"" + a.name + "\"");
        a.crc32c = t.isPartitioned() ? 0 : platform::crc32cUnmask(t.region.maskedCrc32c);
        plan.dataBytes += static_cast<uint64_t>(t.storedBytes());
        plan.arrays.push_back(std::move(a));
    }
    const std::string format(arrayFormatName(options.format));
    if (!unsupported.empty()) {
        if (!options.skipUnsupported)
            return unimplemented(format + " cannot hold " + std::to_string(unsupported.size()) + " tensor(s) of " +
                                 checkpoint.prefix() + ": " + listed(unsupported) + " (--skip-unsupported leaves them out)");
        plan.notes.push_back("left out " + std::to_string(unsupported.size()) + " tensor(s) " + format +
                             " cannot hold: " + listed(unsupported));
    }
    if (!clashes.empty())
        return invalidArgument("object paths would name several tensors alike: " + listed(clashes) +
                               " (--names keys gives each its checkpoint key)");
    if (optimizerDropped > 0)
        plan.notes.push_back("left out " + std::to_string(optimizerDropped) + " optimizer tensor(s) (--weights-only)");

    // Read in the order the bytes lie in the data files.
    std::stable_sort(plan.arrays.begin(), plan.arrays.end(),
                     [](const PlannedArray& a, const PlannedArray& b) { return dataPosition(*a.info) < dataPosition(*b.info); });
    // A partitioned tensor's whole value has no stored checksum: one checked
    // read computes it (they are rare, and the header needs it first).
    Tensor scratch;
    for (PlannedArray& a : plan.arrays) {
        if (!a.info->isPartitioned()) continue;
        if (options.cancel && options.cancel->isCancelled()) return cancelled("export cancelled");
        CKPT_RETURN_IF_ERROR(reader.readInto(*a.info, scratch));
        a.crc32c = platform::crc32c(scratch.bytes.data(), scratch.bytes.size());
    }

    nlohmann::json crcs = nlohmann::json::object(), keys = nlohmann::json::object();
    for (const PlannedArray& a : plan.arrays) {
        crcs[a.name] = hex8(a.crc32c);
        if (a.name != a.info->key) keys[a.name] = a.info->key;
    }
    plan.metadata["ckpt.format"] = "tensorflow-checkpoint";
    plan.metadata["ckpt.source"] = checkpoint.prefix();
    const CheckpointStep step = checkpointStep(checkpoint.prefix(), &reader);
    if (step.step) plan.metadata["ckpt.step"] = std::to_string(*step.step);
    plan.metadata["ckpt.names"] = options.names == ArrayNaming::ObjectPaths ? "paths" : "keys";
    plan.metadata["ckpt.crc32c"] = crcs.dump(-1, ' ', true);
    if (!keys.empty()) plan.metadata["ckpt.keys"] = keys.dump(-1, ' ', true);
    return plan;
}

}  // namespace ckpt::convert
