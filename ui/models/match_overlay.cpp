#include "models/match_overlay.h"

#include <QCoreApplication>
#include <QStringList>

#include <algorithm>

#include "models/object_tree_model.h"
#include "style/kind_icons.h"

namespace ckpt::ui {
namespace {

QString tr(const char* text, int n = -1) { return QCoreApplication::translate("ckpt::ui::MatchOverlay", text, nullptr, n); }
QString fromStd(const std::string& s) { return QString::fromStdString(s); }
// The key the restore reports an attribute under: the object graph's, which
// a saveable of several tensors shares across their rows.
std::string attributeKey(const TreeEntry& entry) {
    return entry.attribute ? entry.attribute->checkpointKey : std::string(entry.path);
}

// From harmless to worst: a parent is drawn as the worst problem below it.
constexpr MatchCategory kBySeverity[] = {MatchCategory::Matched, MatchCategory::PendingSlot, MatchCategory::UnusedAttributes,
                                         MatchCategory::Unresolved, MatchCategory::Mismatch};
int8_t severity(MatchCategory c) {
    return static_cast<int8_t>(std::find(std::begin(kBySeverity), std::end(kBySeverity), c) - std::begin(kBySeverity));
}
// What restoring would get wrong; a slot waiting for its variable is not.
bool isProblem(MatchCategory c) { return severity(c) >= severity(MatchCategory::UnusedAttributes); }

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

QString matchShortLabel(MatchCategory category) {
    switch (category) {
    case MatchCategory::Matched: return tr("Matched");
    case MatchCategory::UnusedAttributes: return tr("Unused attributes");
    case MatchCategory::Mismatch: return tr("Mismatch");
    case MatchCategory::PendingSlot: return tr("Slot pending");
    case MatchCategory::Unresolved: return tr("Unresolved");
    }
    return {};
}

MatchOverlay::MatchOverlay(std::shared_ptr<const MatchReport> report, const CheckpointSnapshot* tree)
    : m_report(std::move(report)) {
    for (const CheckpointNodeMatch& n : m_report->checkpointNodes) {
        m_nodes.emplace(n.id, &n);
        for (const AttributeMatch& a : n.attributes) m_attributes.emplace(a.checkpointKey, AttributeRef{&n, &a});
    }
    if (tree) summariseBelow(*tree);
}

void MatchOverlay::summariseBelow(const CheckpointSnapshot& tree) {
    const auto& entries = tree.entries;
    m_below.assign(entries.size(), Below{});
    // Entries are in pre-order (children after their parent): one reverse
    // pass carries every row's findings up to all its ancestors.
    for (size_t i = entries.size(); i-- > 1;) {
        const TreeEntry& e = entries[i];
        if (e.parent < 0 || static_cast<size_t>(e.parent) >= i) continue;
        const Below& mine = m_below[i];
        Below& up = m_below[static_cast<size_t>(e.parent)];
        up.unused += mine.unused;
        up.mismatched += mine.mismatched;
        up.unresolved += mine.unresolved;
        up.worst = std::max(up.worst, mine.worst);
        MatchCategory own;
        if (!categoryOf(e, &own) || !isProblem(own)) continue;
        up.worst = std::max(up.worst, severity(own));
        if (e.kind == EntryKind::Attribute) continue;  // counted as the object it belongs to
        if (own == MatchCategory::UnusedAttributes) ++up.unused;
        else if (own == MatchCategory::Mismatch) ++up.mismatched;
        else ++up.unresolved;
    }
}

const MatchOverlay::Below* MatchOverlay::belowOf(int32_t entryIndex) const {
    if (entryIndex < 0 || static_cast<size_t>(entryIndex) >= m_below.size()) return nullptr;
    const Below& b = m_below[static_cast<size_t>(entryIndex)];
    return b.worst < 0 ? nullptr : &b;
}

bool MatchOverlay::shownCategoryOf(const TreeEntry& entry, int32_t entryIndex, MatchCategory* out) const {
    const bool own = categoryOf(entry, out);
    const Below* below = belowOf(entryIndex);
    if (below && (!own || severity(*out) < below->worst)) {
        *out = kBySeverity[below->worst];
        return true;
    }
    return own;
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

QString MatchOverlay::toolTip(const TreeEntry& entry, int32_t entryIndex) const {
    QString tip = ownToolTip(entry);
    const Below* below = belowOf(entryIndex);
    if (!below) return tip;
    QStringList found;
    if (below->unresolved) found << tr("%n unresolved", below->unresolved);
    if (below->mismatched) found << tr("%n with a dtype/shape mismatch", below->mismatched);
    if (below->unused) found << tr("%n with unused attributes", below->unused);
    if (found.isEmpty()) found << matchLabel(kBySeverity[below->worst]);
    if (tip.isEmpty()) tip = pathText(entry);
    return tip + tr("\nBelow it: %1").arg(found.join(QStringLiteral(", ")));
}

QString MatchOverlay::ownToolTip(const TreeEntry& entry) const {
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

QVariant MatchOverlay::data(const TreeEntry& entry, int32_t entryIndex, int column, int role) const {
    if (role == Qt::BackgroundRole) {
        MatchCategory c;
        if (shownCategoryOf(entry, entryIndex, &c)) return matchColor(c);
        return {};
    }
    if (role == Qt::ForegroundRole) {
        MatchCategory c;
        if (shownCategoryOf(entry, entryIndex, &c)) return statusBackgroundText(matchTone(c));
        return {};
    }
    // The category's badge and words in the kind column, so the colour is
    // never the only sign.
    if (column == ObjectTreeModel::KindColumn && role == Qt::DecorationRole) {
        MatchCategory c;
        if (!shownCategoryOf(entry, entryIndex, &c)) return {};
        return matchIcon(c);
    }
    if (column == ObjectTreeModel::KindColumn && role == Qt::AccessibleDescriptionRole) {
        MatchCategory own, shown;
        const bool hasOwn = categoryOf(entry, &own);
        if (!shownCategoryOf(entry, entryIndex, &shown)) return {};
        if (hasOwn && own == shown) return matchLabel(own);
        return tr("%1 below it").arg(matchLabel(shown));
    }
    if (role == Qt::ToolTipRole && column == 0) {
        const QString tip = toolTip(entry, entryIndex);
        return tip.isEmpty() ? QVariant() : QVariant(tip);
    }
    return {};
}

}  // namespace ckpt::ui
