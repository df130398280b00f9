#include "views/column_fitter.h"

#include <QEvent>
#include <QHeaderView>
#include <QTreeView>

#include <algorithm>
#include <utility>

namespace ckpt::ui {

ColumnFitter::ColumnFitter(QTreeView* view, int stretchColumn, int minWidth, QList<int> giveWay)
    : QObject(view), m_view(view), m_viewport(view->viewport()), m_stretch(stretchColumn), m_minWidth(minWidth),
      m_giveWay(std::move(giveWay)) {
    m_viewport->installEventFilter(this);
    // Contents-sized columns grow when rows arrive (longer dates, sizes).
    connect(m_view->header(), &QHeaderView::sectionResized, this, [this](int column) {
        if (column != m_stretch && viewAlive()) fit();
    });
}

bool ColumnFitter::eventFilter(QObject* watched, QEvent* event) {
    // Compared by address, never by asking the view: the view's destructor
    // deletes the viewport before this fitter, and the viewport's own
    // destructor still sends it events (QEvent::Destroy) while the view is
    // no longer a QTreeView (UBSan: a member call on a destroyed object).
    if (event->type() == QEvent::Resize && watched == m_viewport && viewAlive()) fit();
    return false;
}

bool ColumnFitter::viewAlive() const {
    // A virtual call, defined while the view is destroyed: in its base
    // classes' destructors its meta-object is no longer a QTreeView's.
    return qobject_cast<const QTreeView*>(parent()) != nullptr;
}

void ColumnFitter::setMinWidth(int minWidth) {
    if (minWidth == m_minWidth) return;
    m_minWidth = minWidth;
    fit();
}

int ColumnFitter::widthOf(int column) {
    QHeaderView* header = m_view->header();
    if (!header->isSectionHidden(column)) {
        int width = header->sectionSize(column);
        // QTreeView hides its override of sizeHintForColumn; the base one is public.
        if (header->sectionResizeMode(column) == QHeaderView::ResizeToContents)
            width = std::max(
                {width, static_cast<QAbstractItemView*>(m_view)->sizeHintForColumn(column), header->sectionSizeHint(column)});
        m_widths[column] = width;
    }
    return m_widths.value(column);
}

void ColumnFitter::fit() {
    if (m_fitting) return;  // hiding a column resizes the others
    m_fitting = true;
    QHeaderView* header = m_view->header();
    // Columns the view hid itself are not this fitter's to show.
    const auto ours = [&](int c) { return !header->isSectionHidden(c) || m_hidden.contains(c); };
    int room = m_view->viewport()->width() - m_minWidth;
    for (int c = 0; c < header->count(); ++c)
        if (c != m_stretch && !m_giveWay.contains(c) && !header->isSectionHidden(c)) room -= widthOf(c);
    // Kept from the end of the list: the first to give way is the last kept.
    QList<int> hide;
    bool fits = true;
    for (qsizetype i = m_giveWay.size() - 1; i >= 0; --i) {
        const int c = m_giveWay[i];
        if (!ours(c)) continue;
        room -= widthOf(c);
        fits = fits && room >= 0;
        if (!fits) hide << c;
    }
    for (int c : std::as_const(m_giveWay)) {
        if (!ours(c)) continue;
        m_view->setColumnHidden(c, hide.contains(c));
        if (hide.contains(c)) m_hidden.insert(c);
        else m_hidden.remove(c);
    }
    m_fitting = false;
}

}  // namespace ckpt::ui
