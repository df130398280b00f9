#pragma once
// A line chart of the History page: one marker per checkpoint whose tooltip
// names the checkpoint, its step and the value under the pointer. The view
// finds the nearest marker itself (within a few pixels) on QEvent::ToolTip
// rather than relying on the series' hover signal, which never fired under
// some window systems (issue #30), so a point always answers. GUI thread.

#include <QChartView>
#include <QList>
#include <QPointF>
#include <QString>

namespace ckpt::ui {

class HistoryChartView : public QChartView {
    Q_OBJECT
public:
    HistoryChartView(QChart* chart, const QString& accessibleName, QWidget* parent = nullptr);

    // The markers (chart values) and their texts; empty clears them.
    void setPoints(QList<QPointF> points, QStringList tips);
    // The text of the marker nearest to 'viewportPos' within reach; empty
    // when none is that close.
    QString tipAt(const QPoint& viewportPos) const;

protected:
    bool viewportEvent(QEvent* event) override;

private:
    QList<QPointF> m_points;
    QStringList m_tips;
};

}  // namespace ckpt::ui
