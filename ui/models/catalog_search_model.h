#pragma once
// The global search's results (Catalog::search): one row per checkpoint
// with its matching keys beneath, a "more" row where the engine kept only
// the first matches of a checkpoint, and a last row when more checkpoints
// matched than were returned. Shows a result snapshot; never calls the engine.

#include <QStandardItemModel>

#include <memory>

#include "ckpt/catalog.h"

namespace ckpt::ui {

class CatalogSearchModel : public QStandardItemModel {
    Q_OBJECT
public:
    enum Column { NameColumn, ObjectPathColumn, DTypeColumn, ShapeColumn, ColumnCount };
    enum Role { PrefixRole = Qt::UserRole + 1, KeyRole, RowKindRole };
    // What a row stands for; checkpoint and note rows span every column.
    enum RowKind { CheckpointRow, MatchRow, MoreMatchesRow, MoreCheckpointsRow };

    explicit CatalogSearchModel(QObject* parent = nullptr);

    // Resets the model to 'result' (null clears it).
    void setResult(std::shared_ptr<const CatalogSearchResult> result);
    const std::shared_ptr<const CatalogSearchResult>& result() const { return m_result; }
    // The match row of 'key' under the checkpoint 'prefix' (invalid if not shown).
    QModelIndex indexForMatch(const QString& prefix, const QString& key) const;

private:
    std::shared_ptr<const CatalogSearchResult> m_result;
};

}  // namespace ckpt::ui
