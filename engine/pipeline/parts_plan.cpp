// The plan of a save by N writers (pipeline/parts_plan.h).

#include "pipeline/parts_plan.h"

#include <algorithm>
#include <cstdio>
#include <tuple>

#include "platform/digest.h"

namespace ckpt::pipeline {
namespace {

// A key as one token of a line: bytes outside '!'..'~' and '%' as %XX, so
// every key (any bytes) has one spelling and a line holds one entry.
std::string escapeKey(std::string_view key) {
    std::string out;
    out.reserve(key.size());
    for (const char c : key) {
        const auto u = static_cast<unsigned char>(c);
        if (u > ' ' && u < 0x7f && c != '%') {
            out += c;
        } else {
            char hex[4];
            std::snprintf(hex, sizeof hex, "%%%02X", u);
            out += hex;
        }
    }
    return out;
}

std::string sliceText(const SaveTensor& t) { return t.slice ? t.slice->toString() : std::string("-"); }

// Line 'n' (0-based) of 'text', or "" past its end.
std::string_view lineOf(std::string_view text, size_t n) {
    size_t start = 0;
    for (size_t i = 0; i < n; ++i) {
        const size_t nl = text.find('\n', start);
        if (nl == std::string_view::npos) return {};
        start = nl + 1;
    }
    const size_t nl = text.find('\n', start);
    return text.substr(start, nl == std::string_view::npos ? std::string_view::npos : nl - start);
}

std::string quoted(std::string_view s) { return "\"" + std::string(s.substr(0, 200)) + (s.size() > 200 ? "...\"" : "\""); }

}  // namespace

Result<PartsPlan> planParts(const std::vector<SaveTensor>& tensors, int world) {
    if (world < 1) return invalidArgument("a save needs at least one writer");
    if (tensors.size() < static_cast<size_t>(world))
        return invalidArgument("a save of " + std::to_string(tensors.size()) + " tensors cannot have " + std::to_string(world) +
                               " writers: each writer stores at least one tensor");
    struct Item {
        uint64_t bytes;
        std::string key;
        std::string slice;
        size_t index;
    };
    std::vector<Item> items;
    items.reserve(tensors.size());
    for (size_t i = 0; i < tensors.size(); ++i)
        items.push_back({tensors[i].byteSize(), tensors[i].key, sliceText(tensors[i]), i});
    std::sort(items.begin(), items.end(),
              [](const Item& a, const Item& b) { return std::tie(b.bytes, a.key, a.slice) < std::tie(a.bytes, b.key, b.slice); });
    for (size_t i = 1; i < items.size(); ++i)
        if (items[i].key == items[i - 1].key && items[i].slice == items[i - 1].slice)
            return invalidArgument("tensor " + quoted(escapeKey(items[i].key)) + " is saved twice");
    PartsPlan plan;
    plan.world = world;
    plan.rankOf.assign(tensors.size(), 0);
    std::vector<std::pair<uint64_t, size_t>> load(static_cast<size_t>(world), {0, 0});  // bytes, tensors
    std::string body;
    for (const Item& item : items) {
        const auto lightest = static_cast<int>(std::min_element(load.begin(), load.end()) - load.begin());
        load[static_cast<size_t>(lightest)].first += item.bytes;
        load[static_cast<size_t>(lightest)].second += 1;
        plan.rankOf[item.index] = lightest;
        body += std::to_string(lightest) + " " + std::to_string(item.bytes) + " " + escapeKey(item.key) + " " + item.slice + "\n";
    }
    plan.text = "ckpt parts plan 1\nworld " + std::to_string(world) + "\ntensors " + std::to_string(tensors.size()) + "\n" + body;
    if (plan.text.size() > kMaxPlanBytes)
        return invalidArgument("the plan of a save of " + std::to_string(tensors.size()) + " tensors is over " +
                               std::to_string(kMaxPlanBytes >> 20) + " MiB");
    plan.digest = platform::sha256Hex(plan.text);
    return plan;
}

Status checkSamePlan(const PartsPlan& mine, int myRank, const std::string& stored, const std::string& where) {
    if (stored == mine.text) return okStatus();
    const size_t lines = static_cast<size_t>(std::max(std::count(stored.begin(), stored.end(), '\n'),
                                                      std::count(mine.text.begin(), mine.text.end(), '\n'))) +
                         1;
    size_t line = 0;
    while (line + 1 < lines && lineOf(stored, line) == lineOf(mine.text, line)) ++line;
    return invalidArgument("rank " + std::to_string(myRank) + "'s plan (digest " + mine.digest.substr(0, 16) +
                           ") differs from the plan rank 0 stored in " + where + " (digest " +
                           platform::sha256Hex(stored).substr(0, 16) + "): line " + std::to_string(line + 1) + " is " +
                           quoted(lineOf(mine.text, line)) + " here and " + quoted(lineOf(stored, line)) +
                           " there (every writer must save the same tensors with the same world)");
}

}  // namespace ckpt::pipeline
