#pragma once
// Extra per-row presentation layered onto the object-graph tree by a view
// that knows more than the checkpoint: the restore view colours rows by
// match status (matched, unresolved, dtype/shape mismatch) and explains the
// verdict in a tooltip, without subclassing or copying the tree model.
// Implementations read their own immutable snapshot (e.g. a MatchReport);
// called on the GUI thread from ObjectTreeModel::data().

#include <QVariant>

#include <cstdint>

#include "models/checkpoint_snapshot.h"

namespace ckpt::ui {

class EntryOverlay {
public:
    virtual ~EntryOverlay() = default;
    // An invalid QVariant leaves the model's own value for that role.
    virtual QVariant data(const TreeEntry& entry, int32_t entryIndex, int column, int role) const = 0;
};

}  // namespace ckpt::ui
