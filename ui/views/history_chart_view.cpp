#include "views/history_chart_view.h"

#include <QAbstractSeries>
#include <QChart>
#include <QHelpEvent>
#include <QToolTip>

#include <cmath>
#include <limits>

namespace ckpt::ui {
namespace {

// How far from a marker's centre the pointer still names it, in pixels.
constexpr double kReach = 10;

}  // namespace

HistoryChartView::HistoryChartView(QChart* chart, const QString& accessibleName, QWidget* parent) : QChartView(chart, parent) {
    chart->legend()->hide();
    chart->setMargins(QMargins(4, 4, 4, 4));
    chart->setBackgroundRoundness(0);
    setRenderHint(QPainter::Antialiasing);
    setAccessibleName(accessibleName);
    setMinimumHeight(150);
    viewport()->setMouseTracking(true);
}

void HistoryChartView::setPoints(QList<QPointF> points, QStringList tips) {
    m_points = std::move(points);
    m_tips = std::move(tips);
}

QString HistoryChartView::tipAt(const QPoint& viewportPos) const {
    const QList<QAbstractSeries*> series = chart()->series();
    if (series.isEmpty() || m_points.isEmpty()) return {};
    const QPointF scenePos = mapToScene(viewportPos);
    double best = std::numeric_limits<double>::infinity();
    qsizetype found = -1;
    for (qsizetype i = 0; i < m_points.size() && i < m_tips.size(); ++i) {
        const QPointF at = chart()->mapToScene(chart()->mapToPosition(m_points[i], series.last()));
        const double distance = std::hypot(at.x() - scenePos.x(), at.y() - scenePos.y());
        if (distance < best) {
            best = distance;
            found = i;
        }
    }
    return found >= 0 && best <= kReach ? m_tips[found] : QString();
}

bool HistoryChartView::viewportEvent(QEvent* event) {
    if (event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        const QString text = tipAt(help->pos());
        if (text.isEmpty()) QToolTip::hideText();
        else QToolTip::showText(help->globalPos(), text, viewport());
        return true;
    }
    return QChartView::viewportEvent(event);
}

}  // namespace ckpt::ui
