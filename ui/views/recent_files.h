#pragma once
// The checkpoints and directories opened lately (paths and s3:// or gs://
// URLs), newest first, kept in
// QSettings ("recentFiles") so File ▸ Open Recent and the welcome page
// survive restarts. GUI thread only.
//   RecentFiles recent;
//   recent.add(path);                       // after a successful open request
//   recent.fillMenu(menu, [](const QString& p) { open(p); });

#include <QObject>
#include <QStringList>

#include <functional>

class QMenu;

namespace ckpt::ui {

class RecentFiles : public QObject {
    Q_OBJECT
public:
    static constexpr int kMaxEntries = 10;

    // Reads the list from QSettings.
    explicit RecentFiles(QObject* parent = nullptr);

    QStringList paths() const { return m_paths; }
    // Moves 'path' to the front (adding it), drops the oldest past kMaxEntries.
    void add(const QString& path);
    void clear();

    // Replaces 'menu''s actions: one per path (a folder, file or network
    // icon, the path as text, "(missing)" after one no longer on disk), then "Clear
    // Menu". Disabled while empty. Looks at the disk (a stat per entry):
    // call it when the menu is about to show.
    void fillMenu(QMenu* menu, const std::function<void(const QString&)>& open);
    // Neither the path nor its .index exists; never true for a URL (not looked up).
    static bool isMissing(const QString& path);

signals:
    void changed();

private:
    void store();

    QStringList m_paths;
};

}  // namespace ckpt::ui
