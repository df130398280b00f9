#include "ckpt/match_report.h"

#include <nlohmann/json.hpp>

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

nlohmann::json statusJson(const Status& s) { return {{"code", std::string(statusCodeName(s.code()))}, {"message", s.message()}}; }

}  // namespace

std::string matchReportJson(const MatchReport& r, int indent) {
    using nlohmann::json;
    json nodes = json::array();
    for (const CheckpointNodeMatch& n : r.checkpointNodes) {
        json attrs = json::array();
        for (const AttributeMatch& a : n.attributes) {
            json ja = {{"name", a.name}, {"checkpoint_key", a.checkpointKey}, {"restored", a.restored}, {"unused", a.unused}};
            ja["dtype"] = a.dtype == DataType::Invalid ? json(nullptr) : json(std::string(dataTypeName(a.dtype)));
            ja["shape"] = a.shape.dims;
            if (!a.error.empty()) ja["error"] = a.error;
            attrs.push_back(std::move(ja));
        }
        nodes.push_back({{"id", n.id},
                         {"path", n.path},
                         {"kind", std::string(objectKindName(n.kind))},
                         {"state", std::string(nodeMatchStateName(n.state))},
                         {"has_attributes", n.hasAttributes},
                         {"program_path", n.programPath.empty() ? json(nullptr) : json(n.programPath)},
                         {"attributes", std::move(attrs)}});
    }
    json objects = json::array();
    for (const ProgramObjectMatch& o : r.programObjects) {
        json jo = {{"path", o.path},
                   {"kind", std::string(programObjectKindName(o.kind))},
                   {"has_attributes", o.hasAttributes},
                   {"bound", o.bound},
                   {"restored", o.restored},
                   {"checkpoint_node", o.checkpointNode < 0 ? json(nullptr) : json(o.checkpointNode)}};
        if (o.kind == ProgramObjectKind::Variable || o.kind == ProgramObjectKind::SlotVariable) {
            jo["dtype"] = std::string(dataTypeName(o.dtype));
            jo["shape"] = o.shape.dims;
            jo["replicas"] = o.replicas;
        }
        objects.push_back(std::move(jo));
    }
    json verdicts = json::object();
    for (const AssertionVerdict& v : r.verdicts) {
        json paths = json::array();
        for (const std::string& p : v.namedPaths) paths.push_back(p);
        verdicts[std::string(assertionName(v.assertion))] = {
            {"passed", v.passed}, {"error", v.passed ? json(nullptr) : statusJson(v.status)}, {"named_paths", std::move(paths)}};
    }
    json errors = json::array();
    for (const Status& s : r.restoreErrors) errors.push_back(statusJson(s));
    json warnings = json::array();
    for (const std::string& w : r.warnings) warnings.push_back(w);
    json unmatched = json::array();
    for (const std::string& m : r.unmatchedMappings) unmatched.push_back(m);
    json j = {{"checkpoint", r.checkpointPrefix},
              {"style", r.style},
              {"summary",
               {{"matched_nodes", r.matchedNodes},
                {"unresolved_nodes", r.unresolvedNodes},
                {"unbound_objects", r.unboundObjects},
                {"mismatches", r.mismatches}}},
              {"assertions", std::move(verdicts)},
              {"restore_errors", std::move(errors)},
              {"warnings", std::move(warnings)},
              {"unmatched_mappings", std::move(unmatched)},
              {"expect_partial", r.expectPartial},
              {"checkpoint_nodes", std::move(nodes)},
              {"program_objects", std::move(objects)}};
    // Keys may hold any bytes; invalid UTF-8 is replaced rather than failing.
    return j.dump(indent, ' ', false, json::error_handler_t::replace);
}

}  // namespace ckpt
