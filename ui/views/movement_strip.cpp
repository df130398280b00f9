#include "views/movement_strip.h"

#include <QFontMetricsF>
#include <QHelpEvent>
#include <QLocale>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>

#include <algorithm>
#include <string_view>
#include <cmath>

namespace ckpt::ui {
namespace {

constexpr int kRowHeight = 16;
constexpr int kHeaderHeight = 22;
// Three lines under the grid: the scale, the "unchanged" swatch, and what
// the colours mean (wrapped to two lines in a narrow pane).
constexpr int kLegendLine = 16;
constexpr int kLegendHeight = 6 + 4 * kLegendLine + 4;
constexpr double kMaxCellWidth = 90;

}  // namespace

bool MovementStrip::isUnchanged(const HistoryPoint& p) { return p.present && (p.unchanged || p.relChange == 0); }

QColor MovementStrip::unchangedColor() const { return palette().color(QPalette::Window); }

QString checkpointLabel(const HistoryCheckpoint& c) {
    const QString name = QString::fromStdString(c.name);
    return c.step ? MovementStrip::tr("%1 (step %2)").arg(name).arg(*c.step) : name;
}

MovementStrip::MovementStrip(QWidget* parent) : QWidget(parent) {
    setMouseTracking(true);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
}

void MovementStrip::setStrip(std::shared_ptr<const CheckpointHistory> history, QImage image, QImage colorbar, double lo,
                             double hi) {
    m_history = std::move(history);
    m_image = std::move(image);
    m_colorbar = std::move(colorbar);
    m_lo = lo;
    m_hi = hi;
    // Labels drop what every path starts with ("(root).model."), up to a separator.
    m_commonPrefix = 0;
    if (m_history && m_history->variables.size() > 1) {
        std::string_view first = m_history->variables.front().path;
        size_t common = first.size();
        for (const VariableHistory& v : m_history->variables) {
            size_t i = 0;
            while (i < common && i < v.path.size() && v.path[i] == first[i]) ++i;
            common = i;
        }
        while (common > 0 && first[common - 1] != '.' && first[common - 1] != '/') --common;
        m_commonPrefix = common;
    }
    updateGeometry();
    update();
}

QSize MovementStrip::sizeHint() const {
    const int rows = m_history ? static_cast<int>(m_history->variables.size()) : 0;
    return {400, rows == 0 ? 0 : kHeaderHeight + rows * kRowHeight + kLegendHeight};
}

QRectF MovementStrip::gridRect() const {
    if (!m_history || m_history->variables.empty()) return {};
    // Labels take up to half the width; the cells the rest, not wider than
    // a readable block each.
    const double labels = std::min(width() * 0.5, 320.0);
    const double cols = static_cast<double>(m_history->checkpoints.size());
    const double cellWidth = std::min(kMaxCellWidth, (width() - labels - 8) / std::max(cols, 1.0));
    return QRectF(labels, kHeaderHeight, cellWidth * cols, kRowHeight * static_cast<double>(m_history->variables.size()));
}

QRectF MovementStrip::cellRect(int variable, int checkpoint) const {
    const QRectF g = gridRect();
    if (g.isEmpty() || variable < 0 || checkpoint < 0 || variable >= static_cast<int>(m_history->variables.size()) ||
        checkpoint >= static_cast<int>(m_history->checkpoints.size()))
        return {};
    const double cw = g.width() / static_cast<double>(m_history->checkpoints.size());
    return {g.left() + cw * checkpoint, g.top() + static_cast<double>(variable) * kRowHeight, cw, kRowHeight};
}

std::pair<int, int> MovementStrip::cellAt(QPointF pos) const {
    const QRectF g = gridRect();
    if (g.isEmpty() || pos.y() < g.top() || pos.y() >= g.bottom()) return {-1, -1};
    const int row = static_cast<int>((pos.y() - g.top()) / kRowHeight);
    if (pos.x() < g.left() || pos.x() >= g.right()) return {row, -1};
    const int col = static_cast<int>((pos.x() - g.left()) / g.width() * static_cast<double>(m_history->checkpoints.size()));
    return {row, col};
}

QString MovementStrip::cellText(int variable, int checkpoint) const {
    if (!m_history || variable < 0 || variable >= static_cast<int>(m_history->variables.size())) return {};
    const VariableHistory& v = m_history->variables[static_cast<size_t>(variable)];
    QString path = QString::fromStdString(v.path);
    if (checkpoint < 0 || checkpoint >= static_cast<int>(v.points.size())) return path;
    const HistoryPoint& p = v.points[static_cast<size_t>(checkpoint)];
    const QString where = checkpointLabel(m_history->checkpoints[static_cast<size_t>(checkpoint)]);
    if (!p.present) return tr("%1\n%2: not in this checkpoint").arg(path, where);
    if (std::isnan(p.relChange)) return tr("%1\n%2: no previous value to compare with").arg(path, where);
    if (isUnchanged(p)) return tr("%1\n%2: unchanged since the previous checkpoint").arg(path, where);
    const QString unchanged = p.unchanged ? tr(" (bytes unchanged)") : QString();
    return tr("%1\n%2: relative change %3%4").arg(path, where, QLocale().toString(p.relChange, 'g', 4), unchanged);
}

void MovementStrip::paintEvent(QPaintEvent*) {
    const QRectF g = gridRect();
    if (g.isEmpty() || m_image.isNull()) return;
    QPainter p(this);
    const QFontMetricsF fm(font());
    p.setRenderHint(QPainter::SmoothPixmapTransform, false);
    p.drawImage(g, m_image);
    // A value that did not move at all is not the smallest move: its cells
    // leave the colour scale for a neutral fill with "=".
    const double cw = g.width() / static_cast<double>(m_history->checkpoints.size());
    for (size_t r = 0; r < m_history->variables.size(); ++r) {
        const auto& points = m_history->variables[r].points;
        for (size_t c = 0; c < points.size() && c < m_history->checkpoints.size(); ++c) {
            if (!isUnchanged(points[c])) continue;
            const QRectF cell = cellRect(static_cast<int>(r), static_cast<int>(c));
            p.fillRect(cell, unchangedColor());
            if (cw >= fm.horizontalAdvance(QStringLiteral("=")) + 2) {
                p.setPen(palette().color(QPalette::WindowText));
                p.drawText(cell, Qt::AlignCenter, QStringLiteral("="));
            }
        }
    }
    p.setPen(palette().color(QPalette::Mid));
    p.drawRect(g.adjusted(-0.5, -0.5, 0.5, 0.5));
    p.setPen(palette().color(QPalette::WindowText));
    // Step labels over the columns, thinned to what fits.
    const auto& cps = m_history->checkpoints;
    const double cellWidth = g.width() / static_cast<double>(cps.size());
    double nextFree = g.left();
    for (size_t c = 0; c < cps.size(); ++c) {
        const QString label = cps[c].step ? QString::number(*cps[c].step) : QString::fromStdString(cps[c].name);
        const double x = g.left() + cellWidth * (static_cast<double>(c) + 0.5);
        const double w = fm.horizontalAdvance(label);
        if (x - w / 2 < nextFree) continue;
        p.drawText(QRectF(x - w / 2, 2, w + 1, kHeaderHeight - 4), Qt::AlignCenter, label);
        nextFree = x + w / 2 + 6;
    }
    for (size_t r = 0; r < m_history->variables.size(); ++r) {
        const QRectF label(4, g.top() + static_cast<double>(r) * kRowHeight, g.left() - 10, kRowHeight);
        // The end of a path tells variables apart; the start is the same model.
        p.drawText(label, Qt::AlignRight | Qt::AlignVCenter,
                   fm.elidedText(QString::fromStdString(m_history->variables[r].path.substr(m_commonPrefix)), Qt::ElideLeft,
                                 label.width()));
    }
    if (m_colorbar.isNull()) return;
    p.setRenderHint(QPainter::SmoothPixmapTransform, true);
    p.drawImage(colorbarRect(), m_colorbar);
    const QList<LegendText> texts = legendTexts();
    // The neutral swatch for "did not change", before its words.
    const QRectF swatch(texts[2].rect.left() - 14, texts[2].rect.top() + 3, 10, 10);
    p.fillRect(swatch, unchangedColor());
    p.setPen(palette().color(QPalette::Mid));
    p.drawRect(swatch);
    p.setPen(palette().color(QPalette::WindowText));
    for (const LegendText& t : texts) p.drawText(t.rect, t.flags, t.text);
}

QRectF MovementStrip::colorbarRect() const {
    const QList<LegendText> texts = legendTexts();
    if (texts.size() < 2) return {};
    const QRectF& lo = texts[0].rect;
    return {lo.right() + 6, lo.top() + 3, texts[1].rect.left() - 6 - (lo.right() + 6), 10};
}

QList<MovementStrip::LegendText> MovementStrip::legendTexts() const {
    const QRectF g = gridRect();
    if (g.isEmpty()) return {};
    const QFontMetricsF fm(font());
    const double top = g.bottom() + 6;
    const double right = width() - 4;
    // The scale: 10^lo [colours] 10^hi, under the cells when it fits there,
    // else from the left edge (the labels' side).
    const QString lo = tr("10^%1").arg(QLocale().toString(m_lo, 'f', 1));
    const QString hi = tr("10^%1").arg(QLocale().toString(m_hi, 'f', 1));
    const double loWidth = fm.horizontalAdvance(lo) + 1, hiWidth = fm.horizontalAdvance(hi) + 1;
    constexpr double kMinBar = 40, kMaxBar = 220;
    const double left = g.left() + loWidth + hiWidth + 12 + kMinBar <= right ? g.left() : 4.0;
    const double bar = std::clamp(right - left - loWidth - hiWidth - 12, kMinBar, kMaxBar);
    const QString same = tr("= unchanged");
    const int line = Qt::AlignLeft | Qt::AlignVCenter;
    QList<LegendText> out;
    out.append({lo, QRectF(left, top, loWidth, kLegendLine), line});
    out.append({hi, QRectF(left + loWidth + 6 + bar + 6, top, hiWidth, kLegendLine), line});
    out.append({same, QRectF(left + 14, top + kLegendLine, fm.horizontalAdvance(same) + 1, kLegendLine), line});
    // What the colours mean: wrapped, never cut, in a narrow pane.
    const QString meaning = tr("relative change since the previous checkpoint (log scale)");
    const int wrapped = Qt::AlignLeft | Qt::AlignTop | Qt::TextWordWrap;
    const QRectF room(4, top + 2 * kLegendLine, std::max(1.0, right - 4), 2 * kLegendLine);
    out.append({meaning, fm.boundingRect(room, wrapped, meaning), wrapped});
    return out;
}

bool MovementStrip::event(QEvent* event) {
    if (event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        const auto [row, col] = cellAt(help->pos());
        const QString text = cellText(row, col);
        if (text.isEmpty()) QToolTip::hideText();
        else QToolTip::showText(help->globalPos(), text, this);
        return true;
    }
    return QWidget::event(event);
}

void MovementStrip::mousePressEvent(QMouseEvent* event) {
    const int row = cellAt(event->position()).first;
    if (m_history && row >= 0 && row < static_cast<int>(m_history->variables.size())) emit variableClicked(row);
    QWidget::mousePressEvent(event);
}

}  // namespace ckpt::ui
