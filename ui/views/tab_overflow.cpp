#include "views/tab_overflow.h"

#include <QCoreApplication>
#include <QEvent>
#include <QMenu>
#include <QScopedValueRollback>
#include <QTabBar>
#include <QTabWidget>
#include <QToolButton>

#include <vector>

namespace ckpt::ui {

TabOverflow::TabOverflow(QTabWidget* tabs) : QObject(tabs), m_tabs(tabs), m_more(new QToolButton(tabs)) {
    m_more->setText(QStringLiteral("\u00bb"));
    m_more->setAutoRaise(true);
    m_more->setToolTip(tr("All tabs"));
    m_more->setAccessibleName(tr("More tabs"));
    m_more->setObjectName(QStringLiteral("moreTabs"));
    m_more->hide();
    m_tabs->setCornerWidget(m_more, Qt::TopRightCorner);
    m_tabs->setUsesScrollButtons(false);
    m_tabs->setElideMode(Qt::ElideNone);
    m_more->setPopupMode(QToolButton::InstantPopup);
    m_more->setMenu(new QMenu(m_more));
    connect(m_more->menu(), &QMenu::aboutToShow, this, &TabOverflow::fillMenu);
    connect(m_tabs, &QTabWidget::currentChanged, this, &TabOverflow::fit);
    m_tabs->installEventFilter(this);
}

bool TabOverflow::eventFilter(QObject* watched, QEvent* event) {
    if (watched == m_tabs && (event->type() == QEvent::Resize || event->type() == QEvent::Show)) fit();
    return QObject::eventFilter(watched, event);
}

void TabOverflow::fit() {
    if (m_fitting) return;
    const QScopedValueRollback<bool> guard(m_fitting, true);
    QTabBar* bar = m_tabs->tabBar();
    const int count = m_tabs->count();
    // Measured with every tab shown: a hidden tab has no rect. The current
    // one first: showing a tab while the current one is hidden makes it
    // current (QTabWidget::setTabVisible), and a hidden tab may be made
    // current by code (setCurrentWidget).
    const int current = m_tabs->currentIndex();
    if (current >= 0) m_tabs->setTabVisible(current, true);
    for (int i = 0; i < count; ++i) m_tabs->setTabVisible(i, true);
    std::vector<int> widths(static_cast<size_t>(count));
    int total = 0;
    for (int i = 0; i < count; ++i) total += widths[static_cast<size_t>(i)] = bar->tabRect(i).width();
    const bool overflows = total > m_tabs->width();
    if (overflows != m_more->isVisibleTo(m_tabs)) {
        m_more->setVisible(overflows);
        QEvent relayout(QEvent::LayoutRequest);  // the bar makes room for the button, or takes it back
        QCoreApplication::sendEvent(m_tabs, &relayout);
    }
    if (!overflows) return;
    int used = m_more->sizeHint().width() + (current >= 0 ? widths[static_cast<size_t>(current)] : 0);
    bool full = false;
    for (int i = 0; i < count; ++i) {
        if (i == current) continue;
        full = full || used + widths[static_cast<size_t>(i)] > m_tabs->width();
        if (full) m_tabs->setTabVisible(i, false);
        else used += widths[static_cast<size_t>(i)];
    }
}

void TabOverflow::fillMenu() {
    QMenu* menu = m_more->menu();
    menu->clear();
    for (int i = 0; i < m_tabs->count(); ++i) {
        QAction* action = menu->addAction(m_tabs->tabText(i));
        action->setCheckable(true);
        action->setChecked(i == m_tabs->currentIndex());
        connect(action, &QAction::triggered, this, [this, i] {
            m_tabs->setTabVisible(i, true);
            m_tabs->setCurrentIndex(i);
        });
    }
}

}  // namespace ckpt::ui
