#pragma once
// Internal state of one restore: which checkpoint node is bound to which
// program object, what is still deferred, and what went wrong. Shared by the
// LoadStatus and by the hooks it installs on program objects (restore-on-create),
// so deferred restores keep working after the status is dropped, as in
// TensorFlow. Program objects are held weakly: a restore never keeps a
// program alive. Single-threaded, like the program graph itself.

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "ckpt/checkpoint.h"
#include "ckpt/load_status.h"
#include "ckpt/match_report.h"
#include "ckpt/restore.h"
#include "ckpt/trackable.h"

namespace ckpt::restore {

// A checkpoint node as matching sees it: the original node, or, with an
// assignment map, the node moved to its mapped place (plus virtual
// containers created along mapped paths).
struct SourceAttribute {
    std::string name;
    std::string key;
    std::string fullName;
    bool optional = false;
    const TensorInfo* tensor = nullptr;  // nullptr: the key is not in the bundle
};

struct SourceNode {
    std::string path;  // TensorFlow's pretty name of the original node
    ObjectKind kind = ObjectKind::Object;
    bool isVirtual = false;
    std::vector<std::pair<std::string, int32_t>> children;  // local name -> node
    std::vector<SourceAttribute> attributes;
    std::vector<SlotVariableRef> slots;
    const ObjectNode* original = nullptr;  // nullptr for virtual nodes
};

// Builds the (possibly remapped) source graph; InvalidArgument when the map
// sends two checkpoint nodes to the same path.
Result<std::vector<SourceNode>> buildSourceGraph(const Checkpoint& ckpt, const std::vector<PathMapping>& map);
// Normalised key-path prefix ("encoder", "" for the root) of a mapping side.
std::string normaliseMappingPath(std::string_view path);
// Applies the first mapping whose 'from' is a whole-segment prefix of 'path';
// returns 'path' unchanged when none applies.
std::string applyMapping(const std::vector<PathMapping>& normalisedMap, const std::string& path);

// A program object seen from the root (TensorFlow's list_objects).
struct ProgramObject {
    std::shared_ptr<Trackable> object;
    std::string path;
    ProgramObjectKind kind = ProgramObjectKind::Object;
    bool hasAttributes = false;
};
std::vector<ProgramObject> listProgramObjects(const std::shared_ptr<Trackable>& root, bool skipSlots);
// "<ckpt.Variable '(root).x' shape=(3,) dtype=float32>".
std::string describeProgramObject(const ProgramObject& o);

class Coordinator : public std::enable_shared_from_this<Coordinator> {
public:
    static Result<LoadStatus> start(std::shared_ptr<const Checkpoint> ckpt, std::shared_ptr<Trackable> root,
                                    const RestoreOptions& options);
    static LoadStatus initializationOnly(std::shared_ptr<Trackable> root);

    LoadStatus::Kind kind() const { return m_kind; }
    AssertionVerdict verdict(Assertion a);
    MatchReport report();
    std::vector<std::string> warnings();
    const std::vector<Status>& errors() const { return m_errors; }
    void setExpectPartial() { m_expectPartial = true; }
    bool expectPartial() const { return m_expectPartial; }

    Coordinator(const Coordinator&) = delete;
    Coordinator& operator=(const Coordinator&) = delete;
    Coordinator() = default;

private:
    struct SlotRestoration {
        int32_t optimizerNode = 0;
        int32_t slotNode = 0;
        std::string slotName;
        int32_t variableNode = 0;
    };
    struct PendingSlot {
        std::weak_ptr<Trackable> optimizer;
        std::weak_ptr<Trackable> variable;
        std::string slotName;
        int32_t slotNode = 0;
    };

    // Object-based.
    Trackable* boundObject(int32_t node) const;
    bool bind(int32_t node, const std::shared_ptr<Trackable>& object);
    void restoreFrom(int32_t node);
    void restoreAttributes(int32_t node, Trackable& object);
    void createOrRestoreSlot(const std::shared_ptr<Trackable>& optimizer, const std::shared_ptr<Trackable>& variable,
                             const SlotRestoration& slot);
    void hookChildren(const std::shared_ptr<Trackable>& object);
    void hookSlots(const std::shared_ptr<Trackable>& optimizer);
    void onChildAdded(Trackable& parent, const Trackable::Child& child);
    void onSlotCreated(Optimizer& optimizer, const Optimizer::Slot& slot);
    std::string nodeText(int32_t node) const;

    // Name-based.
    void nameBasedRestore(const std::shared_ptr<Trackable>& object, const std::string& parentPath);
    std::string variableName(const std::shared_ptr<Trackable>& object) const;

    // Checks dtype/shape and (when reading values) queues a read of 'tensor'
    // into 'replicas' of v; the error goes to *error and m_errors.
    // 'names' gives (checkpoint side, program side) for the message.
    bool assignValue(Variable& v, const TensorInfo& tensor, const std::vector<int>& replicas,
                     const std::function<std::pair<std::string, std::string>()>& names, std::string* error);

    // Reads queued by assignValue run when the outermost restore step ends,
    // several tensors at a time (BundleReader is thread-safe).
    struct PendingRead {
        std::shared_ptr<Trackable> variable;
        const TensorInfo* tensor = nullptr;
        std::vector<int> replicas;
        int32_t node = -1;        // -1: name-based
        size_t attribute = 0;     // index into m_attributes[node]
    };
    void flushReads();
    struct ReadScope {
        explicit ReadScope(Coordinator& owner) : m_owner(owner) { ++m_owner.m_readDepth; }
        ~ReadScope() {
            if (--m_owner.m_readDepth == 0) m_owner.flushReads();
        }
        ReadScope(const ReadScope&) = delete;
        ReadScope& operator=(const ReadScope&) = delete;
        Coordinator& m_owner;
    };

    std::vector<ProgramObject> programObjects();
    AssertionVerdict existingObjectsMatched();
    AssertionVerdict consumed();
    AssertionVerdict nontrivialMatch();
    AssertionVerdict nameBasedConsumed();
    std::string programPathOf(const Trackable* object);

    LoadStatus::Kind m_kind = LoadStatus::Kind::ObjectBased;
    std::shared_ptr<const Checkpoint> m_ckpt;
    std::weak_ptr<Trackable> m_root;
    RestoreOptions m_options;
    bool m_expectPartial = false;
    std::vector<Status> m_errors;
    std::vector<PendingRead> m_reads;
    int m_readDepth = 0;
    int32_t m_currentNode = -1;     // node whose attributes assignValue is handling
    size_t m_currentAttribute = 0;

    std::vector<SourceNode> m_nodes;
    std::vector<std::weak_ptr<Trackable>> m_objectByNode;  // expired/empty: unbound
    std::vector<Trackable*> m_objectRaw;                  // identity of the bound object
    std::vector<char> m_matched;                          // TF's matched_proto_ids
    std::vector<char> m_restored;                         // restoration ran for the node
    std::vector<std::vector<AttributeMatch>> m_attributes;
    std::vector<std::pair<int32_t, std::vector<std::string>>> m_unusedAttributes;  // insertion order
    std::vector<std::weak_ptr<Trackable>> m_seenObjects;  // every object offered to bind()
    std::unordered_map<Trackable*, std::unordered_map<std::string, std::vector<int32_t>>> m_deferred;
    std::unordered_set<const Trackable*> m_hookedChildren;
    std::unordered_set<const Trackable*> m_hookedSlots;
    std::map<int32_t, std::vector<SlotRestoration>> m_slotRestorations;          // by variable node
    std::map<int32_t, std::vector<SlotRestoration>> m_deferredSlotRestorations;  // by optimizer node
    std::vector<PendingSlot> m_pendingSlots;  // waiting for Optimizer::createSlot

    // Name-based: mapped tensor name -> tensor; objects restored; unused names.
    std::unordered_map<std::string, const TensorInfo*> m_tensorsByName;
    std::unordered_map<const TensorInfo*, std::string> m_tensorUsedBy;  // program path
    std::unordered_set<const Trackable*> m_nameRestored;
    std::vector<std::pair<std::weak_ptr<Trackable>, std::vector<std::string>>> m_nameUnused;
    std::unordered_map<const Trackable*, std::string> m_namePaths;
    std::unordered_map<const Trackable*, std::string> m_nameErrors;
};

} // namespace ckpt::restore
