#include "models/match_overlay.h"

#include <QCoreApplication>

#include "models/object_tree_model.h"
#include "style/kind_icons.h"

namespace ckpt::ui {
namespace {

QString tr(const char* text) { return QCoreApplication::translate("ckpt::ui::MatchOverlay", text); }
QString fromStd(const std::string& s) { return QString::fromStdString(s); }
// The key the restore reports an attribute under: the object graph's, which
// a saveable of several tensors shares across their rows.
std::string attributeKey(const TreeEntry& entry) {
    return entry.attribute ? entry.attribute->checkpointKey : std::string(entry.path);
}

}  // namespace

MatchCategory categoryFor(NodeMatchState state) {
    switch (state) {
    case NodeMatchState::Matched: return MatchCategory::Matched;
    case NodeMatchState::PartiallyMatched: return MatchCategory::UnusedAttributes;
    case NodeMatchState::Mismatch: return MatchCategory::Mismatch;
    case NodeMatchState::PendingSlot: return MatchCategory::PendingSlot;
    case NodeMatchState::Unresolved: return MatchCategory::Unresolved;
    }
    return MatchCategory::Unresolved;
}

StatusTone matchTone(MatchCategory category) {
    switch (category) {
    case MatchCategory::Matched: return StatusTone::Good;
    case MatchCategory::UnusedAttributes: return StatusTone::Warning;
    case MatchCategory::Mismatch: return StatusTone::Bad;
    case MatchCategory::PendingSlot: return StatusTone::Info;
    case MatchCategory::Unresolved: return StatusTone::Special;
    }
    return StatusTone::Neutral;
}

QColor matchColor(MatchCategory category) { return statusBackground(matchTone(category)); }

QIcon matchIcon(MatchCategory category) {
    switch (category) {
    case MatchCategory::Matched: return letterBadge(matchTone(category), QStringLiteral("\u2713"));
    case MatchCategory::UnusedAttributes: return letterBadge(matchTone(category), QStringLiteral("U"));
    case MatchCategory::Mismatch: return letterBadge(matchTone(category), QStringLiteral("\u2260"));
    case MatchCategory::PendingSlot: return letterBadge(matchTone(category), QStringLiteral("S"));
    case MatchCategory::Unresolved: return letterBadge(matchTone(category), QStringLiteral("?"));
    }
    return {};
}

QString matchLabel(MatchCategory category) {
    switch (category) {
    case MatchCategory::Matched: return tr("Matched");
    case MatchCategory::UnusedAttributes: return tr("Unused attributes");
    case MatchCategory::Mismatch: return tr("Dtype/shape mismatch");
    case MatchCategory::PendingSlot: return tr("Slot waiting for optimizer/variable");
    case MatchCategory::Unresolved: return tr("Unresolved in checkpoint");
    }
    return {};
}

MatchOverlay::MatchOverlay(std::shared_ptr<const MatchReport> report) : m_report(std::move(report)) {
    for (const CheckpointNodeMatch& n : m_report->checkpointNodes) {
        m_nodes.emplace(n.id, &n);
        for (const AttributeMatch& a : n.attributes) m_attributes.emplace(a.checkpointKey, AttributeRef{&n, &a});
    }
}

const CheckpointNodeMatch* MatchOverlay::nodeFor(const TreeEntry& entry) const {
    if (entry.nodeId < 0) return nullptr;
    const auto it = m_nodes.find(entry.nodeId);
    return it == m_nodes.end() ? nullptr : it->second;
}

bool MatchOverlay::categoryOf(const TreeEntry& entry, MatchCategory* out) const {
    if (entry.kind == EntryKind::Attribute) {
        const auto it = m_attributes.find(attributeKey(entry));
        if (it == m_attributes.end()) return false;
        const AttributeMatch& a = *it->second.attribute;
        if (!a.error.empty()) *out = MatchCategory::Mismatch;
        else if (a.unused) *out = MatchCategory::UnusedAttributes;
        else *out = categoryFor(it->second.node->state);
        return true;
    }
    const CheckpointNodeMatch* n = nodeFor(entry);
    if (!n) return false;
    *out = categoryFor(n->state);
    return true;
}

QString MatchOverlay::toolTip(const TreeEntry& entry) const {
    if (entry.kind == EntryKind::Attribute) {
        const auto it = m_attributes.find(attributeKey(entry));
        if (it == m_attributes.end()) return {};
        const AttributeMatch& a = *it->second.attribute;
        if (!a.error.empty()) return fromStd(a.error);
        if (a.unused)
            return tr("%1: the bound program object has no attribute %2").arg(fromStd(a.checkpointKey), fromStd(a.name));
        return tr("%1: %2").arg(fromStd(a.checkpointKey), a.restored ? tr("would be restored") : tr("not restored"));
    }
    const CheckpointNodeMatch* n = nodeFor(entry);
    if (!n) return {};
    QString tip = tr("%1\n%2").arg(fromStd(n->path), matchLabel(categoryFor(n->state)));
    if (!n->programPath.empty()) tip += tr("\nbound to %1").arg(fromStd(n->programPath));
    for (const AttributeMatch& a : n->attributes)
        if (!a.error.empty()) tip += QLatin1Char('\n') + fromStd(a.error);
        else if (a.unused) tip += tr("\nunused attribute %1").arg(fromStd(a.name));
    return tip;
}

QVariant MatchOverlay::data(const TreeEntry& entry, int32_t, int column, int role) const {
    if (role == Qt::BackgroundRole) {
        MatchCategory c;
        if (categoryOf(entry, &c)) return matchColor(c);
        return {};
    }
    if (role == Qt::ForegroundRole) {
        MatchCategory c;
        if (categoryOf(entry, &c)) return statusBackgroundText(matchTone(c));
        return {};
    }
    // The category's badge and words in the kind column, so the colour is
    // never the only sign.
    if (column == ObjectTreeModel::KindColumn && (role == Qt::DecorationRole || role == Qt::AccessibleDescriptionRole)) {
        MatchCategory c;
        if (!categoryOf(entry, &c)) return {};
        return role == Qt::DecorationRole ? QVariant(matchIcon(c)) : QVariant(matchLabel(c));
    }
    if (role == Qt::ToolTipRole && column == 0) {
        const QString tip = toolTip(entry);
        return tip.isEmpty() ? QVariant() : QVariant(tip);
    }
    return {};
}

}  // namespace ckpt::ui
