#include "numbered_checkpoints.h"

#include <algorithm>
#include <cstring>
#include <span>

#include "ckpt/bundle_naming.h"
#include "ckpt/bundle_reader.h"
#include "ckpt/checkpoint_state.h"
#include "ckpt/restore.h"
#include "ckpt/save.h"
#include "ckpt/verify.h"
#include "platform/file.h"
#include "storage/dispatch.h"

namespace ckpt::testing {
namespace {

std::string varKey(size_t i) { return "v" + std::to_string(i) + "/.ATTRIBUTES/VARIABLE_VALUE"; }

std::string holds(std::span<const float> values, float n, const std::string& what) {
    for (float f : values)
        if (f != n) return what + " holds " + std::to_string(f) + " instead of " + std::to_string(n);
    return {};
}

}  // namespace

NumberedProgram::NumberedProgram(int variables, int64_t elements) : root(Trackable::makeObject()) {
    for (int i = 0; i < variables; ++i) {
        vars.push_back(Variable::make(DataType::Float, TensorShape{{elements}}));
        (void)root->addChild("v" + std::to_string(i), vars.back());
    }
}

void NumberedProgram::fill(float value) {
    for (auto& v : vars) {
        auto* f = reinterpret_cast<float*>(v->mutableValue().bytes.data());
        std::fill(f, f + v->value().numElements(), value);
    }
}

void NumberedProgram::setSaveCounter(int64_t n) {
    auto counter = saveCounter(*root);
    if (counter.ok()) std::memcpy((*counter)->mutableValue().bytes.data(), &n, 8);
}

int64_t checkpointNumber(const std::string& path) {
    // An archive names a second copy of a number "<name>-<number>-run<id>".
    std::string prefix = path;
    if (const auto run = prefix.rfind("-run"); run != std::string::npos && run > prefix.rfind('/')) prefix.resize(run);
    const auto dash = prefix.rfind('-');
    if (dash == std::string::npos || dash + 1 == prefix.size()) return -1;
    const std::string digits = prefix.substr(dash + 1);
    if (!std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) return -1;
    return std::stoll(digits);
}

std::string checkNumbered(const std::string& prefix, int variables, int64_t elements, bool restore) {
    const auto report = verifyBundle(prefix);
    if (!report.ok()) return prefix + ": " + report.status().toString();
    if (!report->ok()) return prefix + ": " + report->problems.front().message;
    const float n = static_cast<float>(checkpointNumber(prefix));
    auto reader = BundleReader::open(prefix);
    if (!reader.ok()) return reader.status().toString();
    for (int i = 0; i < variables; ++i) {
        auto t = (*reader)->read(varKey(static_cast<size_t>(i)));
        if (!t.ok()) return t.status().toString();
        if (std::string e = holds(t->as<float>(), n, prefix + " " + varKey(static_cast<size_t>(i))); !e.empty()) return e;
    }
    if (!restore) return {};
    NumberedProgram fresh(variables, elements);
    (void)saveCounter(*fresh.root);
    auto restored = restoreCheckpoint(prefix, fresh.root);
    if (!restored.ok()) return "restoring " + prefix + ": " + restored.status().toString();
    if (const Status consumed = restored->assertConsumed(); !consumed.isOk()) return consumed.toString();
    for (const auto& v : fresh.vars)
        if (std::string e = holds(v->value().as<float>(), n, "restored " + prefix); !e.empty()) return e;
    return {};
}

std::string checkDirectory(const std::string& dir, int variables, int64_t elements) {
    auto state = readCheckpointState(dir);
    if (!state.ok()) return "state file: " + state.status().toString();
    if (*state) {
        const std::string latest = resolveStatePath(dir, (*state)->modelCheckpointPath);
        if (std::string e = checkNumbered(latest, variables, elements); !e.empty()) return "the state file's latest: " + e;
        for (const std::string& p : (*state)->allModelCheckpointPaths) {
            const std::string prefix = resolveStatePath(dir, p);
            if (!storage::exists(indexFileName(prefix))) continue;  // gone entirely: fine
            if (std::string e = checkNumbered(prefix, variables, elements, false); !e.empty()) return "listed: " + e;
        }
    }
    // Through the storage layer, so that the same check holds a store's
    // "directory" (tst_storage saves into one).
    std::vector<std::string> indexes;
    const Status listed = storage::list(dir, {}, [&](const storage::ListEntry& e) {
        if (e.name.size() > kIndexSuffix.size() && e.name.ends_with(kIndexSuffix)) indexes.push_back(bundlePrefixOf(e.name));
        return true;
    });
    if (!listed.isOk()) return "cannot list " + dir + ": " + listed.toString();
    for (const std::string& name : indexes)
        if (std::string e = checkNumbered(platform::joinPath(dir, name), variables, elements, false); !e.empty())
            return "an index without a complete checkpoint: " + e;
    return {};
}

}  // namespace ckpt::testing
