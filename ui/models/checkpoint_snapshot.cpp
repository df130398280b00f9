#include "models/checkpoint_snapshot.h"

#include "models/tree_filter.h"

namespace ckpt::ui {

std::shared_ptr<const CheckpointSnapshot> CheckpointSnapshot::build(std::shared_ptr<const Checkpoint> checkpoint) {
    auto snap = std::make_shared<CheckpointSnapshot>();
    snap->checkpoint = std::move(checkpoint);
    const Checkpoint& ckpt = *snap->checkpoint;
    for (const TensorInfo& t : ckpt.bundle().tensors()) snap->storedBytes += t.storedBytes();
    snap->tensorCount = static_cast<int64_t>(ckpt.bundle().tensors().size());
    DisplayTreeOptions options;
    options.aliases = false;  // the explorer shows each object once
    DisplayTree tree = buildDisplayTree(ckpt, options);
    // Moving a deque hands over its blocks: the entries' views stay valid.
    snap->entries = std::move(tree.entries);
    snap->ownedText = std::move(tree.ownedText);
    // A key tree has no attribute or slot rows: the toggles hide nothing.
    if (tree.objectBased)
        for (const bool withKeys : {false, true})
            for (const bool withSlots : {false, true})
                if (!withKeys || !withSlots)
                    snap->toggleSets[withKeys * 2 + withSlots] =
                        computeVisibleSet(*snap, {withKeys, withSlots, QString(), false});
    return snap;
}

}  // namespace ckpt::ui
