#pragma once
// Keeps a tree view's stretching column readable in a narrow pane: while
// showing every column would leave it under 'minWidth', the columns listed
// in 'giveWay' are hidden, first to last, and shown again (last to first)
// once the view is wide enough; a column the view hides itself stays
// hidden. Their widths are remembered from when they
// were last shown (a hidden column measures 0). GUI thread only; owned by
// the view.
//   new ColumnFitter(view, /*stretch=*/0, /*minWidth=*/120, {3, 2});

#include <QList>
#include <QMap>
#include <QObject>
#include <QSet>

class QTreeView;

namespace ckpt::ui {

class ColumnFitter : public QObject {
    Q_OBJECT
public:
    ColumnFitter(QTreeView* view, int stretchColumn, int minWidth, QList<int> giveWay);

    // Call after the view shows or hides a column itself.
    void fit();
    // A new floor for the stretching column (its content grew); fits again.
    void setMinWidth(int minWidth);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    int widthOf(int column);
    // False once the view's destructor has begun: nothing may call into it then.
    bool viewAlive() const;

    QTreeView* m_view;
    QObject* m_viewport;  // only compared, never called: see eventFilter
    int m_stretch;
    int m_minWidth;
    QList<int> m_giveWay;
    QMap<int, int> m_widths;
    QSet<int> m_hidden;  // hidden by this fitter, shown again when there is room
    bool m_fitting = false;
};

}  // namespace ckpt::ui
