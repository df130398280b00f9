#include "models/retention_plan_model.h"

#include <QBrush>
#include <QDateTime>
#include <QLocale>

#include "style/status_colors.h"
#include "style/text_format.h"

namespace ckpt::ui {
namespace {

// The verdict's tint; its words are in the verdict column.
StatusTone verdictTone(RetentionVerdict verdict) {
    switch (verdict) {
    case RetentionVerdict::Keep: return StatusTone::Good;
    case RetentionVerdict::Delete: return StatusTone::Bad;
    case RetentionVerdict::LeaveAlone: return StatusTone::Neutral;
    }
    return StatusTone::Neutral;
}

QString joined(const std::vector<std::string>& parts) {
    QStringList out;
    for (const std::string& p : parts) out << QString::fromStdString(p);
    return out.join(QStringLiteral("; "));
}

}  // namespace

void RetentionPlanModel::setPlan(std::shared_ptr<const RetentionPlan> plan) {
    beginResetModel();
    m_plan = std::move(plan);
    endResetModel();
}

const RetentionDecision* RetentionPlanModel::decision(const QModelIndex& index) const {
    if (!m_plan || !index.isValid() || index.row() >= static_cast<int>(m_plan->decisions.size())) return nullptr;
    return &m_plan->decisions[static_cast<size_t>(index.row())];
}

QString RetentionPlanModel::verdictText(RetentionVerdict verdict) {
    switch (verdict) {
    case RetentionVerdict::Keep: return tr("keep");
    case RetentionVerdict::Delete: return tr("delete");
    case RetentionVerdict::LeaveAlone: return tr("leave alone");
    }
    return {};
}

QString RetentionPlanModel::whyText(const RetentionDecision& decision) {
    if (decision.verdict == RetentionVerdict::Keep) return joined(decision.keptBy);
    return QString::fromStdString(decision.reason);
}

int RetentionPlanModel::rowCount(const QModelIndex& parent) const {
    if (parent.isValid() || !m_plan) return 0;
    return static_cast<int>(m_plan->decisions.size());
}

int RetentionPlanModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant RetentionPlanModel::data(const QModelIndex& index, int role) const {
    const RetentionDecision* d = decision(index);
    if (!d) return {};
    const RetentionCandidate& c = d->candidate;
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case NameColumn: return QString::fromStdString(c.name);
        case VerdictColumn: return verdictText(d->verdict);
        case WhyColumn: return whyText(*d);
        case StepColumn: return c.step ? QLocale().toString(static_cast<qlonglong>(*c.step)) : tr("\u2014");
        case TimeColumn:
            // Sortable and compact: a column of these reads as a timeline.
            return QDateTime::fromMSecsSinceEpoch(static_cast<qint64>(c.time * 1000.0))
                .toString(QStringLiteral("yyyy-MM-dd HH:mm:ss"));
        case SizeColumn: return formatBytes(static_cast<int64_t>(c.bytes));
        case OwnerColumn: return c.owner.empty() ? tr("(no metadata)") : QString::fromStdString(c.owner);
        }
        return {};
    case Qt::ToolTipRole: {
        QString tip =
            QString::fromStdString(c.prefix) + QLatin1Char('\n') + verdictText(d->verdict) + QStringLiteral(": ") + whyText(*d);
        if (d->verdict == RetentionVerdict::Keep && !d->reason.empty())
            tip += QLatin1Char('\n') + QString::fromStdString(d->reason);
        if (!c.unsafe.empty()) tip += QLatin1Char('\n') + tr("Unsafe to touch: %1").arg(QString::fromStdString(c.unsafe));
        if (!c.owner.empty()) tip += QLatin1Char('\n') + tr("Owner: %1").arg(QString::fromStdString(c.owner));
        if (c.isStateLatest) tip += QLatin1Char('\n') + tr("The state file's latest checkpoint");
        return tip;
    }
    case Qt::BackgroundRole: return QBrush(statusBackground(verdictTone(d->verdict)));
    case Qt::ForegroundRole: return QBrush(statusBackgroundText(verdictTone(d->verdict)));
    case Qt::TextAlignmentRole:
        if (index.column() == StepColumn || index.column() == SizeColumn)
            return QVariant::fromValue(Qt::Alignment(Qt::AlignRight | Qt::AlignVCenter));
        return {};
    case VerdictRole: return static_cast<int>(d->verdict);
    default: return {};
    }
}

QVariant RetentionPlanModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
    switch (section) {
    case NameColumn: return tr("Checkpoint");
    case VerdictColumn: return tr("Verdict");
    case WhyColumn: return tr("Kept by / reason");
    case StepColumn: return tr("Step");
    case TimeColumn: return tr("Saved");
    case SizeColumn: return tr("Size");
    case OwnerColumn: return tr("Owner");
    }
    return {};
}

}  // namespace ckpt::ui
