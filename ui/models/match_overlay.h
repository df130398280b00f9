#pragma once
// Colours the object-graph tree by how each checkpoint node matched the
// restore target (a MatchReport), and explains the state in a tooltip. The
// categories, their colours and letters are shared with the restore view's legend so
// the two can never disagree. A row with a problem below it (unused,
// mismatched or unresolved) is drawn as the worst of them, so a collapsed
// parent never reads "matched" over a failure; its tooltip counts them.

#include <QColor>
#include <QIcon>
#include <QString>

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "ckpt/match_report.h"
#include "models/entry_overlay.h"
#include "style/status_colors.h"

namespace ckpt::ui {

enum class MatchCategory { Matched, UnusedAttributes, Mismatch, PendingSlot, Unresolved };
inline constexpr MatchCategory kMatchCategories[] = {MatchCategory::Matched, MatchCategory::UnusedAttributes,
                                                     MatchCategory::Mismatch, MatchCategory::PendingSlot,
                                                     MatchCategory::Unresolved};
MatchCategory categoryFor(NodeMatchState state);
StatusTone matchTone(MatchCategory category);
QColor matchColor(MatchCategory category);  // the row tint, for the current palette
QIcon matchIcon(MatchCategory category);    // a badge with the category's letter

QString matchLabel(MatchCategory category);       // the words tooltips and screen readers get
QString matchShortLabel(MatchCategory category);  // the legend's: five fit a 1024 px window

class MatchOverlay final : public EntryOverlay {
public:
    // The snapshot is the tree the overlay is shown on (its entry indexes);
    // null: every row shows only its own category.
    MatchOverlay(std::shared_ptr<const MatchReport> report, const CheckpointSnapshot* tree);
    QVariant data(const TreeEntry& entry, int32_t entryIndex, int column, int role) const override;

    // The row's own category; false for rows the report does not cover.
    bool categoryOf(const TreeEntry& entry, MatchCategory* out) const;
    // The category a row is drawn with: its own, or the worst problem below it.
    bool shownCategoryOf(const TreeEntry& entry, int32_t entryIndex, MatchCategory* out) const;

private:
    struct AttributeRef {
        const CheckpointNodeMatch* node;
        const AttributeMatch* attribute;
    };
    // Problem objects (rows other than attributes) below a row, by category,
    // and the worst category of any row below it.
    struct Below {
        int32_t unused = 0, mismatched = 0, unresolved = 0;
        int8_t worst = -1;  // a MatchCategory; -1: no problem below
    };
    const CheckpointNodeMatch* nodeFor(const TreeEntry& entry) const;
    void summariseBelow(const CheckpointSnapshot& tree);
    const Below* belowOf(int32_t entryIndex) const;
    QString toolTip(const TreeEntry& entry, int32_t entryIndex) const;
    QString ownToolTip(const TreeEntry& entry) const;

    std::shared_ptr<const MatchReport> m_report;
    std::unordered_map<int32_t, const CheckpointNodeMatch*> m_nodes;
    std::unordered_map<std::string, AttributeRef> m_attributes;  // by checkpoint key
    std::vector<Below> m_below;                                  // by entry index; empty without a tree
};

}  // namespace ckpt::ui
