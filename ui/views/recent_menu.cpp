#include "views/recent_menu.h"

#include <QMenu>

#include "views/recent_files.h"
#include "views/welcome_page.h"

namespace ckpt::ui {

RecentMenu::RecentMenu(QMenu* menu, WelcomePage* welcome, QObject* parent)
    : QObject(parent), m_recent(new RecentFiles(this)), m_menu(menu), m_welcome(welcome) {
    connect(m_recent, &RecentFiles::changed, this, &RecentMenu::rebuild);
    connect(m_menu, &QMenu::aboutToShow, this, &RecentMenu::rebuild);
    connect(m_welcome, &WelcomePage::recentRequested, this, &RecentMenu::openRequested);
    rebuild();
}

void RecentMenu::add(const QString& path) { m_recent->add(path); }

void RecentMenu::rebuild() {
    m_recent->fillMenu(m_menu, [this](const QString& path) { emit openRequested(path); });
    m_welcome->showRecent(m_recent->paths());
}

}  // namespace ckpt::ui
