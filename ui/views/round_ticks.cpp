#include "views/round_ticks.h"

#include <QChart>
#include <QFontMetrics>
#include <QValueAxis>

#include <algorithm>
#include <cmath>

namespace ckpt::ui {
namespace {

double magnitudeOf(double raw) { return std::pow(10.0, std::floor(std::log10(raw))); }

}  // namespace

RoundTicks::RoundTicks(QChart* chart, QValueAxis* axis, double minStep)
    : QObject(axis), m_chart(chart), m_axis(axis), m_minStep(minStep) {
    m_axis->setTickType(QValueAxis::TicksDynamic);
    m_axis->setTickAnchor(0);
    connect(m_chart, &QChart::plotAreaChanged, this, &RoundTicks::update);
    update();
}

double RoundTicks::nearestRound(double raw) {
    if (!(raw > 0) || !std::isfinite(raw)) return 1;
    const double magnitude = magnitudeOf(raw);
    const double f = raw / magnitude;
    return (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * magnitude;
}

double RoundTicks::roundUp(double raw) {
    if (!(raw > 0) || !std::isfinite(raw)) return 1;
    const double magnitude = magnitudeOf(raw);
    const double f = raw / magnitude;
    return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * magnitude;
}

double RoundTicks::interval(double span, double pixels, int labelWidth, double minStep) {
    double step = nearestRound(span / 5);
    // A label and a gap of about its own height between neighbours.
    if (pixels > 0 && span > 0) step = std::max(step, roundUp(span * labelWidth / pixels));
    return std::max(step, minStep);
}

void RoundTicks::update() {
    const QFontMetrics metrics(m_axis->labelsFont());
    const QByteArray format = m_axis->labelFormat().toLatin1();
    // The widest label: an end of the range, at the format's precision, is
    // at least as wide as any round tick within it.
    int widest = 0;
    for (double v : {m_axis->min(), m_axis->max()})
        widest = std::max(widest, metrics.horizontalAdvance(QString::asprintf(format.constData(), v)));
    const int labelWidth = widest + metrics.height();
    const double step = interval(m_axis->max() - m_axis->min(), m_chart->plotArea().width(), labelWidth, m_minStep);
    if (step != m_axis->tickInterval()) m_axis->setTickInterval(step);
}

}  // namespace ckpt::ui
