#include "diff_format.h"

#include <unistd.h>

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>

#include "json_output.h"

namespace ckpt::cli {

using nlohmann::json;

json figureJson(double v) {
    if (std::isnan(v)) return nullptr;
    if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
    return v;
}

void appendFigure(std::string& out, double v) {
    if (std::isnan(v)) {
        out += '-';
        return;
    }
    if (std::isinf(v)) {
        out += v > 0 ? "inf" : "-inf";
        return;
    }
    // to_chars with a precision writes what printf's "%.<precision>g" writes
    // (the standard defines it so), without glibc's multi-precision path:
    // history prints six figures per tensor per checkpoint.
    const int precision = (v != 0 && (std::fabs(v) < 1e-3 || std::fabs(v) >= 1e5)) ? 3 : 4;
    char buf[32];
    const auto end = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::general, precision).ptr;
    out.append(buf, end);
}

std::string figureText(double v) {
    std::string s;
    appendFigure(s, v);
    return s;
}

std::string indexText(int64_t flat, const TensorShape& shape) {
    std::string s = "[";
    const auto idx = unravelIndex(flat, shape);
    for (size_t i = 0; i < idx.size(); ++i) s += (i ? ", " : "") + std::to_string(idx[i]);
    return s + "]";
}

json indexJson(int64_t flat, const TensorShape& shape) {
    if (flat < 0) return nullptr;
    return unravelIndex(flat, shape);
}

std::string coloredLetter(DiffStatus status, bool enabled) {
    const char letter = diffStatusLetter(status);
    if (!enabled) return std::string(1, letter);
    const char* code = "0";
    switch (status) {
    case DiffStatus::Added: code = "32"; break;
    case DiffStatus::Deleted: code = "31"; break;
    case DiffStatus::Modified: code = "33"; break;
    case DiffStatus::TypeChanged: code = "35"; break;
    case DiffStatus::Renamed: code = "36"; break;
    case DiffStatus::Unchanged: break;
    }
    return std::string("\033[") + code + "m" + letter + "\033[0m";
}

bool colorEnabled(std::string_view mode) {
    if (mode == "always") return true;
    if (mode == "never") return false;
    const char* noColor = std::getenv("NO_COLOR");
    return isatty(STDOUT_FILENO) && !(noColor && *noColor);
}

json tensorDiffJson(const TensorDiff& d, const TensorShape& shape) {
    json listed = json::array();
    for (const DifferingElement& e : d.firstMismatches)
        listed.push_back({{"index", indexJson(e.index, shape)}, {"a", displayableString(e.a)}, {"b", displayableString(e.b)}});
    return {{"elements", d.elements},
            {"mismatches", d.mismatches},
            {"mismatch_fraction", d.mismatchFraction()},
            {"exact", d.exactCompare},
            {"atol", d.tolerance.atol},
            {"rtol", d.tolerance.rtol},
            {"max_abs_diff", figureJson(d.maxAbsDiff)},
            {"max_abs_index", indexJson(d.maxAbsIndex, shape)},
            {"max_rel_diff", figureJson(d.maxRelDiff)},
            {"max_rel_index", indexJson(d.maxRelIndex, shape)},
            {"mean_abs_diff", figureJson(d.meanAbsDiff)},
            {"rel_l2", figureJson(d.relL2)},
            {"cosine", figureJson(d.cosine)},
            {"norm_a", figureJson(d.normA)},
            {"norm_b", figureJson(d.normB)},
            {"nans_a", d.nansA},
            {"nans_b", d.nansB},
            {"infs_a", d.infsA},
            {"infs_b", d.infsB},
            {"nans_appeared", d.nansAppeared},
            {"nans_disappeared", d.nansDisappeared},
            {"infs_appeared", d.infsAppeared},
            {"infs_disappeared", d.infsDisappeared},
            {"from_checksums", d.fromChecksums},
            {"first_mismatches", listed}};
}

static json sideJson(const DiffSide& s) {
    json j = {{"path", displayableString(s.path)}};
    if (s.key.empty()) {
        j["bytes"] = s.bytes;
        return j;
    }
    j["key"] = displayableString(s.key);
    j["dtype"] = std::string(dataTypeShortName(s.dtype));
    j["shape"] = s.shape.dims;
    j["bytes"] = s.bytes;
    if (!s.partitioned) j["crc32c"] = s.maskedCrc32c;
    j["partitioned"] = s.partitioned;
    return j;
}

json diffEntryJson(const DiffEntry& e) {
    json j = {{"status", std::string(1, diffStatusCode(e.status))},
              {"status_name", std::string(diffStatusName(e.status))},
              {"role", std::string(diffRoleName(e.role))},
              {"path", displayableString(e.displayPath())},
              {"location", e.location}};
    j["a"] = e.a ? sideJson(*e.a) : json(nullptr);
    j["b"] = e.b ? sideJson(*e.b) : json(nullptr);
    if (e.role == DiffRole::SlotVariable) j["slot"] = {{"variable", e.slotOf}, {"optimizer", e.optimizer}, {"name", e.slotName}};
    if (e.role == DiffRole::Object) j["members"] = e.members;
    if (e.collapsedInto >= 0) j["collapsed_into"] = e.collapsedInto;
    if (e.values) j["values"] = tensorDiffJson(*e.values, e.a->shape);
    return j;
}

json checkpointDiffJson(const CheckpointDiff& diff, bool includeUnchanged) {
    auto style = [](CheckpointStyle s) { return s == CheckpointStyle::ObjectBased ? "object-based" : "name-based"; };
    json entries = json::array();
    // Indices in collapsed_into refer to this array: keep every row when
    // unchanged ones are shown, else renumber.
    std::vector<int64_t> position(diff.entries.size(), -1);
    for (size_t i = 0; i < diff.entries.size(); ++i) {
        const DiffEntry& e = diff.entries[i];
        if (e.status == DiffStatus::Unchanged && !includeUnchanged) continue;
        position[i] = static_cast<int64_t>(entries.size());
        json row = diffEntryJson(e);
        if (e.collapsedInto >= 0) row["collapsed_into"] = position[static_cast<size_t>(e.collapsedInto)];
        entries.push_back(std::move(row));
    }
    const DiffCounts& c = diff.counts;
    auto check = [](const DiffSideCheck& side) {
        json problems = json::array();
        for (const VerifyProblem& p : side.problems)
            problems.push_back({{"file", p.file}, {"key", p.key}, {"message", p.message}});
        return json{{"checked", side.full ? "full" : "index_and_state"}, {"ok", side.ok()}, {"problems", problems}};
    };
    return {{"a", {{"prefix", diff.prefixA}, {"style", style(diff.styleA)}, {"verification", check(diff.checkA)}}},
            {"b", {{"prefix", diff.prefixB}, {"style", style(diff.styleB)}, {"verification", check(diff.checkB)}}},
            {"paired_by", diff.pairedByPath ? "object_path" : "checkpoint_key"},
            {"equal", diff.equal()},
            {"counts",
             {{"added", c.added},
              {"deleted", c.deleted},
              {"modified", c.modified},
              {"type_changed", c.typeChanged},
              {"renamed", c.renamed},
              {"unchanged", c.unchanged}}},
            {"excluded", diff.excluded},
            {"bytes_read", diff.bytesRead},
            {"from_checksums", diff.fromChecksums},
            {"from_cache", diff.fromCache},
            {"entries", entries}};
}

}  // namespace ckpt::cli
