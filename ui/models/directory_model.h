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
};

}  // namespace ckpt::ui
