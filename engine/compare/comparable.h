#pragma once
// The values of a checkpoint as comparisons see them: each with the path it
// is paired by and its role; its place in a merged tree and its slot names
// on demand. One rule for `ckpt diff`, `ckpt history` and the explorer:
// object-based checkpoints by TensorFlow's object path, name-based ones (and
// mixed pairs) by key. Light per value (views into the checkpoint), so that
// two 100,000-value checkpoints cost little beyond opening them.

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ckpt/checkpoint.h"
#include "ckpt/checkpoint_diff.h"
#include "ckpt/status.h"

namespace ckpt::compare {

struct ComparableValue {
    std::string_view path;  // what pairs it; views into the checkpoint or ComparableValues' text
    const TensorInfo* tensor = nullptr;
    DiffRole role = DiffRole::Variable;
    int32_t node = -1;            // object-graph node when paired by path, else -1
    std::string_view attribute;   // a non-VARIABLE_VALUE attribute's name (a row below its object)
    bool optimizerState = false;  // slots, optimizer objects' values, save_counter
};

struct ValueFilter {
    bool weightsOnly = false;
    std::vector<std::string> includes;  // globs; empty: all
    std::vector<std::string> excludes;

    // Left out of the comparison (matched on its path and its key).
    bool excludesValue(const ComparableValue& value) const;
    // No value is left out (a streamed side then builds no value to ask).
    bool keepsAll() const { return !weightsOnly && includes.empty() && excludes.empty(); }
};

// A value of a name-based checkpoint: paired by its key, a slot by the
// TF1 optimizers' names. 'tensor' must outlive it.
ComparableValue nameBasedValue(const TensorInfo& tensor);

// Visits values one at a time (ComparableValues::forEachValue).
using ValueVisitor = std::function<void(const ComparableValue&)>;
using ValueSource = std::function<Status(const ValueVisitor&)>;

struct SlotNames {
    std::string variable, optimizer, slot;  // empty when the value is no slot
};

class GraphNames;

class ComparableValues {
public:
    // byPath: pair by object path (object-based checkpoints only); else by key.
    ComparableValues(const Checkpoint& checkpoint, bool byPath, const ValueFilter& filter);
    // A name-based side streamed by key (compare/diff_by_key.h): values()
    // stays empty and hold() keeps the few values a diff reports;
    // 'everyValue' visits the whole side again (the filter applied) when
    // forEachValue asks.
    explicit ComparableValues(ValueSource everyValue);
    ~ComparableValues();
    ComparableValues(ComparableValues&&) noexcept;
    ComparableValues& operator=(ComparableValues&&) noexcept;

    const std::vector<ComparableValue>& values() const { return m_values; }  // graph order, then keys
    // Every value of the side, held or not (a streamed side reads its index again).
    Status forEachValue(const ValueVisitor& visit) const;
    // A streamed side: keeps 'tensor' and its value, for as long as this lives.
    const ComparableValue* hold(TensorInfo&& tensor);
    int64_t excluded() const { return m_excluded; }  // left out by the filter
    // Where the value sits in a merged tree: {"model", "dense", "kernel"};
    // a slot variable under its variable as "m (optimizer)".
    std::vector<std::string> location(const ComparableValue& value) const;
    SlotNames slotNames(const ComparableValue& value) const;

private:
    std::unique_ptr<GraphNames> m_names;  // null when paired by key
    std::vector<ComparableValue> m_values;
    std::deque<std::string> m_text;  // composed paths; a deque keeps views valid
    // A streamed side's held values and their tensors (deques: pointers stay valid).
    ValueSource m_everyValue;
    std::deque<TensorInfo> m_heldTensors;
    std::deque<ComparableValue> m_held;
    int64_t m_excluded = 0;
};

// fnmatch(3) without FNM_PATHNAME: '*' also crosses '/' and '.'.
bool globMatches(const std::string& pattern, std::string_view text);

// A key split on '/', for trees of name-based checkpoints.
std::vector<std::string> keyLocation(std::string_view key);

}  // namespace ckpt::compare
