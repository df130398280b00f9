#pragma once
// Help ▸ Keyboard Shortcuts: every action of the window's menus that has a
// shortcut, listed from the QActions themselves (menu, command, keys), so
// the page can never disagree with what the keys do.
//   ShortcutsDialog dialog(menuBar());
//   dialog.exec();

#include <QDialog>
#include <QList>

class QAction;
class QMenuBar;
class QTableWidget;

namespace ckpt::ui {

// Where a shortcut lives: the menu path ("File ▸ Open Recent") and its action.
struct MenuShortcut {
    QString menu;
    QAction* action;
};

// Every action with a shortcut reachable from 'menus', in menu order.
QList<MenuShortcut> menuShortcuts(const QMenuBar* menus);

class ShortcutsDialog : public QDialog {
    Q_OBJECT
public:
    explicit ShortcutsDialog(const QMenuBar* menus, QWidget* parent = nullptr);

    QTableWidget* table() const { return m_table; }

private:
    QTableWidget* m_table;
};

}  // namespace ckpt::ui
