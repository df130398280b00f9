#include "views/heatmap_view.h"

#include <QFontMetricsF>
#include <QHelpEvent>
#include <QKeyEvent>
#include <QLocale>
#include <QMouseEvent>
#include <QPainter>
#include <QScrollArea>
#include <QScrollBar>
#include <QToolTip>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>

namespace ckpt::ui {
namespace {

constexpr int kLegendHeight = 30;
constexpr int kMargin = 4;

// Slices thinner than this are stretched to it, else a bias would be a hairline.
constexpr double kMaxAspect = 12.0;

// One zoom step, and the range of scales (logical pixels per element).
constexpr double kZoomStep = 1.25;
constexpr double kMinZoom = 0.01, kMaxZoom = 256.0;

// Source indices pooled into output cell 'cell' of 'out' (the engine maps
// source i to cell i*out/extent): [first, last].
std::pair<int64_t, int64_t> cellRange(int64_t cell, int64_t out, int64_t extent) {
    const auto first = (cell * extent + out - 1) / out;
    const auto last = ((cell + 1) * extent + out - 1) / out - 1;
    return {first, last};
}

QString rangeText(std::pair<int64_t, int64_t> r) {
    return r.first == r.second ? QString::number(r.first) : QStringLiteral("%1\u2013%2").arg(r.first).arg(r.second);
}

}  // namespace

HeatmapView::HeatmapView(QWidget* parent) : QWidget(parent) {
    setMouseTracking(true);
    setMinimumSize(120, 120);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
    // Reachable by Tab: the arrow keys then walk the cells.
    setFocusPolicy(Qt::StrongFocus);
    m_fitMinimum = minimumSize();
}

QScrollArea* HeatmapView::wrapInScrollArea(HeatmapView* view, QWidget* parent) {
    auto* area = new QScrollArea(parent);
    area->setFrameShape(QFrame::NoFrame);
    area->setWidgetResizable(true);
    area->setMinimumSize(view->minimumSize());
    // Tab goes to the view itself; the area only scrolls.
    area->setFocusPolicy(Qt::NoFocus);
    area->setWidget(view);
    return area;
}

QScrollArea* HeatmapView::scrollArea() const {
    QWidget* viewport = parentWidget();
    return viewport ? qobject_cast<QScrollArea*>(viewport->parentWidget()) : nullptr;
}

void HeatmapView::setHeatmap(std::optional<Heatmap> heatmap, QImage image, int64_t rows, int64_t columns) {
    // While the next heatmap computes (none shown) the zoom and scroll
    // position stay, so a checkpoint switch does not jump.
    const bool otherSlice = heatmap && (rows != m_rows || columns != m_columns);
    m_heatmap = std::move(heatmap);
    m_image = std::move(image);
    if (m_heatmap) {
        m_rows = rows;
        m_columns = columns;
    }
    if (otherSlice) {
        m_keyCell.reset();
        if (m_zoom) applyZoom(std::nullopt, std::nullopt);
    } else if (m_zoom) {
        applyZoom(m_zoom, std::nullopt);
    }
    if (m_keyCell && m_heatmap)
        m_keyCell = QPoint(std::min(m_keyCell->x(), m_heatmap->width - 1), std::min(m_keyCell->y(), m_heatmap->height - 1));
    setCursorText(m_keyCell && m_heatmap ? cellText(*m_keyCell) : QString());
    update();
}

void HeatmapView::setLegend(QImage colorbar, double lo, double hi) {
    m_colorbar = std::move(colorbar);
    m_lo = lo;
    m_hi = hi;
    update();
}

QSizeF HeatmapView::naturalSize() const {
    if (m_rows <= 0 || m_columns <= 0) return {};
    const auto rows = static_cast<double>(m_rows), columns = static_cast<double>(m_columns);
    if (columns / rows > kMaxAspect) return {columns, columns / kMaxAspect};
    if (rows / columns > kMaxAspect) return {rows / kMaxAspect, rows};
    return {columns, rows};
}

QRectF HeatmapView::fittedRect() const {
    const QSizeF natural = naturalSize();
    if (natural.isEmpty()) return {};
    const double aspect = natural.width() / natural.height();
    const QRectF area = QRectF(rect()).adjusted(kMargin, kMargin, -kMargin, -kMargin - (m_colorbar.isNull() ? 0 : kLegendHeight));
    QSizeF size(area.width(), area.width() / aspect);
    if (size.height() > area.height()) size = QSizeF(area.height() * aspect, area.height());
    // Top-aligned, centred across: the legend follows right below.
    return QRectF(QPointF(area.center().x() - size.width() / 2, area.top()), size);
}

QRectF HeatmapView::imageRect() const {
    if (m_image.isNull() || naturalSize().isEmpty()) return {};
    if (!m_zoom) return fittedRect();
    const QSizeF size = naturalSize() * *m_zoom;
    return QRectF(QPointF(std::max<double>(kMargin, width() / 2.0 - size.width() / 2), kMargin), size);
}

double HeatmapView::effectiveZoom() const {
    if (m_zoom) return *m_zoom;
    const QSizeF natural = naturalSize();
    return natural.isEmpty() ? 1.0 : fittedRect().width() / natural.width();
}

void HeatmapView::setZoom(std::optional<double> zoom) {
    if (zoom != m_zoom) applyZoom(zoom, std::nullopt);
}

void HeatmapView::zoomIn() { applyZoom(effectiveZoom() * kZoomStep, std::nullopt); }

void HeatmapView::zoomOut() { applyZoom(effectiveZoom() / kZoomStep, std::nullopt); }

void HeatmapView::actualSize() { applyZoom(1.0 / devicePixelRatioF(), std::nullopt); }

void HeatmapView::applyZoom(std::optional<double> zoom, std::optional<QPointF> anchor) {
    if (zoom) zoom = std::clamp(*zoom, kMinZoom, kMaxZoom);
    QScrollArea* area = scrollArea();
    // Keep the point under 'anchor' (else the viewport's centre) in place.
    QPointF fraction(0.5, 0.5), inViewport;
    if (area) {
        const QPoint scrolled(area->horizontalScrollBar()->value(), area->verticalScrollBar()->value());
        const QPointF at =
            anchor.value_or(QPointF(scrolled) + QPointF(area->viewport()->width(), area->viewport()->height()) / 2);
        inViewport = at - QPointF(scrolled);
        if (const QRectF r = imageRect(); !r.isEmpty())
            fraction = QPointF((at.x() - r.left()) / r.width(), (at.y() - r.top()) / r.height());
    }
    if (!m_zoom && zoom) m_fitMinimum = minimumSize();
    const bool changed = zoom != m_zoom;
    m_zoom = zoom;
    if (!m_zoom || naturalSize().isEmpty()) {
        setMinimumSize(m_fitMinimum);
    } else {
        const QSizeF size = naturalSize() * *m_zoom;
        const int legend = m_colorbar.isNull() ? 0 : kLegendHeight;
        setMinimumSize(std::max(m_fitMinimum.width(), static_cast<int>(std::ceil(size.width())) + 2 * kMargin),
                       std::max(m_fitMinimum.height(), static_cast<int>(std::ceil(size.height())) + 2 * kMargin + legend));
    }
    if (area) {
        // Laid out now rather than on the next event loop turn, so the
        // scroll position below applies to the new size.
        resize(minimumSize().expandedTo(area->viewport()->size()));
        if (const QRectF r = imageRect(); !r.isEmpty()) {
            const QPointF target = r.topLeft() + QPointF(fraction.x() * r.width(), fraction.y() * r.height());
            area->horizontalScrollBar()->setValue(qRound(target.x() - inViewport.x()));
            area->verticalScrollBar()->setValue(qRound(target.y() - inViewport.y()));
        }
    }
    update();
    if (changed) emit zoomChanged();
}

std::optional<QPoint> HeatmapView::cellAt(QPointF pos) const {
    const QRectF r = imageRect();
    if (!m_heatmap || r.isEmpty() || !r.contains(pos)) return std::nullopt;
    const Heatmap& h = *m_heatmap;
    const int x = std::clamp(static_cast<int>((pos.x() - r.left()) / r.width() * h.width), 0, h.width - 1);
    const int y = std::clamp(static_cast<int>((pos.y() - r.top()) / r.height() * h.height), 0, h.height - 1);
    return QPoint(x, y);
}

QString HeatmapView::cellText(QPoint cell) const {
    if (!m_heatmap) return {};
    const Heatmap& h = *m_heatmap;
    const double v = h.values[static_cast<size_t>(cell.y()) * static_cast<size_t>(h.width) + static_cast<size_t>(cell.x())];
    const QString value = std::isnan(v) ? tr("no finite value") : QLocale().toString(v, 'g', 6);
    const QString rows = rangeText(cellRange(cell.y(), h.height, m_rows));
    const QString cols = rangeText(cellRange(cell.x(), h.width, m_columns));
    const bool pooled = h.width < m_columns || h.height < m_rows;
    return pooled ? tr("rows %1, columns %2: %3 (pooled)").arg(rows, cols, value)
                  : tr("row %1, column %2: %3").arg(rows, cols, value);
}

QString HeatmapView::valueTextAt(QPointF pos) const {
    const auto cell = cellAt(pos);
    return cell ? cellText(*cell) : QString();
}

void HeatmapView::setCursorText(const QString& text) {
    if (text == m_cursorText) return;
    m_cursorText = text;
    // Screen readers hear the cell the keyboard or mouse is on.
    setAccessibleDescription(text);
    emit cursorTextChanged(text);
}

void HeatmapView::moveKeyboardCell(int dx, int dy) {
    if (!m_heatmap) return;
    const Heatmap& h = *m_heatmap;
    const QPoint from = m_keyCell.value_or(QPoint(0, 0));
    m_keyCell = m_keyCell ? QPoint(std::clamp(from.x() + dx, 0, h.width - 1), std::clamp(from.y() + dy, 0, h.height - 1)) : from;
    const QRectF r = imageRect();
    if (QScrollArea* area = scrollArea(); area && !r.isEmpty()) {
        const QPointF centre =
            r.topLeft() + QPointF((m_keyCell->x() + 0.5) * r.width() / h.width, (m_keyCell->y() + 0.5) * r.height() / h.height);
        area->ensureVisible(qRound(centre.x()), qRound(centre.y()), 20, 20);
    }
    setCursorText(cellText(*m_keyCell));
    update();
}

void HeatmapView::paintEvent(QPaintEvent*) {
    if (m_image.isNull()) return;
    QPainter p(this);
    // Nearest-neighbour: each value stays a sharp cell, on high-DPI screens
    // too (the painter maps logical to device pixels itself).
    p.setRenderHint(QPainter::SmoothPixmapTransform, false);
    const QRectF r = imageRect();
    p.drawImage(r, m_image);
    p.setPen(palette().color(hasFocus() ? QPalette::Highlight : QPalette::Mid));
    p.drawRect(r.adjusted(-0.5, -0.5, 0.5, 0.5));
    if (m_keyCell && m_heatmap && hasFocus()) {
        // The keyboard's cell: a dark and a light ring, visible on any colour.
        const double w = r.width() / m_heatmap->width, h = r.height() / m_heatmap->height;
        const QRectF cell(r.left() + m_keyCell->x() * w, r.top() + m_keyCell->y() * h, w, h);
        p.setPen(QPen(Qt::black, 2));
        p.drawRect(cell.adjusted(-1, -1, 1, 1));
        p.setPen(QPen(Qt::white, 1));
        p.drawRect(cell.adjusted(-2.5, -2.5, 2.5, 2.5));
    }
    if (m_colorbar.isNull()) return;
    const QFontMetricsF fm(font());
    const QString lo = QLocale().toString(m_lo, 'g', 4), hi = QLocale().toString(m_hi, 'g', 4);
    const double labels = fm.horizontalAdvance(lo) + fm.horizontalAdvance(hi) + 16;
    const double barWidth = std::clamp(width() - 8 - labels, 40.0, 240.0);
    const double total = barWidth + labels;
    const double top = r.bottom() + 10;
    const double centre = std::clamp(r.center().x(), total / 2, width() - total / 2);
    const QRectF bar(centre - total / 2 + fm.horizontalAdvance(lo) + 8, top, barWidth, 12);
    p.setRenderHint(QPainter::SmoothPixmapTransform, true);
    p.drawImage(bar, m_colorbar);
    p.setPen(palette().color(QPalette::Mid));
    p.drawRect(bar.adjusted(-0.5, -0.5, 0.5, 0.5));
    p.setPen(palette().color(QPalette::WindowText));
    p.drawText(QRectF(bar.left() - 8 - fm.horizontalAdvance(lo), top - 4, fm.horizontalAdvance(lo), 20),
               Qt::AlignRight | Qt::AlignVCenter, lo);
    p.drawText(QRectF(bar.right() + 8, top - 4, fm.horizontalAdvance(hi) + 2, 20), Qt::AlignLeft | Qt::AlignVCenter, hi);
}

bool HeatmapView::event(QEvent* event) {
    if (event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        // Over the image: the value there; elsewhere the view's own tooltip (how to use it).
        const QString text = valueTextAt(help->pos());
        if (text.isEmpty()) return QWidget::event(event);
        QToolTip::showText(help->globalPos(), text, this);
        return true;
    }
    return QWidget::event(event);
}

void HeatmapView::mouseMoveEvent(QMouseEvent* event) {
    const QString text = valueTextAt(event->position());
    setCursorText(!text.isEmpty() || !m_keyCell ? text : cellText(*m_keyCell));
    QWidget::mouseMoveEvent(event);
}

void HeatmapView::leaveEvent(QEvent* event) {
    setCursorText(m_keyCell ? cellText(*m_keyCell) : QString());
    QWidget::leaveEvent(event);
}

void HeatmapView::wheelEvent(QWheelEvent* event) {
    // Ctrl+wheel zooms about the pointer; a plain wheel scrolls the area.
    if (!(event->modifiers() & Qt::ControlModifier) || event->angleDelta().y() == 0 || naturalSize().isEmpty()) {
        event->ignore();
        return;
    }
    const double factor = event->angleDelta().y() > 0 ? kZoomStep : 1.0 / kZoomStep;
    applyZoom(effectiveZoom() * factor, event->position());
    event->accept();
}

void HeatmapView::keyPressEvent(QKeyEvent* event) {
    // Shift moves ten cells at a time.
    const int step = event->modifiers() & Qt::ShiftModifier ? 10 : 1;
    switch (event->key()) {
    case Qt::Key_Left: moveKeyboardCell(-step, 0); break;
    case Qt::Key_Right: moveKeyboardCell(step, 0); break;
    case Qt::Key_Up: moveKeyboardCell(0, -step); break;
    case Qt::Key_Down: moveKeyboardCell(0, step); break;
    case Qt::Key_Home: moveKeyboardCell(-(1 << 30), -(1 << 30)); break;
    case Qt::Key_End: moveKeyboardCell(1 << 30, 1 << 30); break;
    default: QWidget::keyPressEvent(event); return;
    }
    event->accept();
}

void HeatmapView::focusInEvent(QFocusEvent* event) {
    QWidget::focusInEvent(event);
    // Arriving by keyboard shows where the arrow keys start.
    if (m_heatmap && !m_keyCell) moveKeyboardCell(0, 0);
    update();
}

void HeatmapView::focusOutEvent(QFocusEvent* event) {
    QWidget::focusOutEvent(event);
    update();
}

}  // namespace ckpt::ui
