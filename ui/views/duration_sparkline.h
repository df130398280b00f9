#pragma once
// A sparkline of recent run durations: one bar per run, oldest left, on a
// scale from zero to the longest, so a run that took twice as long stands
// twice as tall. DurationSparkline is the widget above a schedule's runs
// log; DurationSparklineDelegate draws the same in a table cell whose
// model gives the durations as QList<double> under a role.

#include <QList>
#include <QStyledItemDelegate>
#include <QWidget>

namespace ckpt::ui {

// Draws 'seconds' into 'rect' with the palette's highlight colour; draws
// nothing for an empty list.
void paintDurationSparkline(QPainter* painter, const QRectF& rect, const QList<double>& seconds, const QPalette& palette);

class DurationSparkline : public QWidget {
    Q_OBJECT
public:
    explicit DurationSparkline(QWidget* parent = nullptr);

    void setDurations(const QList<double>& seconds);
    const QList<double>& durations() const { return m_seconds; }
    QSize sizeHint() const override { return {160, 28}; }

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    QList<double> m_seconds;
};

class DurationSparklineDelegate : public QStyledItemDelegate {
    Q_OBJECT
public:
    DurationSparklineDelegate(int durationsRole, QObject* parent = nullptr);

    void paint(QPainter* painter, const QStyleOptionViewItem& option, const QModelIndex& index) const override;
    QSize sizeHint(const QStyleOptionViewItem& option, const QModelIndex& index) const override;

private:
    int m_role;
};

}  // namespace ckpt::ui
