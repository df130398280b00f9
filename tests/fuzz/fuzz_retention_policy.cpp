// A retention-policy JSON (docs/scheduling.md), and the same text as a
// duration and a byte size: a policy that parses must survive a round trip
// through its JSON and plan a fixed set of checkpoints consistently.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ckpt/retention.h"
#include "fuzz_support.h"

namespace {

constexpr double kNow = 1.8e9;  // 2027, wall seconds

// Twelve checkpoints over three days: owned and foreign, tagged, with and
// without a metric, one incomplete, one the state file's latest.
std::vector<ckpt::RetentionCandidate> candidates() {
    std::vector<ckpt::RetentionCandidate> out;
    for (int i = 0; i < 12; ++i) {
        ckpt::RetentionCandidate c;
        c.name = "ckpt-" + std::to_string(i + 1);
        c.prefix = "/runs/a/" + c.name;
        c.step = i * 250;
        c.time = kNow - (12 - i) * 6.0 * 3600;
        c.bytes = 1000u + static_cast<uint64_t>(i) * 100u;
        c.hasMetadata = i != 3;
        c.owner = c.hasMetadata ? (i == 5 ? "other" : "run-a") : "";
        if (i % 2 == 0) c.metrics["val_loss"] = 1.0 / (i + 1);
        if (i == 4) c.tags = {"pin"};
        if (i == 7) c.tags = {"keep-me"};
        c.complete = i != 9;
        if (!c.complete) c.problem = "1 data file missing";
        c.isStateLatest = i == 10;
        out.push_back(std::move(c));
    }
    return out;
}

bool pinned(const ckpt::RetentionCandidate& c, const ckpt::RetentionPolicy& policy) {
    return std::ranges::any_of(c.tags, [&](const std::string& tag) {
        return tag == "pin" || tag == "best" || std::ranges::find(policy.keepTags, tag) != policy.keepTags.end();
    });
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    (void)ckpt::parseDuration(text);
    (void)ckpt::parseByteSize(text);
    auto policy = ckpt::parseRetentionPolicy(text, "fuzz input");
    if (!policy) return 0;

    const std::string json = ckpt::retentionPolicyToJson(*policy);
    auto again = ckpt::parseRetentionPolicy(json, "policy JSON");
    ckpt::fuzz::require(again.ok(), "a policy's JSON does not parse");
    ckpt::fuzz::require(ckpt::retentionPolicyToJson(*again) == json, "a policy does not survive its JSON");

    const std::vector<ckpt::RetentionCandidate> all = candidates();
    const ckpt::RetentionPlan plan = ckpt::planRetention(all, *policy, {.now = kNow, .owner = "run-a", .adoptForeign = false});
    ckpt::fuzz::require(plan.decisions.size() == all.size(), "a plan lost or invented checkpoints");
    ckpt::fuzz::require(plan.kept + plan.deleted + plan.leftAlone == static_cast<int>(all.size()),
                        "a plan's counts do not add up");
    for (const ckpt::RetentionDecision& d : plan.decisions) {
        const bool protectedOne = d.candidate.isStateLatest || pinned(d.candidate, *policy) || d.candidate.owner != "run-a";
        ckpt::fuzz::require(!(protectedOne && d.verdict == ckpt::RetentionVerdict::Delete),
                            "a plan deletes a pinned, latest or foreign checkpoint");
    }
    return 0;
}
