#pragma once
// Round ticks on a chart's value axis (multiples of 1, 2 or 5 times a power
// of ten, anchored at 0), about five over the range, but never so dense that
// their labels do not fit between them: in a 1024 px window the inspector's
// histogram had eight ticks over 190 px and showed "-…" for -0.6. Kept
// right as the chart's plot area changes. GUI thread; owned by the axis.
//   x->setRange(lo, hi);
//   chart->addAxis(x, Qt::AlignBottom);
//   new RoundTicks(chart, x, /*minStep=*/0);  // history steps: 1

#include <QObject>

class QChart;
class QValueAxis;

namespace ckpt::ui {

class RoundTicks : public QObject {
    Q_OBJECT
public:
    // 'axis' is horizontal, its range and label format set; 'minStep' > 0
    // keeps steps at or above it (whole training steps).
    RoundTicks(QChart* chart, QValueAxis* axis, double minStep);

    // The interval for a range of 'span' drawn over 'pixels' with labels up
    // to 'labelWidth' px wide.
    static double interval(double span, double pixels, int labelWidth, double minStep);
    // The round step nearest 'raw' (1, 2, 5 times a power of ten); 1 when
    // raw is not a positive finite number.
    static double nearestRound(double raw);
    // The smallest round step at or above 'raw'.
    static double roundUp(double raw);

private:
    void update();

    QChart* m_chart;
    QValueAxis* m_axis;
    double m_minStep;
};

}  // namespace ckpt::ui
