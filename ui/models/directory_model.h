#pragma once
// The sidebar: opened directories, each with its checkpoints by step, the
// state file's latest marked, and a health badge from background
// verification. Shows the engine's listings (jobs/checkpoint_jobs.h,
// ckpt/checkpoint_listing.h); never calls the engine.

#include <QStandardItemModel>

#include "jobs/checkpoint_jobs.h"
#include "views/kind_icons.h"

namespace ckpt::ui {

class DirectoryModel : public QStandardItemModel {
    Q_OBJECT
public:
    enum Role { PrefixRole = Qt::UserRole + 1, DirRole, HealthRole, ProblemsRole };

    explicit DirectoryModel(QObject* parent = nullptr);

    // Adds or replaces the directory's row; keeps known health of prefixes
    // that are still there.
    void setListing(const DirectoryListing& listing);
    void removeDirectory(const QString& dir);
    QStringList directories() const;

    void setHealth(const QString& prefix, Health health, const QString& problems = {});
    QModelIndex indexForPrefix(const QString& prefix) const;
    QModelIndex indexForDirectory(const QString& dir) const;
    // The checkpoint 'delta' rows away from 'prefix' in its directory (rows
    // are in step order); empty when there is none.
    QString neighbour(const QString& prefix, int delta) const;

    // Dragging a checkpoint row onto another asks to compare them; nothing
    // moves. The drag carries the prefix as kPrefixMimeType.
    static constexpr const char* kPrefixMimeType = "application/x-ckpt-prefix";
    QStringList mimeTypes() const override;
    QMimeData* mimeData(const QModelIndexList& indexes) const override;
    Qt::DropActions supportedDropActions() const override { return Qt::CopyAction | Qt::LinkAction; }
    bool canDropMimeData(const QMimeData* data, Qt::DropAction action, int row, int column,
                         const QModelIndex& parent) const override;
    bool dropMimeData(const QMimeData* data, Qt::DropAction action, int row, int column, const QModelIndex& parent) override;

signals:
    // 'dragged' was dropped onto 'target': compare dragged (A) with target (B).
    void compareDropped(const QString& dragged, const QString& target);
};

}  // namespace ckpt::ui
