#pragma once
// Object-based restore: walks the checkpoint's object graph and the program's
// objects together from the root, binding each checkpoint node to the
// program object at the same place, as TensorFlow's CheckpointPosition does.
// Nodes whose object does not exist yet wait for it (hooks); slot variables
// wait for both their optimizer and their variable.

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "restore/matcher.h"
#include "restore/source_graph.h"

namespace ckpt::restore {

class ObjectMatcher final : public Matcher {
public:
    // Binds the root and restores everything reachable now; fails only when
    // the assignment map cannot be applied.
    static Result<std::shared_ptr<ObjectMatcher>> start(std::shared_ptr<RestoreContext> context,
                                                        const std::shared_ptr<Trackable>& root);
    explicit ObjectMatcher(std::shared_ptr<RestoreContext> context) : Matcher(std::move(context)) {}

    AssertionVerdict verdict(Assertion a) override;
    std::vector<AssertionVerdict> verdicts() override;
    std::vector<std::string> warnings() override;
    std::string style() const override;
    void describe(const std::vector<ProgramObject>& objects, const ObjectIndex& objectIndex,
                  std::vector<ProgramBinding>& bindings, const NodeRow& row) override;

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

    // Matching (object_matcher.cpp).
    Trackable* boundObject(int32_t node) const;
    bool bind(int32_t node, const std::shared_ptr<Trackable>& object);
    void restoreFrom(int32_t node);
    void restoreAttributes(int32_t node, Trackable& object);
    void restoreMissingValue(int32_t node, Variable& variable);
    void assignVariable(int32_t node, Variable& variable, const TensorInfo& tensor, std::string_view key, int replica,
                        const std::vector<char>& hasComponent, AttributeMatch& match, size_t attribute);
    // The next of m_rows for restoreAttributes() to fill.
    AttributeMatch& nextRow();
    // A node's attribute rows, written out if they were kept as plain.
    std::vector<AttributeMatch>& attributeRows(int32_t node);
    // What a plain node's rows say: every attribute as the checkpoint has it, restored.
    void plainRows(int32_t node, std::vector<AttributeMatch>& out) const;
    // Binds a slot variable and restores from it. Slots can chain (a slot
    // is the variable of the next) as deep as the file says, so a call made
    // while one is running only queues its slot for the outer call.
    void bindSlot(int32_t node, std::shared_ptr<Trackable> slot);
    void createOrRestoreSlot(const std::shared_ptr<Trackable>& optimizer, const std::shared_ptr<Trackable>& variable,
                             const SlotRestoration& slot);
    void onChildAdded(Trackable& parent, const Trackable::Child& child) override;
    void onSlotCreated(Optimizer& optimizer, const Optimizer::Slot& slot) override;
    void onReadFailed(const ValueReader::Read& read, const Status& failure) override;

    // Assertions (object_assertions.cpp).
    AssertionVerdict existingObjectsMatched();
    // 'existing': existingObjectsMatched() when the caller has it already.
    AssertionVerdict consumed(const AssertionVerdict* existing = nullptr);
    AssertionVerdict nontrivialMatch();
    // The original node as TensorFlow's text proto, for assertion messages.
    std::string nodeText(int32_t node) const;

    std::vector<SourceNode> m_nodes;
    std::deque<std::string> m_sourceNames;                  // what m_nodes' mapped names view
    std::vector<std::weak_ptr<Trackable>> m_objectByNode;   // expired/empty: unbound
    std::vector<Trackable*> m_objectRaw;                    // identity of the bound object
    std::vector<char> m_matched;                            // TF's matched_proto_ids
    std::vector<char> m_restored;                           // restoration ran for the node
    std::vector<std::vector<AttributeMatch>> m_attributes;  // empty while m_plainRows says plain
    std::vector<char> m_plainRows;                          // every attribute restored, nothing more to say
    std::vector<AttributeMatch> m_rows;                     // restoreAttributes() builds its rows here
    size_t m_rowCount = 0;
    std::vector<std::pair<int32_t, std::vector<std::string>>> m_unusedAttributes;  // insertion order
    // Every object offered to bind(), with its address: the assertions
    // look the address up first and lock only objects the listing lacks.
    std::vector<std::pair<const Trackable*, std::weak_ptr<Trackable>>> m_seenObjects;
    std::unordered_map<Trackable*, std::unordered_map<std::string, std::vector<int32_t>>> m_deferred;
    std::map<int32_t, std::vector<SlotRestoration>> m_slotRestorations;          // by variable node
    std::map<int32_t, std::vector<SlotRestoration>> m_deferredSlotRestorations;  // by optimizer node
    std::deque<std::pair<int32_t, std::shared_ptr<Trackable>>> m_slotBinds;      // queued by bindSlot
    bool m_bindingSlots = false;
    std::vector<PendingSlot> m_pendingSlots;  // waiting for Optimizer::createSlot
};

}  // namespace ckpt::restore
