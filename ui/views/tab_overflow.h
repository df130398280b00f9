#pragma once
// A tab widget in a narrow pane shows whole tabs only: the tabs that do not
// fit beside the current one are hidden and reached, with every other, from
// a "»" menu at the end of the bar. Scroll buttons left a tab cut in half
// at the pane's edge ("He" for Heatmap in a 1024 px window) and the rest out
// of sight. The current tab is always shown; the first tabs keep their
// places. GUI thread; owned by the tab widget.
//   new TabOverflow(tabs);

#include <QObject>

class QTabWidget;
class QToolButton;

namespace ckpt::ui {

class TabOverflow : public QObject {
    Q_OBJECT
public:
    explicit TabOverflow(QTabWidget* tabs);

    // Shows and hides the tabs for the widget's width (on resize and when
    // the current tab changes; call it after adding tabs).
    void fit();
    // "»", shown while tabs are hidden; its menu lists every tab.
    QToolButton* moreButton() const { return m_more; }

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void fillMenu();  // every tab, the current one checked

    QTabWidget* m_tabs;
    QToolButton* m_more;
    bool m_fitting = false;
};

}  // namespace ckpt::ui
