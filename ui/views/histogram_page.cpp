#include "views/histogram_page.h"

#include <QAreaSeries>
#include <QChart>
#include <QChartView>
#include <QCheckBox>
#include <QCursor>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineSeries>
#include <QLocale>
#include <QLogValueAxis>
#include <QSpinBox>
#include <QToolTip>
#include <QValueAxis>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

#include "jobs/preview_jobs.h"
#include "views/round_ticks.h"

namespace ckpt::ui {
namespace {

// Where empty bins sit on a log axis (log 0 is undefined): below one count,
// so they read as empty, not as a single value.
constexpr double kLogFloor = 0.5;

QString num(double v) { return QLocale().toString(v, 'g', 6); }
QString count(int64_t n) { return QLocale().toString(static_cast<qlonglong>(n)); }

}  // namespace

HistogramPage::HistogramPage(QWidget* parent)
    : PreviewPage(parent), m_bins(new QSpinBox(this)), m_log(new QCheckBox(tr("Lo&g counts"), this)), m_chart(new QChart),
      m_view(new QChartView(m_chart, this)), m_message(new QLabel(this)), m_info(new QLabel(this)) {
    auto* layout = new QVBoxLayout(this);
    auto* controls = new QHBoxLayout;
    auto* binsLabel = new QLabel(tr("&Bins:"), this);
    binsLabel->setBuddy(m_bins);
    controls->addWidget(binsLabel);
    // 0 shows as "auto".
    m_bins->setRange(0, kMaxHistogramBins);
    m_bins->setSpecialValueText(tr("auto"));
    m_bins->setValue(0);
    // Recompute once the number is typed, not on every digit.
    m_bins->setKeyboardTracking(false);
    m_bins->setAccessibleName(tr("Number of histogram bins"));
    m_bins->setToolTip(tr("Equal-width bins over the finite values' [min, max]"));
    controls->addWidget(m_bins);
    m_log->setAccessibleName(tr("Logarithmic count axis"));
    m_log->setToolTip(tr("Show counts on a logarithmic axis, so rare values stay visible"));
    controls->addWidget(m_log);
    controls->addStretch();
    layout->addLayout(controls);
    m_message->setWordWrap(true);
    m_message->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_message->setAccessibleName(tr("Histogram status"));
    layout->addWidget(m_message);
    m_chart->legend()->hide();
    m_chart->setMargins(QMargins(4, 4, 4, 4));
    m_chart->setBackgroundRoundness(0);
    m_view->setRenderHint(QPainter::Antialiasing);
    m_view->setAccessibleName(tr("Histogram chart"));
    m_view->setMinimumHeight(160);
    layout->addWidget(m_view, 1);
    m_info->setWordWrap(true);
    m_info->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_info->setAccessibleName(tr("Histogram range and where it was computed"));
    layout->addWidget(m_info);
    connect(m_bins, &QSpinBox::valueChanged, this, [this] { refresh(); });
    connect(m_log, &QCheckBox::toggled, this, [this] { plot(); });
    clearPreview();
}

QString HistogramPage::message() const { return m_message->text(); }

int HistogramPage::autoBins(int64_t elements) {
    return std::clamp(static_cast<int>(std::ceil(std::sqrt(static_cast<double>(std::max<int64_t>(elements, 0))))), 8, 128);
}

void HistogramPage::clearPreview() {
    m_histogram.reset();
    m_message->setText(tr("The histogram appears once the values are read."));
    m_message->show();
    m_info->clear();
    plot();
}

void HistogramPage::startPreview() {
    m_message->setText(tr("Computing histogram\u2026"));
    m_message->show();
    const int bins = m_bins->value() > 0 ? m_bins->value() : autoBins(tensor()->numElements());
    runPreview([t = tensor(), bins, source = previewSource()] { return computeTensorHistogram(t, bins, source); },
               [this](const HistogramResult& r) { return showResult(r); });
}

bool HistogramPage::showResult(const HistogramResult& result) {
    m_histogram = result.histogram;
    if (!m_histogram) {
        m_message->setText(result.error);
        m_info->clear();
        plot();
        return false;
    }
    const Histogram& h = *m_histogram;
    m_message->setText(h.stringLengths ? tr("Strings: histogram of their byte lengths.") : QString());
    m_message->setVisible(h.stringLengths);
    QStringList parts{tr("%n bin(s) over [%1, %2]", nullptr, static_cast<int>(h.counts.size())).arg(num(h.lo), num(h.hi))};
    if (h.below) parts << tr("%1 below").arg(count(h.below));
    if (h.above) parts << tr("%1 above").arg(count(h.above));
    if (h.nans) parts << tr("%1 NaN not shown").arg(count(h.nans));
    QString on = computedOnText(h.computedOn);
    if (result.fromCache) on += tr(" \u00b7 from the catalog's cache");
    m_info->setText(parts.join(QStringLiteral(" \u00b7 ")) + QLatin1Char('\n') + on);
    plot();
    return true;
}

void HistogramPage::plot() {
    m_chart->removeAllSeries();
    for (QAbstractAxis* a : m_chart->axes()) {
        m_chart->removeAxis(a);
        delete a;
    }
    if (!m_histogram || m_histogram->counts.empty()) return;
    const Histogram& h = *m_histogram;
    const bool log = m_log->isChecked();
    const double floor = log ? kLogFloor : 0.0;
    auto* upper = new QLineSeries;
    auto* lower = new QLineSeries;
    int64_t peak = 0;
    // A step outline: each bin is a flat top from its left to its right edge.
    QList<QPointF> top, bottom;
    top.reserve(static_cast<qsizetype>(h.counts.size()) * 2);
    for (size_t i = 0; i < h.counts.size(); ++i) {
        const double y = h.counts[i] > 0 ? static_cast<double>(h.counts[i]) : floor;
        top << QPointF(h.edges[i], y) << QPointF(h.edges[i + 1], y);
        peak = std::max(peak, h.counts[i]);
    }
    bottom << QPointF(h.edges.front(), floor) << QPointF(h.edges.back(), floor);
    upper->replace(top);
    lower->replace(bottom);
    auto* area = new QAreaSeries(upper, lower);
    // The area series does not own its lines: as its children they go with
    // it when removeAllSeries() deletes it (they leaked on every plot).
    upper->setParent(area);
    lower->setParent(area);
    const QColor fill = palette().color(QPalette::Highlight);
    area->setColor(fill);
    area->setBorderColor(fill.darker(130));
    m_chart->addSeries(area);

    auto* x = new QValueAxis;
    x->setRange(h.edges.front(), h.edges.back());
    x->setLabelFormat(QStringLiteral("%.3g"));
    x->setTitleText(h.stringLengths ? tr("byte length") : tr("value"));
    m_chart->addAxis(x, Qt::AlignBottom);
    // Round ticks read better than ticks at the data's exact min and max,
    // and the axis still ends where the data does.
    new RoundTicks(m_chart, x, 0);
    area->attachAxis(x);
    QAbstractAxis* y = nullptr;
    if (log) {
        auto* ly = new QLogValueAxis;
        ly->setBase(10);
        ly->setLabelFormat(QStringLiteral("%.0f"));
        ly->setRange(kLogFloor, std::max<double>(10.0, static_cast<double>(peak) * 2.0));
        y = ly;
    } else {
        auto* vy = new QValueAxis;
        vy->setRange(0, std::max<double>(1.0, static_cast<double>(peak) * 1.05));
        vy->setLabelFormat(QStringLiteral("%.0f"));
        vy->applyNiceNumbers();
        y = vy;
    }
    y->setTitleText(log ? tr("count (log)") : tr("count"));
    m_chart->addAxis(y, Qt::AlignLeft);
    area->attachAxis(y);
    connect(area, &QAreaSeries::hovered, this, [this](const QPointF& p, bool state) {
        if (state) showBinTip(p.x());
        else QToolTip::hideText();
    });
}

void HistogramPage::showBinTip(double x) {
    if (!m_histogram) return;
    const Histogram& h = *m_histogram;
    const auto it = std::upper_bound(h.edges.begin(), h.edges.end(), x);
    const auto bin = std::clamp<ptrdiff_t>(it - h.edges.begin() - 1, 0, static_cast<ptrdiff_t>(h.counts.size()) - 1);
    const size_t b = static_cast<size_t>(bin);
    const bool last = b + 1 == h.counts.size();
    QToolTip::showText(
        QCursor::pos(),
        tr("[%1, %2%3: %4")
            .arg(num(h.edges[b]), num(h.edges[b + 1]), last ? QStringLiteral("]") : QStringLiteral(")"), count(h.counts[b])),
        m_view);
}

}  // namespace ckpt::ui
