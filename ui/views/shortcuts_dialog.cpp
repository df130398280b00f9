#include "views/shortcuts_dialog.h"

#include <QAction>
#include <QDialogButtonBox>
#include <QHeaderView>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QTableWidget>
#include <QVBoxLayout>

namespace ckpt::ui {
namespace {

// "&Open Checkpoint…" as the menu shows it: no mnemonic marker.
QString plainText(QString text) {
    text.replace(QStringLiteral("&&"), QStringLiteral("\x01"));
    text.remove(QLatin1Char('&'));
    text.replace(QLatin1Char('\x01'), QLatin1Char('&'));
    return text;
}

void collect(const QMenu* menu, const QString& path, QList<MenuShortcut>& out) {
    for (QAction* a : menu->actions()) {
        if (a->isSeparator()) continue;
        if (const QMenu* sub = a->menu()) collect(sub, path + QStringLiteral(" \u25b8 ") + plainText(sub->title()), out);
        else if (!a->shortcuts().isEmpty()) out.append({path, a});
    }
}

}  // namespace

QList<MenuShortcut> menuShortcuts(const QMenuBar* menus) {
    QList<MenuShortcut> out;
    for (QAction* top : menus->actions())
        if (const QMenu* menu = top->menu()) collect(menu, plainText(menu->title()), out);
    return out;
}

ShortcutsDialog::ShortcutsDialog(const QMenuBar* menus, QWidget* parent) : QDialog(parent), m_table(new QTableWidget(this)) {
    setWindowTitle(tr("Keyboard Shortcuts"));
    const QList<MenuShortcut> shortcuts = menuShortcuts(menus);
    m_table->setColumnCount(3);
    m_table->setHorizontalHeaderLabels({tr("Shortcut"), tr("Command"), tr("Menu")});
    m_table->setRowCount(static_cast<int>(shortcuts.size()));
    for (int row = 0; row < shortcuts.size(); ++row) {
        const MenuShortcut& s = shortcuts[row];
        QStringList keys;
        for (const QKeySequence& k : s.action->shortcuts()) keys << k.toString(QKeySequence::NativeText);
        m_table->setItem(row, 0, new QTableWidgetItem(keys.join(QStringLiteral(", "))));
        m_table->setItem(row, 1, new QTableWidgetItem(plainText(s.action->text())));
        m_table->setItem(row, 2, new QTableWidgetItem(s.menu));
        if (!s.action->toolTip().isEmpty()) m_table->item(row, 1)->setToolTip(s.action->toolTip());
    }
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setSectionResizeMode(1, QHeaderView::Stretch);
    m_table->horizontalHeader()->setSectionResizeMode(2, QHeaderView::ResizeToContents);
    m_table->setAccessibleName(tr("Keyboard shortcuts"));
    m_table->setMinimumSize(520, 360);

    auto* note = new QLabel(tr("Every menu command that has a shortcut, as the menus bind it."), this);
    note->setWordWrap(true);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(note);
    layout->addWidget(m_table);
    layout->addWidget(buttons);
}

}  // namespace ckpt::ui
