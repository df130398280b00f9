#pragma once
// File ▸ Open Recent and the welcome page's recent buttons, both filled
// from RecentFiles: rebuilt when the list changes and when the menu is
// about to show (checked against the disk then: a checkpoint deleted since
// is marked). Choosing one asks for it to be opened (openRequested).

#include <QObject>

class QMenu;

namespace ckpt::ui {

class RecentFiles;
class WelcomePage;

class RecentMenu : public QObject {
    Q_OBJECT
public:
    // 'menu' (File ▸ Open Recent) and 'welcome' are filled from here on.
    RecentMenu(QMenu* menu, WelcomePage* welcome, QObject* parent = nullptr);

    // Remembers 'path' as the newest.
    void add(const QString& path);

signals:
    void openRequested(const QString& path);

private:
    void rebuild();

    RecentFiles* m_recent;
    QMenu* m_menu;
    WelcomePage* m_welcome;
};

}  // namespace ckpt::ui
