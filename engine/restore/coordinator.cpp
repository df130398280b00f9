#include "restore/coordinator.h"

#include <unordered_map>

#include "restore/name_matcher.h"
#include "restore/object_matcher.h"
#include "restore/verdicts.h"

namespace ckpt::restore {

Result<LoadStatus> Coordinator::start(const std::shared_ptr<const Checkpoint>& ckpt, const std::shared_ptr<Trackable>& root,
                                      const RestoreOptions& options) {
    if (!ckpt) return invalidArgument("restore: no checkpoint");
    if (!root) return invalidArgument("restore: no root object");
    auto c = std::make_shared<Coordinator>();
    c->m_context->ckpt = ckpt;
    c->m_context->root = root;
    c->m_context->options = options;
    for (const TensorInfo& t : ckpt->bundle().tensors()) c->m_context->bytesTotal += t.storedBytes();
    if (options.cancel && options.cancel->isCancelled()) return cancelled("restore of " + ckpt->prefix() + " cancelled");
    if (!ckpt->objectGraph()) {
        c->m_kind = LoadStatus::Kind::NameBased;
        CKPT_ASSIGN_OR_RETURN(c->m_matcher, NameMatcher::start(c->m_context, root));
    } else {
        CKPT_ASSIGN_OR_RETURN(c->m_matcher, ObjectMatcher::start(c->m_context, root));
    }
    // Deferred restores run later, when the token and the sink may be gone.
    const bool wasCancelled = c->m_context->cancelled;
    c->m_context->options.cancel = nullptr;
    if (options.progress && !wasCancelled) options.progress(c->m_context->bytesTotal, c->m_context->bytesTotal, "reading");
    c->m_context->options.progress = nullptr;
    if (wasCancelled) return cancelled("restore of " + ckpt->prefix() + " cancelled");
    return LoadStatus(c, root);
}

LoadStatus Coordinator::initializationOnly(std::shared_ptr<Trackable> root) {
    auto c = std::make_shared<Coordinator>();
    c->m_kind = LoadStatus::Kind::InitializationOnly;
    c->m_context->root = root;
    return LoadStatus(c, std::move(root));
}

AssertionVerdict Coordinator::verdict(Assertion a) {
    const RestoreContext::ListingScope listing(*m_context);
    if (!m_matcher) return failed(a, "No checkpoint specified (save_path=None); nothing is being restored.", {});
    if (!m_context->errors.empty()) return {a, false, m_context->errors.front(), {}};
    return m_matcher->verdict(a);
}

std::vector<std::string> Coordinator::warnings() {
    if (m_expectPartial || !m_matcher) return {};
    return m_matcher->warnings();
}

namespace {

// report(): the stream, kept.
class CollectedReport final : public MatchReportSink {
public:
    explicit CollectedReport(MatchReport& r) : m_r(r) {}
    void begin(const MatchReport& head) override { m_r = head; }
    void checkpointNode(const CheckpointNodeMatch& node) override { m_r.checkpointNodes.push_back(node); }
    void programObject(const ProgramObjectMatch& object) override { m_r.programObjects.push_back(object); }
    void end(const MatchReport& summary) override {
        m_r.matchedNodes = summary.matchedNodes;
        m_r.unresolvedNodes = summary.unresolvedNodes;
        m_r.unboundObjects = summary.unboundObjects;
        m_r.mismatches = summary.mismatches;
    }

private:
    MatchReport& m_r;
};

}  // namespace

MatchReport Coordinator::report() {
    MatchReport r;
    CollectedReport sink(r);
    streamReport(sink);
    return r;
}

void Coordinator::streamReport(MatchReportSink& sink) {
    const RestoreContext::ListingScope listing(*m_context);  // the verdicts and the rows share one listing
    MatchReport r;
    r.expectPartial = m_expectPartial;
    r.restoreErrors = m_context->errors;
    r.unmatchedMappings = m_context->unmatchedMappings;
    if (m_matcher && m_context->errors.empty()) {
        r.verdicts = m_matcher->verdicts();
    } else {
        for (Assertion a : {Assertion::Consumed, Assertion::ExistingObjectsMatched, Assertion::NontrivialMatch})
            r.verdicts.push_back(verdict(a));
    }
    r.warnings = warnings();
    const std::vector<ProgramObject>& objects = m_context->programObjects();
    const ObjectIndex& objectIndex = m_context->programObjectIndex();
    std::vector<ProgramBinding> bindings(objects.size());
    if (!m_matcher) {
        r.style = "none";
    } else {
        r.checkpointPrefix = m_context->ckpt->prefix();
        r.style = m_matcher->style();
    }
    sink.begin(r);
    if (m_matcher)
        m_matcher->describe(objects, objectIndex, bindings, [&](const CheckpointNodeMatch& n) {
            if (n.state == NodeMatchState::Matched || n.state == NodeMatchState::PartiallyMatched) ++r.matchedNodes;
            else if (n.state == NodeMatchState::Mismatch) ++r.mismatches;
            else if (n.hasAttributes) ++r.unresolvedNodes;
            sink.checkpointNode(n);
        });
    ProgramObjectMatch m;  // one row, reused: its strings keep their buffers
    for (size_t i = 0; i < objects.size(); ++i) {
        const ProgramObject& o = objects[i];
        m.path = o.path;
        m.kind = o.kind;
        m.hasAttributes = o.hasAttributes;
        m.bound = bindings[i].bound;
        m.checkpointNode = bindings[i].checkpointNode;
        m.restored = bindings[i].restored;
        if (Variable* v = o.object->asVariable()) {
            m.dtype = v->dtype();
            m.shape = v->shape();
            m.replicas = v->replicas();
        } else {
            m.dtype = DataType::Invalid;
            m.shape.dims.clear();
            m.replicas = 0;
        }
        if (m.hasAttributes && !m.bound) ++r.unboundObjects;
        sink.programObject(m);
    }
    sink.end(r);
}

}  // namespace ckpt::restore
