#pragma once
// Colours the object-graph tree by how each checkpoint node matched the
// restore target (a MatchReport), and explains the state in a tooltip. The
// categories, their colours and letters are shared with the restore view's legend so
// the two can never disagree.

#include <QColor>
#include <QIcon>
#include <QString>

#include <memory>
#include <string>
#include <unordered_map>

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

QString matchLabel(MatchCategory category);  // the legend's words

class MatchOverlay final : public EntryOverlay {
public:
    explicit MatchOverlay(std::shared_ptr<const MatchReport> report);
    QVariant data(const TreeEntry& entry, int32_t entryIndex, int column, int role) const override;

    // The category a row is drawn with; false for rows the report does not cover.
    bool categoryOf(const TreeEntry& entry, MatchCategory* out) const;

private:
    struct AttributeRef {
        const CheckpointNodeMatch* node;
        const AttributeMatch* attribute;
    };
    const CheckpointNodeMatch* nodeFor(const TreeEntry& entry) const;
    QString toolTip(const TreeEntry& entry) const;

    std::shared_ptr<const MatchReport> m_report;
    std::unordered_map<int32_t, const CheckpointNodeMatch*> m_nodes;
    std::unordered_map<std::string, AttributeRef> m_attributes;  // by checkpoint key
};

}  // namespace ckpt::ui
