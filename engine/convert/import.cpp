// importArrays: a model spec's variables filled from a .safetensors or .npz
// file, written through the save pipeline, verified, and compared back.

#include "ckpt/convert.h"

#include <cstring>
#include <map>
#include <set>

#include "ckpt/bundle_reader.h"
#include "ckpt/model_spec.h"
#include "ckpt/object_graph.h"
#include "ckpt/verify.h"
#include "convert/array_file.h"
#include "convert/array_names.h"
#include "convert/output_file.h"

namespace ckpt {
namespace {

std::string listed(const std::vector<std::string>& items, size_t limit = 20) {
    std::string out;
    for (size_t i = 0; i < items.size() && i < limit; ++i) out += (i ? "; " : "") + items[i];
    if (items.size() > limit) out += "; and " + std::to_string(items.size() - limit) + " more";
    return out;
}

std::string describe(DataType dtype, const TensorShape& shape) {
    return std::string(dataTypeShortName(dtype)) + " " + shape.toString();
}

struct Match {
    size_t tensor = 0;  // index into the snapshot
    size_t array = 0;   // index into the file's arrays
};

}  // namespace

Result<ImportResult> importArrays(const std::string& input, const std::string& dstPrefix, const std::string& specPath,
                                  const ImportOptions& options) {
    auto checkCancel = [&] {
        return options.cancel && options.cancel->isCancelled() ? cancelled("import cancelled") : okStatus();
    };
    CKPT_RETURN_IF_ERROR(convert::checkImportDestination(dstPrefix, input, options.overwrite));
    CKPT_ASSIGN_OR_RETURN(auto file, convert::ArrayFile::open(input));
    CKPT_ASSIGN_OR_RETURN(auto root, loadModelSpec(specPath));
    // The spec's variables named the way an export names them.
    CKPT_ASSIGN_OR_RETURN(std::string graphBytes, serializeObjectGraph(*root));
    CKPT_ASSIGN_OR_RETURN(ObjectGraph graph, ObjectGraph::parse(graphBytes, specPath));
    const std::map<std::string, convert::ArrayName> paths = convert::objectPathNames(graph);
    CKPT_ASSIGN_OR_RETURN(std::vector<SaveTensor> tensors, snapshotForSave(*root));

    std::map<std::string, size_t> arrayByName;
    for (size_t i = 0; i < file->arrays().size(); ++i) arrayByName.emplace(file->arrays()[i].name, i);
    std::vector<Match> matches;
    std::set<size_t> taken;
    std::vector<std::string> problems;
    for (size_t t = 0; t < tensors.size(); ++t) {
        const SaveTensor& st = tensors[t];
        if (st.key == kObjectGraphKey) continue;
        const auto named = paths.find(st.key);
        const std::string path = named != paths.end() ? named->second.name : st.key;
        auto found = arrayByName.find(path);
        if (found == arrayByName.end()) found = arrayByName.find(st.key);
        if (found == arrayByName.end()) {
            problems.push_back("no array for " + path + " (key " + st.key + ", " + describe(st.value.dtype, st.fullShape) + ")");
            continue;
        }
        if (st.slice) return unimplemented("spec variable " + path + " is partitioned; import writes whole tensors");
        const convert::ArrayInfo& a = file->arrays()[found->second];
        if (!taken.insert(found->second).second) {
            problems.push_back("array " + a.name + " would fill two variables");
            continue;
        }
        if (a.dtype != st.value.dtype || a.shape != st.value.shape) {
            problems.push_back(path + ": the spec has " + describe(st.value.dtype, st.value.shape) + ", array " + a.name +
                               " is " + describe(a.dtype, a.shape));
            continue;
        }
        matches.push_back({t, found->second});
    }
    for (size_t i = 0; i < file->arrays().size(); ++i)
        if (!taken.count(i)) problems.push_back("array " + file->arrays()[i].name + " matches no variable of the spec");
    if (!problems.empty())
        return invalidArgument("the arrays of " + input + " do not fit the spec " + specPath + ": " + listed(problems));

    int64_t total = 0, done = 0;
    for (const Match& m : matches) total += static_cast<int64_t>(tensors[m.tensor].value.bytes.size());
    total *= 2;  // read, then check
    for (const Match& m : matches) {
        CKPT_RETURN_IF_ERROR(checkCancel());
        CKPT_ASSIGN_OR_RETURN(tensors[m.tensor].value, file->read(m.array));
        done += static_cast<int64_t>(tensors[m.tensor].value.bytes.size());
        if (options.progress) options.progress(done, total, "read");
    }
    CKPT_RETURN_IF_ERROR(checkCancel());

    std::vector<std::string> keys;
    for (const Match& m : matches) keys.push_back(tensors[m.tensor].key);
    ImportResult result;
    result.format = file->format();
    result.arrays = static_cast<int64_t>(matches.size());
    CKPT_ASSIGN_OR_RETURN(result.stats, writeTensors(dstPrefix, std::move(tensors), options.save));
    CKPT_ASSIGN_OR_RETURN(VerifyReport report, verifyBundle(dstPrefix, VerifyOptions{0, {}, options.cancel}));
    if (!report.ok())
        return dataLoss("the imported checkpoint " + dstPrefix + " does not verify: " + report.problems.front().message);

    // The bit-exact check: every value read back from the checkpoint
    // against a fresh read of the input.
    CKPT_ASSIGN_OR_RETURN(auto written, BundleReader::open(dstPrefix));
    Tensor back;
    for (size_t i = 0; i < matches.size(); ++i) {
        const Match& m = matches[i];
        CKPT_RETURN_IF_ERROR(checkCancel());
        const std::string& key = keys[i];
        const TensorInfo* info = written->find(key);
        if (!info) return dataLoss("the imported checkpoint " + dstPrefix + " lacks \"" + key + "\"");
        CKPT_RETURN_IF_ERROR(written->readInto(*info, back));
        CKPT_ASSIGN_OR_RETURN(Tensor original, file->read(m.array));
        if (back.dtype != original.dtype || back.shape != original.shape || back.bytes != original.bytes)
            return dataLoss("\"" + key + "\" read back from " + dstPrefix + " differs from array " +
                            file->arrays()[m.array].name + " of " + input);
        done += static_cast<int64_t>(back.bytes.size());
        if (options.progress) options.progress(done, total, "check");
    }
    return result;
}

}  // namespace ckpt
