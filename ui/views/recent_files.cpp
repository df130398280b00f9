#include "views/recent_files.h"

#include <QApplication>
#include <QFileInfo>
#include <QMenu>
#include <QSettings>
#include <QStyle>

#include "ckpt/bundle_naming.h"
#include "jobs/checkpoint_jobs.h"

namespace ckpt::ui {
namespace {

const QString kKey = QStringLiteral("recentFiles");

}  // namespace

RecentFiles::RecentFiles(QObject* parent) : QObject(parent), m_paths(QSettings().value(kKey).toStringList()) {
    while (m_paths.size() > kMaxEntries) m_paths.removeLast();
}

void RecentFiles::add(const QString& path) {
    m_paths.removeAll(path);
    m_paths.prepend(path);
    while (m_paths.size() > kMaxEntries) m_paths.removeLast();
    store();
}

void RecentFiles::clear() {
    m_paths.clear();
    store();
}

void RecentFiles::store() {
    QSettings().setValue(kKey, m_paths);
    emit changed();
}

bool RecentFiles::isMissing(const QString& path) {
    // A URL is not looked up: that is network I/O, and this runs as a menu opens.
    if (isRemoteLocation(path)) return false;
    // A checkpoint is remembered by its prefix, which is no file itself.
    return !QFileInfo::exists(path) && !QFileInfo::exists(QString::fromStdString(indexFileName(path.toStdString())));
}

void RecentFiles::fillMenu(QMenu* menu, const std::function<void(const QString&)>& open) {
    menu->clear();
    QStyle* style = QApplication::style();
    for (const QString& path : m_paths) {
        // A directory opens its latest checkpoint: the icon tells which kind
        // of entry it is; one deleted since says so (and still opens, to show why).
        const bool remote = isRemoteLocation(path);
        const bool missing = isMissing(path);
        const bool dir = !remote && QFileInfo(path).isDir();
        const QStyle::StandardPixmap icon = remote    ? QStyle::SP_DriveNetIcon
                                            : missing ? QStyle::SP_MessageBoxWarning
                                            : dir     ? QStyle::SP_DirIcon
                                                      : QStyle::SP_FileIcon;
        QAction* a = menu->addAction(style->standardIcon(icon), missing ? tr("%1 (missing)").arg(path) : path);
        if (missing) a->setToolTip(tr("%1 is no longer there").arg(path));
        QObject::connect(a, &QAction::triggered, menu, [open, path] { open(path); });
    }
    menu->addSeparator();
    QAction* clearAction = menu->addAction(tr("&Clear Menu"));
    // Queued: clearing rebuilds this menu, which must not delete the action
    // while it is still emitting.
    connect(clearAction, &QAction::triggered, this, &RecentFiles::clear, Qt::QueuedConnection);
    clearAction->setEnabled(!m_paths.isEmpty());
    menu->setEnabled(!m_paths.isEmpty());
}

}  // namespace ckpt::ui
