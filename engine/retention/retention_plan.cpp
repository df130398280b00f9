// The retention planner: which candidates each rule keeps, then the safety
// invariants, then the disk budget (ckpt/retention.h). Pure: no I/O, the
// clock comes in the context, so every decision can be replayed in a test.

#include <algorithm>
#include <cmath>
#include <ctime>
#include <limits>
#include <map>
#include <tuple>

#include "ckpt/bundle_naming.h"
#include "ckpt/retention.h"
#include "retention/retention_text.h"

namespace ckpt {
namespace {

using schedule::durationText;
using schedule::sizeText;

// Oldest first: by step (numeric, never by name: transformers #27138), then
// time, then name. A checkpoint without a step goes after every stepped one
// saved no later than it, so it still sorts by time.
void sortOldestFirst(std::vector<RetentionCandidate>& candidates) {
    std::vector<RetentionCandidate> stepped, stepless;
    for (RetentionCandidate& c : candidates) (c.step ? stepped : stepless).push_back(std::move(c));
    std::sort(stepped.begin(), stepped.end(), [](const RetentionCandidate& a, const RetentionCandidate& b) {
        return std::tie(*a.step, a.time, a.name) < std::tie(*b.step, b.time, b.name);
    });
    std::sort(stepless.begin(), stepless.end(), [](const RetentionCandidate& a, const RetentionCandidate& b) {
        return std::tie(a.time, a.name) < std::tie(b.time, b.name);
    });
    candidates.clear();
    size_t s = 0;
    for (RetentionCandidate& c : stepped) {
        while (s < stepless.size() && stepless[s].time < c.time) candidates.push_back(std::move(stepless[s++]));
        candidates.push_back(std::move(c));
    }
    while (s < stepless.size()) candidates.push_back(std::move(stepless[s++]));
}

// The calendar period a time falls in, as its label: "2026-11-24" for days.
std::string periodOf(double time, const char* format, bool utc) {
    const auto t = static_cast<std::time_t>(std::floor(time));
    std::tm tm{};
    if (utc ? gmtime_r(&t, &tm) == nullptr : localtime_r(&t, &tm) == nullptr) return "?";
    char text[32];
    const size_t n = std::strftime(text, sizeof text, format, &tm);
    return std::string(text, n);
}

struct CalendarBucket {
    const char* label;
    const char* format;  // strftime; weeks are ISO 8601 (%G-W%V)
    int count;
};

class Planner {
public:
    Planner(std::vector<RetentionCandidate> candidates, const RetentionPolicy& policy, const RetentionContext& context)
        : m_policy(policy), m_context(context) {
        sortOldestFirst(candidates);
        m_plan.decisions.resize(candidates.size());
        m_guarded.assign(candidates.size(), false);
        for (size_t i = 0; i < candidates.size(); ++i) m_plan.decisions[i].candidate = std::move(candidates[i]);
    }

    RetentionPlan run() {
        decideOwnership();
        applyRules();
        applyInvariants();
        decideVerdicts();
        applyDiskBudget();
        total();
        return std::move(m_plan);
    }

private:
    RetentionCandidate& candidate(size_t i) { return m_plan.decisions[i].candidate; }
    void keep(size_t i, std::string why) { m_plan.decisions[i].keptBy.push_back(std::move(why)); }
    void guard(size_t i, std::string why) {
        keep(i, std::move(why));
        m_guarded[i] = true;
    }

    // Which candidates are ours to delete; the rest are left alone with why.
    void decideOwnership() {
        for (size_t i = 0; i < m_plan.decisions.size(); ++i) {
            RetentionDecision& d = m_plan.decisions[i];
            RetentionCandidate& c = d.candidate;
            if (c.unsafe.empty() && !isPlainCheckpointName(c.name))
                c.unsafe = "\"" + c.name + "\" is not a plain name inside the directory";
            d.verdict = RetentionVerdict::LeaveAlone;
            if (!c.unsafe.empty()) {
                d.reason = "unsafe: " + c.unsafe;
            } else if (c.hasMetadata && !c.owner.empty()) {
                if (!m_context.owner.empty() && c.owner == m_context.owner) {
                    m_managed.push_back(i);
                } else {
                    d.reason = "owned by " + c.owner;
                }
            } else if (m_context.adoptForeign) {
                m_managed.push_back(i);  // adopted explicitly
            } else {
                d.reason = c.hasMetadata ? "foreign: metadata names no owner" : "foreign: no metadata";
            }
            if (d.reason.empty()) {
                d.verdict = RetentionVerdict::Keep;
                if (c.complete) m_live.push_back(i);
            }
        }
    }

    // Rules judge only our complete checkpoints: a foreign checkpoint must
    // not take a "latest" slot from ours, nor a half-written one count as a
    // save worth keeping.
    void applyRules() {
        if (m_policy.keepsEverything())
            for (size_t i : m_live) keep(i, "no retention rule");
        if (m_policy.keepLatest) {
            const size_t n = std::min(m_live.size(), static_cast<size_t>(*m_policy.keepLatest));
            for (size_t k = m_live.size() - n; k < m_live.size(); ++k)
                keep(m_live[k], "latest " + std::to_string(*m_policy.keepLatest));
        }
        if (m_policy.keepOnePerHours) keepOnePerInterval(*m_policy.keepOnePerHours * 3600);
        if (m_policy.keepEverySteps) keepEverySteps(*m_policy.keepEverySteps);
        if (m_policy.keepWithinSeconds)
            for (size_t i : m_live)
                if (m_context.now - candidate(i).time < *m_policy.keepWithinSeconds)
                    keep(i, "within " + durationText(*m_policy.keepWithinSeconds));
        keepCalendar();
        if (m_policy.best) keepBest(*m_policy.best);
    }

    // TensorFlow's keep_checkpoint_every_n_hours: the oldest, then the next
    // one at least the interval after the last one kept.
    void keepOnePerInterval(double seconds) {
        const std::string label = "one per " + durationText(seconds);
        double last = -std::numeric_limits<double>::infinity();
        for (size_t i : m_live) {
            if (candidate(i).time < last + seconds) continue;
            keep(i, label);
            last = candidate(i).time;
        }
    }

    // The lowest step of each [kN, (k+1)N) bucket.
    void keepEverySteps(int64_t every) {
        std::map<int64_t, size_t> lowest;  // bucket -> candidate
        for (size_t i : m_live) {
            if (!candidate(i).step) continue;
            const int64_t step = *candidate(i).step;
            const int64_t bucket = step / every - (step % every < 0 ? 1 : 0);  // floor, also below zero
            const auto it = lowest.find(bucket);
            if (it == lowest.end() || step < *candidate(it->second).step) lowest[bucket] = i;
        }
        for (const auto& [bucket, i] : lowest) keep(i, "every " + std::to_string(every) + " steps");
    }

    // restic's --keep-daily and friends: newest first, the first checkpoint
    // of each period, for the N most recent periods that have one.
    void keepCalendar() {
        const CalendarRule& cal = m_policy.calendar;
        const CalendarBucket buckets[] = {{"hourly", "%Y-%m-%d %H:00", cal.hourly},
                                          {"daily", "%Y-%m-%d", cal.daily},
                                          {"weekly", "%G-W%V", cal.weekly},
                                          {"monthly", "%Y-%m", cal.monthly},
                                          {"yearly", "%Y", cal.yearly}};
        for (const CalendarBucket& b : buckets) {
            if (b.count <= 0) continue;
            int kept = 0;
            std::string last;
            for (auto it = m_live.rbegin(); it != m_live.rend() && kept < b.count; ++it) {
                std::string period = periodOf(candidate(*it).time, b.format, cal.utc);
                if (period == last) continue;
                keep(*it, std::string(b.label) + " " + period);
                last = std::move(period);
                ++kept;
            }
        }
    }

    // The best N by the metric; ties go to the newer checkpoint. The best
    // one is also an invariant (applyInvariants).
    void keepBest(const BestRule& rule) {
        std::vector<std::pair<double, size_t>> ranked;
        for (size_t i : m_live) {
            const auto it = candidate(i).metrics.find(rule.metric);
            if (it != candidate(i).metrics.end() && !std::isnan(it->second)) {
                ranked.emplace_back(rule.mode == BestRule::Mode::Min ? it->second : -it->second, i);
            } else if (rule.ifMissing == BestRule::IfMissing::Keep) {
                keep(i, "no " + rule.metric + " recorded");
            }
        }
        std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) {
            return a.first < b.first || (a.first == b.first && a.second > b.second);
        });
        const size_t n = std::min(ranked.size(), static_cast<size_t>(rule.count));
        for (size_t k = 0; k < n; ++k) {
            const std::string label = "best " + rule.metric + " #" + std::to_string(k + 1);
            if (k == 0) {
                guard(ranked[k].second, label);
            } else {
                keep(ranked[k].second, label);
            }
        }
    }

    // What no rule and no budget may delete.
    void applyInvariants() {
        if (!m_live.empty()) guard(m_live.back(), "newest complete");
        for (size_t i : m_managed) {
            const RetentionCandidate& c = candidate(i);
            if (c.isStateLatest) guard(i, "state-file latest");
            for (const std::string& tag : c.tags) {
                const bool pinned =
                    tag == "pin" || std::find(m_policy.keepTags.begin(), m_policy.keepTags.end(), tag) != m_policy.keepTags.end();
                if (pinned) guard(i, "pinned: " + tag);
                if (tag == "best") guard(i, "marked best");
            }
            if (m_policy.minAgeSeconds > 0 && m_context.now - c.time < m_policy.minAgeSeconds)
                guard(i, "younger than min age " + durationText(m_policy.minAgeSeconds));
        }
    }

    void decideVerdicts() {
        for (size_t i : m_managed) {
            RetentionDecision& d = m_plan.decisions[i];
            if (!d.keptBy.empty()) continue;  // Keep, from decideOwnership
            d.verdict = RetentionVerdict::Delete;
            d.reason = d.candidate.complete
                           ? "no rule keeps it"
                           : "incomplete: " + (d.candidate.problem.empty() ? std::string("damaged") : d.candidate.problem);
        }
    }

    // Oldest first, delete what only rules keep until the kept total fits.
    void applyDiskBudget() {
        if (!m_policy.diskBudgetBytes) return;
        const uint64_t budget = *m_policy.diskBudgetBytes;
        uint64_t kept = 0;
        for (const RetentionDecision& d : m_plan.decisions)
            if (d.verdict == RetentionVerdict::Keep) kept += d.candidate.bytes;
        for (size_t i : m_managed) {
            if (kept <= budget) break;
            RetentionDecision& d = m_plan.decisions[i];
            if (d.verdict != RetentionVerdict::Keep || m_guarded[i]) continue;
            std::string wouldKeep;
            for (const std::string& k : d.keptBy) wouldKeep += (wouldKeep.empty() ? "" : ", ") + k;
            d.verdict = RetentionVerdict::Delete;
            d.reason = "over the disk budget " + sizeText(budget) + " (" + wouldKeep + " would keep it)";
            d.keptBy.clear();
            kept -= d.candidate.bytes;
        }
        if (kept > budget)
            m_plan.notes.push_back("disk budget " + sizeText(budget) + " cannot be met: " + sizeText(kept) +
                                   " must stay, kept by the safety invariants");
    }

    void total() {
        for (const RetentionDecision& d : m_plan.decisions) {
            switch (d.verdict) {
            case RetentionVerdict::Keep:
                ++m_plan.kept;
                m_plan.keptBytes += d.candidate.bytes;
                break;
            case RetentionVerdict::Delete:
                ++m_plan.deleted;
                m_plan.deletedBytes += d.candidate.bytes;
                break;
            case RetentionVerdict::LeaveAlone:
                ++m_plan.leftAlone;
                m_plan.leftAloneBytes += d.candidate.bytes;
                break;
            }
        }
        if (m_managed.empty() && !m_plan.decisions.empty()) {
            m_plan.notes.push_back(m_context.owner.empty()
                                       ? "nothing can be deleted: no owner was given and no checkpoint is adopted"
                                       : "nothing can be deleted: no checkpoint here is owned by " + m_context.owner);
        }
    }

    const RetentionPolicy& m_policy;
    const RetentionContext& m_context;
    RetentionPlan m_plan;
    std::vector<size_t> m_managed;  // ours to delete, oldest first
    std::vector<size_t> m_live;     // ours and complete, oldest first: what the rules judge
    std::vector<bool> m_guarded;    // an invariant keeps it, whatever the budget
};

}  // namespace

std::string_view retentionVerdictName(RetentionVerdict verdict) {
    switch (verdict) {
    case RetentionVerdict::Keep: return "keep";
    case RetentionVerdict::Delete: return "delete";
    case RetentionVerdict::LeaveAlone: return "leave";
    }
    return "keep";
}

RetentionPlan planRetention(std::vector<RetentionCandidate> candidates, const RetentionPolicy& policy,
                            const RetentionContext& context) {
    return Planner(std::move(candidates), policy, context).run();
}

}  // namespace ckpt
