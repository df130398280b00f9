#pragma once
// A snapshot of how a checkpoint matched a program's object graph: one row
// per checkpoint node and one per program object, plus the verdict each
// TensorFlow load-status assertion would give. Plain data: copy it to the
// GUI thread, draw it, or turn it into JSON with matchReportJson()
// (schema in docs/cli.md, `ckpt restore --json`).
//   auto status = restoreCheckpoint(ckpt, root);
//   MatchReport r = status->report();
//   for (const CheckpointNodeMatch& n : r.checkpointNodes) ...

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ckpt/dtype.h"
#include "ckpt/object_graph.h"
#include "ckpt/status.h"
#include "ckpt/tensor_info.h"

namespace ckpt {

enum class Assertion { Consumed, ExistingObjectsMatched, NontrivialMatch };
// "assert_consumed", "assert_existing_objects_matched", "assert_nontrivial_match".
std::string_view assertionName(Assertion a);

// What one assertion says right now.
struct AssertionVerdict {
    Assertion assertion = Assertion::Consumed;
    bool passed = false;
    // The error the assertion returns (OK when it passes). Messages follow
    // TensorFlow's ("Unresolved object in checkpoint (root).x: ...").
    Status status;
    // The node or object paths the message names, in message order:
    // checkpoint paths ("(root).model.kernel") for checkpoint-side failures,
    // program paths for unbound program objects.
    std::vector<std::string> namedPaths;
};

enum class NodeMatchState {
    Matched,           // bound to a program object; every attribute restored
    PartiallyMatched,  // bound, but some checkpoint attributes have no program attribute
    Mismatch,          // bound, but a value did not fit (dtype/shape) or could not be read
    PendingSlot,       // a slot variable waiting for its optimizer, variable or slot creation
    Unresolved,        // no program object (yet): restore-on-create may still bind it
};
std::string_view nodeMatchStateName(NodeMatchState s);  // "matched", "partially_matched", ...

struct AttributeMatch {
    std::string name;  // VARIABLE_VALUE, parallel_component_1, ...
    std::string checkpointKey;
    DataType dtype = DataType::Invalid;  // from the index; Invalid when the key is missing
    TensorShape shape;
    bool restored = false;  // assigned (or, when values are not read, found compatible)
    bool unused = false;    // the bound object has no such attribute
    std::string error;      // dtype/shape mismatch or read failure, naming both sides
};

struct CheckpointNodeMatch {
    int32_t id = 0;
    std::string path;  // TensorFlow's pretty name
    ObjectKind kind = ObjectKind::Object;
    NodeMatchState state = NodeMatchState::Unresolved;
    bool hasAttributes = false;  // only such nodes can fail assert_consumed
    std::string programPath;     // the bound object's path; empty when unbound
    std::vector<AttributeMatch> attributes;
};

enum class ProgramObjectKind { Object, Variable, Optimizer, SlotVariable };
std::string_view programObjectKindName(ProgramObjectKind k);

struct ProgramObjectMatch {
    // "(root).model.dense.kernel"; slots "(root).optimizer's state 'm' for (root).model.v".
    std::string path;
    ProgramObjectKind kind = ProgramObjectKind::Object;
    bool hasAttributes = false;  // variables; only they can fail assert_existing_objects_matched
    bool bound = false;
    int32_t checkpointNode = -1;         // first checkpoint node bound to it
    DataType dtype = DataType::Invalid;  // variables only
    TensorShape shape;
    int replicas = 0;
    bool restored = false;  // a value was assigned (or would be, without reading values)
};

struct MatchReport {
    std::string checkpointPrefix;                      // empty for an initialization-only status
    std::string style;                                 // "object-based", "name-based", "none"
    std::vector<CheckpointNodeMatch> checkpointNodes;  // by node id (name-based: one per tensor)
    std::vector<ProgramObjectMatch> programObjects;    // breadth-first from the root
    std::vector<AssertionVerdict> verdicts;            // consumed, existing, nontrivial
    std::vector<Status> restoreErrors;                 // mismatches and read failures
    // What TensorFlow logs when the status is dropped without expect_partial():
    // "Value in checkpoint could not be found in the restored object: (root).x".
    std::vector<std::string> warnings;
    // One message per assignment-map entry (RestoreOptions::assignmentMap)
    // whose OLD matched nothing in the checkpoint: it changed nothing.
    std::vector<std::string> unmatchedMappings;
    bool expectPartial = false;

    // Counts for summaries.
    int matchedNodes = 0, unresolvedNodes = 0, unboundObjects = 0, mismatches = 0;
};

// Receives a report row by row (LoadStatus::streamReport), so that a report
// of 150,000 nodes is never in memory at once (issue #34). A row is valid
// only during its call. Calls come in this order: begin, every checkpoint
// node, every program object, end.
class MatchReportSink {
public:
    virtual ~MatchReportSink() = default;
    // The report without its rows and counts.
    virtual void begin(const MatchReport& head) = 0;
    virtual void checkpointNode(const CheckpointNodeMatch& node) = 0;
    virtual void programObject(const ProgramObjectMatch& object) = 0;
    // The head again, with the counts.
    virtual void end(const MatchReport& summary) = 0;
};

class JsonWriter;

// Streams the report's members into the object 'out' has open, as
// writeMatchReportMembers() prints them.
class MatchReportJsonSink final : public MatchReportSink {
public:
    explicit MatchReportJsonSink(JsonWriter& out) : m_out(out) {}
    void begin(const MatchReport& head) override;
    void checkpointNode(const CheckpointNodeMatch& node) override;
    void programObject(const ProgramObjectMatch& object) override;
    void end(const MatchReport& summary) override;

private:
    void startObjects();
    JsonWriter& m_out;
    bool m_expectPartial = false;
    bool m_inObjects = false;
};

// JSON text of the report (docs/cli.md, "ckpt restore"), as nlohmann's
// dump(indent) would print it.
std::string matchReportJson(const MatchReport& report, int indent = -1);
// The same report's members, streamed into the object 'out' has open (for
// a caller that prints its own members before them, in sorted order):
// nothing of the size of the report is built in memory.
void writeMatchReportMembers(JsonWriter& out, const MatchReport& report);

}  // namespace ckpt
