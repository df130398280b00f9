#include "ckpt/match_report.h"

#include <map>
#include <sstream>

#include "ckpt/json_writer.h"

namespace ckpt {

std::string_view assertionName(Assertion a) {
    switch (a) {
    case Assertion::Consumed: return "assert_consumed";
    case Assertion::ExistingObjectsMatched: return "assert_existing_objects_matched";
    case Assertion::NontrivialMatch: return "assert_nontrivial_match";
    }
    return "?";
}

std::string_view nodeMatchStateName(NodeMatchState s) {
    switch (s) {
    case NodeMatchState::Matched: return "matched";
    case NodeMatchState::PartiallyMatched: return "partially_matched";
    case NodeMatchState::Mismatch: return "mismatch";
    case NodeMatchState::PendingSlot: return "pending_slot";
    case NodeMatchState::Unresolved: return "unresolved";
    }
    return "?";
}

std::string_view programObjectKindName(ProgramObjectKind k) {
    switch (k) {
    case ProgramObjectKind::Object: return "object";
    case ProgramObjectKind::Variable: return "variable";
    case ProgramObjectKind::Optimizer: return "optimizer";
    case ProgramObjectKind::SlotVariable: return "slot_variable";
    }
    return "?";
}

namespace {

void writeStatus(JsonWriter& out, const Status& s) {
    out.beginObject();
    out.key("code");
    out.string(statusCodeName(s.code()));
    out.key("message");
    out.string(s.message());
    out.endObject();
}

void writeShape(JsonWriter& out, const TensorShape& shape) {
    out.beginArray();
    for (int64_t d : shape.dims) out.integer(d);
    out.endArray();
}

void writeStrings(JsonWriter& out, const std::vector<std::string>& strings) {
    out.beginArray();
    for (const std::string& s : strings) out.string(s);
    out.endArray();
}

// Members in sorted order, as nlohmann's objects (std::map) print them.
void writeNode(JsonWriter& out, const CheckpointNodeMatch& n) {
    out.beginObject();
    out.key("attributes");
    out.beginArray();
    for (const AttributeMatch& a : n.attributes) {
        out.beginObject();
        out.key("checkpoint_key");
        out.string(a.checkpointKey);
        out.key("dtype");
        if (a.dtype == DataType::Invalid) out.null();
        else out.string(dataTypeName(a.dtype));
        if (!a.error.empty()) {
            out.key("error");
            out.string(a.error);
        }
        out.key("name");
        out.string(a.name);
        out.key("restored");
        out.boolean(a.restored);
        out.key("shape");
        writeShape(out, a.shape);
        out.key("unused");
        out.boolean(a.unused);
        out.endObject();
    }
    out.endArray();
    out.key("has_attributes");
    out.boolean(n.hasAttributes);
    out.key("id");
    out.integer(n.id);
    out.key("kind");
    out.string(objectKindName(n.kind));
    out.key("path");
    out.string(n.path);
    out.key("program_path");
    if (n.programPath.empty()) out.null();
    else out.string(n.programPath);
    out.key("state");
    out.string(nodeMatchStateName(n.state));
    out.endObject();
}

void writeObject(JsonWriter& out, const ProgramObjectMatch& o) {
    const bool variable = o.kind == ProgramObjectKind::Variable || o.kind == ProgramObjectKind::SlotVariable;
    out.beginObject();
    out.key("bound");
    out.boolean(o.bound);
    out.key("checkpoint_node");
    if (o.checkpointNode < 0) out.null();
    else out.integer(o.checkpointNode);
    if (variable) {
        out.key("dtype");
        out.string(dataTypeName(o.dtype));
    }
    out.key("has_attributes");
    out.boolean(o.hasAttributes);
    out.key("kind");
    out.string(programObjectKindName(o.kind));
    out.key("path");
    out.string(o.path);
    if (variable) {
        out.key("replicas");
        out.integer(o.replicas);
    }
    out.key("restored");
    out.boolean(o.restored);
    if (variable) {
        out.key("shape");
        writeShape(out, o.shape);
    }
    out.endObject();
}

}  // namespace

void MatchReportJsonSink::begin(const MatchReport& r) {
    JsonWriter& out = m_out;
    m_expectPartial = r.expectPartial;
    // "assertions" is keyed by name: sorted, and a repeated assertion keeps its last verdict.
    std::map<std::string_view, const AssertionVerdict*> verdicts;
    for (const AssertionVerdict& v : r.verdicts) verdicts[assertionName(v.assertion)] = &v;
    out.key("assertions");
    out.beginObject();
    for (const auto& [name, v] : verdicts) {
        out.key(name);
        out.beginObject();
        out.key("error");
        if (v->passed) out.null();
        else writeStatus(out, v->status);
        out.key("named_paths");
        writeStrings(out, v->namedPaths);
        out.key("passed");
        out.boolean(v->passed);
        out.endObject();
    }
    out.endObject();
    out.key("checkpoint");
    out.string(r.checkpointPrefix);
    out.key("checkpoint_nodes");
    out.beginArray();
}

void MatchReportJsonSink::checkpointNode(const CheckpointNodeMatch& node) { writeNode(m_out, node); }

void MatchReportJsonSink::startObjects() {
    m_inObjects = true;
    m_out.endArray();
    m_out.key("expect_partial");
    m_out.boolean(m_expectPartial);
    m_out.key("program_objects");
    m_out.beginArray();
}

void MatchReportJsonSink::programObject(const ProgramObjectMatch& object) {
    if (!m_inObjects) startObjects();
    writeObject(m_out, object);
}

void MatchReportJsonSink::end(const MatchReport& r) {
    JsonWriter& out = m_out;
    if (!m_inObjects) startObjects();
    out.endArray();
    out.key("restore_errors");
    out.beginArray();
    for (const Status& s : r.restoreErrors) writeStatus(out, s);
    out.endArray();
    out.key("style");
    out.string(r.style);
    out.key("summary");
    out.beginObject();
    out.key("matched_nodes");
    out.integer(r.matchedNodes);
    out.key("mismatches");
    out.integer(r.mismatches);
    out.key("unbound_objects");
    out.integer(r.unboundObjects);
    out.key("unresolved_nodes");
    out.integer(r.unresolvedNodes);
    out.endObject();
    out.key("unmatched_mappings");
    writeStrings(out, r.unmatchedMappings);
    out.key("warnings");
    writeStrings(out, r.warnings);
}

void writeMatchReportMembers(JsonWriter& out, const MatchReport& r) {
    MatchReportJsonSink sink(out);
    sink.begin(r);
    for (const CheckpointNodeMatch& n : r.checkpointNodes) sink.checkpointNode(n);
    for (const ProgramObjectMatch& o : r.programObjects) sink.programObject(o);
    sink.end(r);
}

std::string matchReportJson(const MatchReport& r, int indent) {
    std::ostringstream text;
    {
        JsonWriter out(text, indent);
        out.beginObject();
        writeMatchReportMembers(out, r);
        out.endObject();
        out.flush();
    }
    return std::move(text).str();
}

}  // namespace ckpt
