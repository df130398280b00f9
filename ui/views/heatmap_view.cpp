#include "views/heatmap_view.h"

#include <QFontMetricsF>
#include <QHelpEvent>
#include <QLocale>
#include <QPainter>
#include <QToolTip>

#include <algorithm>
#include <cmath>

namespace ckpt::ui {
namespace {

constexpr int kLegendHeight = 30;

// Slices thinner than this are stretched to it, else a bias would be a hairline.
constexpr double kMaxAspect = 12.0;

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
}

void HeatmapView::setHeatmap(std::optional<Heatmap> heatmap, QImage image, int64_t rows, int64_t columns) {
    m_heatmap = std::move(heatmap);
    m_image = std::move(image);
    m_rows = rows;
    m_columns = columns;
    update();
}

void HeatmapView::setLegend(QImage colorbar, double lo, double hi) {
    m_colorbar = std::move(colorbar);
    m_lo = lo;
    m_hi = hi;
    update();
}

QRectF HeatmapView::imageRect() const {
    if (m_image.isNull() || m_rows <= 0 || m_columns <= 0) return {};
    const double aspect = std::clamp(static_cast<double>(m_columns) / static_cast<double>(m_rows), 1.0 / kMaxAspect, kMaxAspect);
    const QRectF area = QRectF(rect()).adjusted(4, 4, -4, -4 - (m_colorbar.isNull() ? 0 : kLegendHeight));
    QSizeF size(area.width(), area.width() / aspect);
    if (size.height() > area.height()) size = QSizeF(area.height() * aspect, area.height());
    // Top-aligned, centred across: the legend follows right below.
    return QRectF(QPointF(area.center().x() - size.width() / 2, area.top()), size);
}

QString HeatmapView::valueTextAt(QPointF pos) const {
    const QRectF r = imageRect();
    if (!m_heatmap || r.isEmpty() || !r.contains(pos)) return {};
    const Heatmap& h = *m_heatmap;
    const int x = std::clamp(static_cast<int>((pos.x() - r.left()) / r.width() * h.width), 0, h.width - 1);
    const int y = std::clamp(static_cast<int>((pos.y() - r.top()) / r.height() * h.height), 0, h.height - 1);
    const double v = h.values[static_cast<size_t>(y) * static_cast<size_t>(h.width) + static_cast<size_t>(x)];
    const QString value = std::isnan(v) ? tr("no finite value") : QLocale().toString(v, 'g', 6);
    const QString rows = rangeText(cellRange(y, h.height, m_rows));
    const QString cols = rangeText(cellRange(x, h.width, m_columns));
    const bool pooled = h.width < m_columns || h.height < m_rows;
    return pooled ? tr("rows %1, columns %2: %3 (pooled)").arg(rows, cols, value)
                  : tr("row %1, column %2: %3").arg(rows, cols, value);
}

void HeatmapView::paintEvent(QPaintEvent*) {
    if (m_image.isNull()) return;
    QPainter p(this);
    // Nearest-neighbour: each value stays a sharp cell, on high-DPI screens
    // too (the painter maps logical to device pixels itself).
    p.setRenderHint(QPainter::SmoothPixmapTransform, false);
    const QRectF r = imageRect();
    p.drawImage(r, m_image);
    p.setPen(palette().color(QPalette::Mid));
    p.drawRect(r.adjusted(-0.5, -0.5, 0.5, 0.5));
    if (m_colorbar.isNull()) return;
    const QFontMetricsF fm(font());
    const QString lo = QLocale().toString(m_lo, 'g', 4), hi = QLocale().toString(m_hi, 'g', 4);
    const double labels = fm.horizontalAdvance(lo) + fm.horizontalAdvance(hi) + 16;
    const double barWidth = std::clamp(width() - 8 - labels, 40.0, 240.0);
    const double total = barWidth + labels;
    const double top = r.bottom() + 10;
    const QRectF bar(width() / 2.0 - total / 2 + fm.horizontalAdvance(lo) + 8, top, barWidth, 12);
    p.setRenderHint(QPainter::SmoothPixmapTransform, true);
    p.drawImage(bar, m_colorbar);
    p.drawRect(bar.adjusted(-0.5, -0.5, 0.5, 0.5));
    p.setPen(palette().color(QPalette::WindowText));
    p.drawText(QRectF(bar.left() - 8 - fm.horizontalAdvance(lo), top - 4, fm.horizontalAdvance(lo), 20),
               Qt::AlignRight | Qt::AlignVCenter, lo);
    p.drawText(QRectF(bar.right() + 8, top - 4, fm.horizontalAdvance(hi) + 2, 20), Qt::AlignLeft | Qt::AlignVCenter, hi);
}

bool HeatmapView::event(QEvent* event) {
    if (event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        const QString text = valueTextAt(help->pos());
        if (text.isEmpty()) QToolTip::hideText();
        else QToolTip::showText(help->globalPos(), text, this);
        return true;
    }
    return QWidget::event(event);
}

}  // namespace ckpt::ui
