#pragma once
// A retention plan (ckpt/retention.h) as a table: one row per checkpoint,
// oldest first, with the verdict as text and as a row colour (keep green,
// delete red, leave alone grey; the text is there for anyone who cannot
// tell the colours apart), what keeps it or why it goes, step, save time,
// size and owner. Shows a snapshot; never calls the engine. GUI thread only.

#include <QAbstractTableModel>

#include <memory>

#include "ckpt/retention.h"

namespace ckpt::ui {

class RetentionPlanModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { NameColumn, VerdictColumn, WhyColumn, StepColumn, TimeColumn, SizeColumn, OwnerColumn, ColumnCount };
    // The RetentionVerdict of a row, as an int.
    static constexpr int VerdictRole = Qt::UserRole + 1;

    using QAbstractTableModel::QAbstractTableModel;

    void setPlan(std::shared_ptr<const RetentionPlan> plan);
    const std::shared_ptr<const RetentionPlan>& plan() const { return m_plan; }
    const RetentionDecision* decision(const QModelIndex& index) const;

    // "keep", "delete", "leave alone".
    static QString verdictText(RetentionVerdict verdict);
    // The rules that keep it, or the reason it is deleted or left alone.
    static QString whyText(const RetentionDecision& decision);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::shared_ptr<const RetentionPlan> m_plan;
};

}  // namespace ckpt::ui
