#include "views/pair_histogram_panel.h"

#include <QChart>
#include <QChartView>
#include <QCursor>
#include <QHBoxLayout>
#include <QLabel>
#include <QLegend>
#include <QLineSeries>
#include <QLocale>
#include <QShowEvent>
#include <QSpinBox>
#include <QToolTip>
#include <QValueAxis>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>

#include "jobs/job_pool.h"
#include "jobs/when_done.h"
#include "views/histogram_page.h"

namespace ckpt::ui {
namespace {

// Distinguishable for common colour-vision deficiencies (Okabe–Ito blue
// and vermillion); the legend names each side too.
const QColor kColourA(0x00, 0x72, 0xb2);
const QColor kColourB(0xd5, 0x5e, 0x00);

QLineSeries* stepOutline(const Histogram& h) {
    auto* s = new QLineSeries;
    QList<QPointF> pts;
    pts << QPointF(h.edges.front(), 0);
    for (size_t i = 0; i < h.counts.size(); ++i) {
        const auto y = static_cast<double>(h.counts[i]);
        pts << QPointF(h.edges[i], y) << QPointF(h.edges[i + 1], y);
    }
    pts << QPointF(h.edges.back(), 0);
    s->replace(pts);
    return s;
}

QString num(double v) { return QLocale().toString(v, 'g', 6); }

}  // namespace

PairHistogramPanel::PairHistogramPanel(QWidget* parent)
    : QWidget(parent), m_bins(new QSpinBox(this)), m_message(new QLabel(this)), m_chart(new QChart),
      m_view(new QChartView(m_chart, this)) {
    auto* layout = new QVBoxLayout(this);
    auto* controls = new QHBoxLayout;
    auto* binsLabel = new QLabel(tr("&Bins:"), this);
    binsLabel->setBuddy(m_bins);
    controls->addWidget(binsLabel);
    m_bins->setRange(0, kMaxHistogramBins);
    m_bins->setSpecialValueText(tr("auto"));
    m_bins->setKeyboardTracking(false);
    m_bins->setToolTip(tr("Equal-width bins over the finite values of A and B together"));
    controls->addWidget(m_bins);
    controls->addStretch();
    layout->addLayout(controls);
    m_message->setWordWrap(true);
    m_message->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_message);
    m_chart->setMargins(QMargins(4, 4, 4, 4));
    m_chart->setBackgroundRoundness(0);
    m_chart->legend()->setAlignment(Qt::AlignTop);
    m_view->setRenderHint(QPainter::Antialiasing);
    m_view->setAccessibleName(tr("Histograms of A and B overlaid"));
    m_view->setMinimumHeight(180);
    layout->addWidget(m_view, 1);
    connect(m_bins, &QSpinBox::valueChanged, this, &PairHistogramPanel::refresh);
    setValues(nullptr, {}, {});
}

void PairHistogramPanel::setValues(std::shared_ptr<const PairValues> values, const QString& nameA, const QString& nameB) {
    m_values = std::move(values);
    m_nameA = nameA;
    m_nameB = nameB;
    ++m_generation;
    m_busy = false;
    m_a.reset();
    m_b.reset();
    plot();
    if (!m_values) {
        m_message->setText(tr("Select a compared tensor to overlay the histograms of A and B."));
        return;
    }
    refresh();
}

void PairHistogramPanel::refresh() {
    if (!m_values) return;
    if (!isVisible()) {
        m_stale = true;
        return;
    }
    start();
}

void PairHistogramPanel::showEvent(QShowEvent* event) {
    QWidget::showEvent(event);
    if (m_stale) start();
}

void PairHistogramPanel::start() {
    m_stale = false;
    int64_t elements = 0;
    for (const auto& t : {m_values->a, m_values->b})
        if (t) elements = std::max(elements, t->numElements());
    const int bins = m_bins->value() > 0 ? m_bins->value() : HistogramPage::autoBins(elements);
    const quint64 generation = ++m_generation;
    m_busy = true;
    m_message->setText(tr("Computing histograms\u2026"));
    whenDone(this, QtConcurrent::run(jobPool(), [values = m_values, bins] { return computePairHistograms(*values, bins); }),
             [this, generation](const PairHistograms& r) {
                 if (generation != m_generation) return;
                 m_busy = false;
                 m_a = r.a;
                 m_b = r.b;
                 QStringList info;
                 if (!r.error.isEmpty()) info << r.error;
                 const Histogram* any = m_a ? &*m_a : m_b ? &*m_b : nullptr;
                 if (any)
                     info << tr("%n bin(s) over [%1, %2], the same for A and B", nullptr, static_cast<int>(any->counts.size()))
                                 .arg(num(any->lo), num(any->hi));
                 for (const auto& [h, side] : {std::pair{&m_a, QStringLiteral("A")}, std::pair{&m_b, QStringLiteral("B")}})
                     if (*h && (*h)->nans) info << tr("%1: %2 NaN not shown").arg(side).arg((*h)->nans);
                 m_message->setText(info.join(QStringLiteral(" \u00b7 ")));
                 plot();
                 emit histogramsReady();
             });
}

void PairHistogramPanel::plot() {
    m_chart->removeAllSeries();
    for (QAbstractAxis* a : m_chart->axes()) {
        m_chart->removeAxis(a);
        delete a;
    }
    const Histogram* any = m_a ? &*m_a : m_b ? &*m_b : nullptr;
    if (!any || any->counts.empty()) return;
    auto* x = new QValueAxis;
    x->setRange(any->edges.front(), any->edges.back());
    x->setLabelFormat(QStringLiteral("%.3g"));
    x->setTitleText(tr("value"));
    auto* y = new QValueAxis;
    int64_t peak = 1;
    for (const auto* h : {&m_a, &m_b})
        if (*h)
            for (int64_t c : (*h)->counts) peak = std::max(peak, c);
    y->setRange(0, static_cast<double>(peak) * 1.05);
    y->setLabelFormat(QStringLiteral("%.0f"));
    y->applyNiceNumbers();
    y->setTitleText(tr("count"));
    m_chart->addAxis(x, Qt::AlignBottom);
    m_chart->addAxis(y, Qt::AlignLeft);
    const struct {
        const std::optional<Histogram>* h;
        QString name;
        QColor colour;
        Qt::PenStyle style;
    } sides[] = {{&m_a, tr("A %1").arg(m_nameA), kColourA, Qt::SolidLine},
                 {&m_b, tr("B %1").arg(m_nameB), kColourB, Qt::DashLine}};
    for (const auto& side : sides) {
        if (!*side.h) continue;
        QLineSeries* s = stepOutline(**side.h);
        s->setName(side.name);
        // Solid and dashed: the two outlines stay apart where they overlap, in any colours.
        QPen pen(side.colour, 2, side.style);
        s->setPen(pen);
        m_chart->addSeries(s);
        s->attachAxis(x);
        s->attachAxis(y);
        connect(s, &QLineSeries::hovered, this, [this](const QPointF& p, bool state) {
            if (state) showBinTip(p.x());
            else QToolTip::hideText();
        });
    }
}

void PairHistogramPanel::showBinTip(double x) {
    const Histogram* any = m_a ? &*m_a : m_b ? &*m_b : nullptr;
    if (!any) return;
    const auto it = std::upper_bound(any->edges.begin(), any->edges.end(), x);
    const auto b = static_cast<size_t>(
        std::clamp<ptrdiff_t>(it - any->edges.begin() - 1, 0, static_cast<ptrdiff_t>(any->counts.size()) - 1));
    QStringList lines{tr("[%1, %2]").arg(num(any->edges[b]), num(any->edges[b + 1]))};
    if (m_a) lines << tr("A: %1").arg(m_a->counts[b]);
    if (m_b) lines << tr("B: %1").arg(m_b->counts[b]);
    QToolTip::showText(QCursor::pos(), lines.join(QLatin1Char('\n')), m_view);
}

}  // namespace ckpt::ui
