#pragma once
// The sidebar: the catalog's directories and the opened ones, each with its
// checkpoints by step, the state file's latest marked, and a health badge
// from background verification (until then, the catalog's). Shows the
// engine's listings (jobs/checkpoint_jobs.h, ckpt/checkpoint_listing.h) and
// catalog reads (jobs/catalog_jobs.h); never calls the engine.

#include <QSet>
#include <QStandardItemModel>

#include "jobs/catalog_jobs.h"
#include "jobs/checkpoint_jobs.h"
#include "style/kind_icons.h"

namespace ckpt::ui {

class DirectoryModel : public QStandardItemModel {
    Q_OBJECT
public:
    // HealthRole is the sidebar's own verification (Health); CatalogHealthRole
    // the catalog's (CatalogHealth, invalid when it has none). The badge shows
    // the first that knows.
    // SortRole orders a column by what it means (step and size as numbers,
    // the time as a moment), not by its text.
    enum Role { PrefixRole = Qt::UserRole + 1, DirRole, HealthRole, ProblemsRole, CatalogHealthRole, MissingRole, SortRole };

    explicit DirectoryModel(QObject* parent = nullptr);

    // Adds or replaces the directory's row; keeps known health of prefixes
    // that are still there.
    void setListing(const DirectoryListing& listing);
    void removeDirectory(const QString& dir);
    QStringList directories() const;

    void setHealth(const QString& prefix, Health health, const QString& problems = {});
    // What the catalog knows, by prefix; replaces what it knew before.
    void setCatalogHealth(const QHash<QString, CatalogHealthInfo>& health);
    // Catalogued directories keep a row (marked missing) when they vanish.
    void setCatalogDirectories(const QStringList& dirs);
    bool isCatalogued(const QString& dir) const { return m_catalogDirs.contains(dir); }
    QModelIndex indexForPrefix(const QString& prefix) const;
    QModelIndex indexForDirectory(const QString& dir) const;
    // The checkpoint 'delta' rows away from 'prefix' in its directory (this
    // model's rows are in step order, however a view sorts them); empty
    // when there is none.
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

private:
    void updateBadge(QStandardItem* item);
    void relabelDirectories();
    QHash<QString, CatalogHealthInfo> m_catalogHealth;
    QSet<QString> m_catalogDirs;

signals:
    // 'dragged' was dropped onto 'target': compare dragged (A) with target (B).
    void compareDropped(const QString& dragged, const QString& target);
};

}  // namespace ckpt::ui
