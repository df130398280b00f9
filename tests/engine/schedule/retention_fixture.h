#pragma once
// Real checkpoint directories for the retention tests: each checkpoint is
// written by the engine's save pipeline (a step variable and one small
// weight), with or without the metadata sidecar, and times set on purpose.

#include <QTemporaryDir>
#include <QtTest>

#include <fcntl.h>
#include <sys/stat.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <vector>
#include <string>

#include "ckpt/bundle_naming.h"
#include "ckpt/checkpoint_metadata.h"
#include "ckpt/checkpoint_state.h"
#include "ckpt/retention.h"
#include "ckpt/save.h"
#include "ckpt/trackable.h"

namespace retention_test {

// 2026-11-24 12:00:00 UTC: a fixed "now" for every plan.
inline constexpr double kNow = 1795521600.0;
inline constexpr double kHour = 3600.0;
inline constexpr double kDay = 86400.0;

class CheckpointDir {
public:
    CheckpointDir() : m_dir(m_tmp.path().toStdString()) {}
    const std::string& dir() const { return m_dir; }
    std::string prefix(const std::string& name) const { return m_dir + "/" + name; }

    // Saves <dir>/<name> through the save pipeline with a stored `step`, and
    // metadata when an owner is given ("" writes metadata with no owner).
    void save(const std::string& name, int64_t step, double time, const std::optional<std::string>& owner = "run-a",
              std::map<std::string, double> metrics = {}, std::vector<std::string> tags = {}) {
        auto root = ckpt::Trackable::makeObject();
        ckpt::Tensor s;
        s.dtype = ckpt::DataType::Int64;
        s.bytes.resize(8);
        std::memcpy(s.bytes.data(), &step, 8);
        ckpt::Tensor w;
        w.dtype = ckpt::DataType::Float;
        w.shape = ckpt::TensorShape{{4}};
        w.bytes.assign(16, static_cast<uint8_t>(step));
        QVERIFY(root->addChild("step", ckpt::Variable::fromTensor(std::move(s))).isOk());
        QVERIFY(root->addChild("w", ckpt::Variable::fromTensor(std::move(w))).isOk());
        auto stats = ckpt::writeCheckpoint(*root, prefix(name), ckpt::SaveOptions{});
        QVERIFY2(stats.ok(), stats.status().toString().c_str());
        if (owner) {
            ckpt::CheckpointMetadata m;
            m.step = step;
            m.savedAt = time;
            m.owner = *owner;
            m.metrics = std::move(metrics);
            m.tags = std::move(tags);
            m.writer = "tst_retention";
            QVERIFY(ckpt::writeCheckpointMetadata(prefix(name), m).isOk());
        }
        setModified(ckpt::indexFileName(prefix(name)), time);
    }

    void setModified(const std::string& path, double time) const {
        timespec times[2];
        times[0].tv_sec = times[1].tv_sec = static_cast<time_t>(time);
        times[0].tv_nsec = times[1].tv_nsec = 0;
        QVERIFY(::utimensat(AT_FDCWD, path.c_str(), times, AT_SYMLINK_NOFOLLOW) == 0);
    }

    // The state file with 'latest' as model_checkpoint_path and all listed.
    void writeState(const std::string& latest, const std::vector<std::string>& all) const {
        ckpt::CheckpointState state;
        state.modelCheckpointPath = latest;
        state.allModelCheckpointPaths = all;
        QVERIFY(ckpt::writeCheckpointState(m_dir, state).isOk());
    }

    void writeFile(const std::string& name, const std::string& contents) const {
        std::ofstream(m_dir + "/" + name, std::ios::binary) << contents;
    }

    std::set<std::string> files() const {
        std::set<std::string> out;
        for (const auto& e : std::filesystem::directory_iterator(m_dir)) out.insert(e.path().filename().string());
        return out;
    }

    // The plan for this directory as of kNow.
    ckpt::RetentionPlan plan(const ckpt::RetentionPolicy& policy, const std::string& owner = "run-a", bool adopt = false) const {
        auto plan = ckpt::planDirectoryRetention(m_dir, policy, {.now = kNow, .owner = owner, .adoptForeign = adopt});
        if (!plan.ok()) qFatal("planDirectoryRetention: %s", plan.status().toString().c_str());
        return *plan;
    }

private:
    QTemporaryDir m_tmp;
    std::string m_dir;
};

inline const ckpt::RetentionDecision* decisionFor(const ckpt::RetentionPlan& plan, const std::string& name) {
    for (const auto& d : plan.decisions)
        if (d.candidate.name == name) return &d;
    return nullptr;
}

inline ckpt::RetentionVerdict verdictOf(const ckpt::RetentionPlan& plan, const std::string& name) {
    const auto* d = decisionFor(plan, name);
    if (!d) qFatal("no decision for %s", name.c_str());
    return d->verdict;
}

inline bool keptBy(const ckpt::RetentionPlan& plan, const std::string& name, const std::string& rule) {
    const auto* d = decisionFor(plan, name);
    return d && std::find(d->keptBy.begin(), d->keptBy.end(), rule) != d->keptBy.end();
}

// Names of the plan's decisions with this verdict, in plan order.
inline std::vector<std::string> named(const ckpt::RetentionPlan& plan, ckpt::RetentionVerdict verdict) {
    std::vector<std::string> out;
    for (const auto& d : plan.decisions)
        if (d.verdict == verdict) out.push_back(d.candidate.name);
    return out;
}

inline ckpt::RetentionPolicy policy(const char* json) {
    auto p = ckpt::parseRetentionPolicy(json, "test policy");
    if (!p.ok()) qFatal("policy: %s", p.status().toString().c_str());
    return *p;
}

}  // namespace retention_test
