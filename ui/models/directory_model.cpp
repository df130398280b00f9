#include "models/directory_model.h"

#include <QApplication>
#include <QDir>
#include <QFont>
#include <QStyle>
#include <QMimeData>

#include "style/text_format.h"

namespace ckpt::ui {

DirectoryModel::DirectoryModel(QObject* parent) : QStandardItemModel(parent) {
    setHorizontalHeaderLabels({tr("Checkpoint"), tr("Step"), tr("Modified"), tr("Size")});
}

QModelIndex DirectoryModel::indexForDirectory(const QString& dir) const {
    for (int r = 0; r < rowCount(); ++r)
        if (item(r)->data(DirRole).toString() == dir) return index(r, 0);
    return {};
}

QModelIndex DirectoryModel::indexForPrefix(const QString& prefix) const {
    for (int r = 0; r < rowCount(); ++r) {
        QStandardItem* d = item(r);
        for (int c = 0; c < d->rowCount(); ++c)
            if (d->child(c)->data(PrefixRole).toString() == prefix) return d->child(c)->index();
    }
    return {};
}

QStringList DirectoryModel::directories() const {
    QStringList out;
    for (int r = 0; r < rowCount(); ++r) out << item(r)->data(DirRole).toString();
    return out;
}

void DirectoryModel::setListing(const DirectoryListing& listing) {
    QHash<QString, std::pair<int, QString>> known;
    QStandardItem* dirItem = nullptr;
    if (const QModelIndex existing = indexForDirectory(listing.dir); existing.isValid()) {
        dirItem = itemFromIndex(existing);
        for (int c = 0; c < dirItem->rowCount(); ++c) {
            QStandardItem* ch = dirItem->child(c);
            known.insert(ch->data(PrefixRole).toString(), {ch->data(HealthRole).toInt(), ch->data(ProblemsRole).toString()});
        }
        dirItem->removeRows(0, dirItem->rowCount());
    } else if (!listing.error.isEmpty() && !m_catalogDirs.contains(listing.dir)) {
        return;  // never list a directory that does not exist, unless the catalog remembers it
    } else {
        dirItem = new QStandardItem;
        dirItem->setData(listing.dir, DirRole);
        dirItem->setEditable(false);
        dirItem->setDragEnabled(false);
        dirItem->setDropEnabled(false);
        QList<QStandardItem*> row{dirItem};
        for (int c = 1; c < columnCount(); ++c) {
            row.append(new QStandardItem);
            row.last()->setEditable(false);
            row.last()->setDragEnabled(false);
            row.last()->setDropEnabled(false);
        }
        appendRow(row);
    }
    // A vanished directory says so in words, not only by a greyed row.
    const bool missing = !listing.error.isEmpty();
    dirItem->setData(missing, MissingRole);
    dirItem->setIcon(QApplication::style()->standardIcon(missing ? QStyle::SP_MessageBoxWarning : QStyle::SP_DirIcon));
    QString dirTip = listing.dir;
    if (!listing.error.isEmpty()) dirTip += QLatin1Char('\n') + listing.error;
    if (!listing.listing.stateFileError.isOk())
        dirTip += QLatin1Char('\n') + QString::fromStdString(listing.listing.stateFileError.toString());
    dirItem->setToolTip(dirTip);
    for (const CheckpointListEntry& e : listing.listing.checkpoints) {
        const QString prefix = QString::fromStdString(e.prefix);
        const QDateTime modified = QDateTime::fromMSecsSinceEpoch(static_cast<qint64>(e.modified * 1000));
        const std::optional<int64_t> step = e.step.step;
        auto* it = new QStandardItem;
        it->setEditable(false);
        it->setText(QString::fromStdString(e.name));
        if (e.isLatest) {
            // Bold rather than a "(latest)" suffix, which the narrow sidebar would elide.
            QFont bold = it->font();
            bold.setBold(true);
            it->setFont(bold);
        }
        it->setData(prefix, PrefixRole);
        it->setData(QString::fromStdString(e.name), SortRole);
        const auto prior = known.value(prefix, {static_cast<int>(Health::Unknown), QString()});
        it->setData(prior.first, HealthRole);
        it->setData(prior.second, ProblemsRole);
        QString tip = tr("%1\n%2 \u2022 %3").arg(prefix, formatDateTime(modified), formatBytes(static_cast<int64_t>(e.bytes)));
        if (step && e.step.source != "checkpoint number")
            tip += tr("\nStep %1, read from %2").arg(*step).arg(QString::fromStdString(e.step.source));
        if (e.isLatest) tip += tr("\nLatest checkpoint of the directory's state file (shown in bold)");
        else if (!e.inStateFile) tip += tr("\nNot listed in the directory's checkpoint state file");
        if (e.missingShards > 0) tip += tr("\n%n data file(s) missing", nullptr, e.missingShards);
        if (e.staleDataFiles > 0)
            tip += tr("\n%n stale data file(s) of another shard count, not counted", nullptr, e.staleDataFiles);
        if (!e.error.isOk()) tip += QLatin1Char('\n') + QString::fromStdString(e.error.toString());
        it->setData(tip, Qt::UserRole + 100);
        updateBadge(it);
        auto cell = [prefix](const QString& value, Qt::Alignment align, const QVariant& sortKey) {
            auto* c = new QStandardItem(value);
            // Every cell names its checkpoint: a click on Step or Modified opens it too.
            c->setData(prefix, PrefixRole);
            c->setData(sortKey, SortRole);
            c->setEditable(false);
            c->setDragEnabled(false);
            c->setDropEnabled(false);
            c->setTextAlignment(align | Qt::AlignVCenter);
            return c;
        };
        dirItem->appendRow({it,
                            cell(step ? QString::number(*step) : QString(), Qt::AlignRight,
                                 step ? QVariant(static_cast<qlonglong>(*step)) : QVariant()),
                            cell(formatDateTime(modified), Qt::AlignLeft, modified),
                            cell(formatBytes(static_cast<int64_t>(e.bytes)), Qt::AlignRight, static_cast<qulonglong>(e.bytes))});
    }
    relabelDirectories();
}

namespace {

// The directory's only checkpoint is named "variables": a SavedModel's.
bool holdsSavedModelBundle(const QStandardItem* dir) {
    for (int c = 0; c < dir->rowCount(); ++c)
        if (dir->child(c)->text() == QLatin1String("variables")) return true;
    return false;
}

}  // namespace

// A directory reads as its name, with as many parent folders as it takes
// to tell it from the other rows ("real/variables", "real2/variables"): a
// catalog holds many runs whose folders share names. A SavedModel keeps its
// bundle as variables/variables: its row reads as the model's folder, which
// "variables" would hide ("half_plus_two (SavedModel)").
void DirectoryModel::relabelDirectories() {
    QList<QStringList> parts;
    QList<bool> savedModel;
    for (int r = 0; r < rowCount(); ++r) {
        QStringList p = QDir::cleanPath(item(r)->data(DirRole).toString()).split(QLatin1Char('/'), Qt::SkipEmptyParts);
        const bool model = p.size() >= 2 && p.last() == QLatin1String("variables") && holdsSavedModelBundle(item(r));
        if (model) p.removeLast();
        parts << p;
        savedModel << model;
    }
    const auto tail = [](const QStringList& p, qsizetype n) {
        return p.mid(std::max<qsizetype>(0, p.size() - n)).join(QLatin1Char('/'));
    };
    for (int r = 0; r < rowCount(); ++r) {
        const QStringList& mine = parts[r];
        qsizetype depth = 1;
        for (int other = 0; other < rowCount(); ++other) {
            if (other == r) continue;
            while (depth < mine.size() && tail(mine, depth) == tail(parts[other], depth)) ++depth;
        }
        QString name = tail(mine, depth);
        if (savedModel[r]) name = tr("%1 (SavedModel)").arg(name);
        // A run on object storage reads as its URL: "exp1" alone would pass
        // for a local folder.
        if (const QString dir = item(r)->data(DirRole).toString(); isRemoteLocation(dir)) name = dir;
        item(r)->setText(item(r)->data(MissingRole).toBool() ? tr("%1 (missing)").arg(name) : name);
        item(r)->setData(item(r)->text(), SortRole);
    }
}

void DirectoryModel::removeDirectory(const QString& dir) {
    if (const QModelIndex i = indexForDirectory(dir); i.isValid()) removeRow(i.row());
    relabelDirectories();
}

void DirectoryModel::setHealth(const QString& prefix, Health health, const QString& problems) {
    const QModelIndex i = indexForPrefix(prefix);
    if (!i.isValid()) return;
    QStandardItem* it = itemFromIndex(i);
    it->setData(static_cast<int>(health), HealthRole);
    it->setData(problems, ProblemsRole);
    updateBadge(it);
}

void DirectoryModel::setCatalogHealth(const QHash<QString, CatalogHealthInfo>& health) {
    m_catalogHealth = health;
    for (int r = 0; r < rowCount(); ++r)
        for (int c = 0; c < item(r)->rowCount(); ++c) updateBadge(item(r)->child(c));
}

void DirectoryModel::setCatalogDirectories(const QStringList& dirs) { m_catalogDirs = QSet<QString>(dirs.begin(), dirs.end()); }

void DirectoryModel::updateBadge(QStandardItem* it) {
    const auto health = static_cast<Health>(it->data(HealthRole).toInt());
    const QString problems = it->data(ProblemsRole).toString();
    QString tip = it->data(Qt::UserRole + 100).toString();
    const auto known = m_catalogHealth.constFind(it->data(PrefixRole).toString());
    it->setData(known == m_catalogHealth.constEnd() ? QVariant() : QVariant(static_cast<int>(known->health)), CatalogHealthRole);
    switch (health) {
    case Health::Healthy: tip += tr("\nVerified: every checksum matches"); break;
    case Health::Damaged: tip += QLatin1Char('\n') + problems; break;
    case Health::Verifying: tip += tr("\nVerifying\u2026"); break;
    case Health::Unknown: break;
    }
    // Until this session verifies it, the catalog's answer from its last scan.
    if (health == Health::Unknown && known != m_catalogHealth.constEnd()) {
        it->setIcon(catalogHealthIcon(known->health));
        const std::string_view name = catalogHealthName(known->health);
        tip += tr("\nCatalog: %1").arg(QString::fromUtf8(name.data(), static_cast<qsizetype>(name.size())));
        if (!known->detail.isEmpty()) tip += tr(" \u2014 %1").arg(known->detail);
    } else {
        it->setIcon(healthIcon(health));
    }
    it->setToolTip(tip);
}

QString DirectoryModel::neighbour(const QString& prefix, int delta) const {
    const QModelIndex i = indexForPrefix(prefix);
    if (!i.isValid()) return {};
    return i.siblingAtRow(i.row() + delta).data(PrefixRole).toString();
}

QStringList DirectoryModel::mimeTypes() const { return {QString::fromLatin1(kPrefixMimeType)}; }

QMimeData* DirectoryModel::mimeData(const QModelIndexList& indexes) const {
    for (const QModelIndex& i : indexes) {
        const QString prefix = i.data(PrefixRole).toString();
        if (prefix.isEmpty()) continue;
        auto* data = new QMimeData;
        data->setData(QString::fromLatin1(kPrefixMimeType), prefix.toUtf8());
        return data;
    }
    return nullptr;
}

bool DirectoryModel::canDropMimeData(const QMimeData* data, Qt::DropAction, int row, int, const QModelIndex& parent) const {
    // Only onto another checkpoint's row, not between rows.
    if (!data || row >= 0 || !data->hasFormat(QString::fromLatin1(kPrefixMimeType))) return false;
    const QString target = parent.data(PrefixRole).toString();
    return !target.isEmpty() && target != QString::fromUtf8(data->data(QString::fromLatin1(kPrefixMimeType)));
}

bool DirectoryModel::dropMimeData(const QMimeData* data, Qt::DropAction action, int row, int column, const QModelIndex& parent) {
    if (!canDropMimeData(data, action, row, column, parent)) return false;
    emit compareDropped(QString::fromUtf8(data->data(QString::fromLatin1(kPrefixMimeType))), parent.data(PrefixRole).toString());
    return true;
}

}  // namespace ckpt::ui
