#include "views/pair_heatmap_panel.h"

#include <QLabel>
#include <QLocale>
#include <QScrollArea>
#include <QScrollBar>
#include <QShowEvent>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>

#include "jobs/job_pool.h"
#include "jobs/when_done.h"
#include "views/heatmap_view.h"
#include "views/heatmap_zoom_bar.h"

namespace ckpt::ui {
namespace {

// As in the inspector's heatmap page: enough cells to tell rows apart.
constexpr int kMinThumb = 128, kMaxThumb = 1024;

// The shape the shared selectors slice: both sides' when they agree, the
// one side's when the other lacks the value; none when the shapes differ.
const TensorShape* selectorShape(const PairValues& v) {
    if (v.a && v.b) return v.a->shape == v.b->shape ? &v.a->shape : nullptr;
    if (v.a) return &v.a->shape;
    if (v.b) return &v.b->shape;
    return nullptr;
}

// The compare view's wording: one set of controls drives all three heatmaps.
HeatmapControlsWording controlsWording() {
    HeatmapControlsWording w;
    w.rowAxisName = PairHeatmapPanel::tr("Axis shown as rows in all three heatmaps");
    w.columnAxisName = PairHeatmapPanel::tr("Axis shown as columns in all three heatmaps");
    w.indexName = PairHeatmapPanel::tr("Index along axis %1 in all three heatmaps");
    w.reduceName = PairHeatmapPanel::tr("How axes set to all are reduced in all three heatmaps");
    w.reduceToolTip =
        PairHeatmapPanel::tr("How axes set to all, and blocks pooled into one cell, are reduced (the same for all three)");
    w.colormapLabel = PairHeatmapPanel::tr("C&olormap (A, B):");
    w.colormapName = PairHeatmapPanel::tr("Colormap of the A and B heatmaps");
    w.colormapToolTip = PairHeatmapPanel::tr("A and B share this map and one scale; |A \u2212 B| always uses magma from zero up");
    return w;
}

}  // namespace

PairHeatmapPanel::PairHeatmapPanel(QWidget* parent)
    : QWidget(parent), m_controls(new HeatmapControls(controlsWording(), this)), m_message(new QLabel(this)),
      m_zoomBar(new HeatmapZoomBar(this)) {
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_controls);
    m_message->setWordWrap(true);
    m_message->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_message->setAccessibleName(tr("Compare heatmap status"));
    layout->addWidget(m_message);
    // One zoom for the three: the same cell sits at the same place in each.
    layout->addWidget(m_zoomBar);
    QScrollArea* areas[3] = {};
    const QString names[3] = {tr("A"), tr("B"), tr("|A \u2212 B|")};
    for (int i = 0; i < 3; ++i) {
        m_captions[i] = new QLabel(this);
        m_captions[i]->setTextInteractionFlags(Qt::TextSelectableByMouse);
        m_views[i] = new HeatmapView;
        m_views[i]->setMinimumSize(100, 90);
        m_views[i]->setAccessibleName(tr("Heatmap of %1").arg(names[i]));
        m_views[i]->setToolTip(tr("Arrow keys move the cell read out; Ctrl+wheel zooms all three"));
        m_zoomBar->addView(m_views[i], names[i]);
        layout->addWidget(m_captions[i]);
        // Each at the view's whole minimum, colour bar included: where the
        // three do not fit, the page holding the panel scrolls (squeezed to
        // 48 px, each showed scroll bars and cut its colour bar's numbers).
        areas[i] = HeatmapView::wrapInScrollArea(m_views[i], this);
        layout->addWidget(areas[i], 1);
    }
    // Zoomed, the three also scroll together.
    for (QScrollArea* from : areas)
        for (QScrollArea* to : areas) {
            if (from == to) continue;
            connect(from->horizontalScrollBar(), &QScrollBar::valueChanged, to->horizontalScrollBar(), &QScrollBar::setValue);
            connect(from->verticalScrollBar(), &QScrollBar::valueChanged, to->verticalScrollBar(), &QScrollBar::setValue);
        }
    m_zoomBar->attachShortcuts(this);
    connect(m_controls, &HeatmapControls::changed, this, &PairHeatmapPanel::refresh);
    setValues(nullptr, {}, {});
}

void PairHeatmapPanel::setValues(std::shared_ptr<const PairValues> values, const QString& nameA, const QString& nameB) {
    m_values = std::move(values);
    ++m_generation;
    m_busy = false;
    m_sharedRange.reset();
    m_captions[0]->setText(tr("<b>A</b> %1").arg(nameA.toHtmlEscaped()));
    m_captions[1]->setText(tr("<b>B</b> %1").arg(nameB.toHtmlEscaped()));
    m_captions[2]->setText(tr("<b>|A \u2212 B|</b>"));
    for (HeatmapView* v : m_views) {
        v->setHeatmap(std::nullopt, {}, 0, 0);
        v->setLegend({}, 0, 0);
    }
    const TensorShape* shape = m_values ? selectorShape(*m_values) : nullptr;
    // Same shape as before (the next version of this variable, or the same
    // variable in the next pair): keep the slice the user chose. While the
    // next values load (null) the selectors stay as they are.
    if (m_values) m_controls->setShape(shape);
    m_controls->setAxesShown(m_values != nullptr);
    if (!m_values) {
        m_message->setText(tr("Select a compared tensor to see A, B and where they differ."));
        return;
    }
    refresh();
}

void PairHeatmapPanel::refresh() {
    if (!m_values) return;
    if (!isVisible()) {
        m_stale = true;
        return;
    }
    start();
}

void PairHeatmapPanel::showEvent(QShowEvent* event) {
    QWidget::showEvent(event);
    if (m_stale) start();
}

void PairHeatmapPanel::start() {
    m_stale = false;
    HeatmapRequest request = m_controls->request();
    const qreal dpr = devicePixelRatioF();
    request.maxWidth = std::clamp(static_cast<int>(m_views[0]->width() * dpr), kMinThumb, kMaxThumb);
    request.maxHeight = std::clamp(static_cast<int>(m_views[0]->height() * dpr), kMinThumb, kMaxThumb);
    const quint64 generation = ++m_generation;
    m_busy = true;
    m_message->setText(tr("Drawing heatmaps\u2026"));
    whenDone(this, QtConcurrent::run(jobPool(), [values = m_values, request] { return renderPairHeatmaps(*values, request); }),
             [this, generation](const PairHeatmaps& r) {
                 if (generation != m_generation) return;
                 m_busy = false;
                 showResult(r);
                 emit heatmapsReady();
             });
}

void PairHeatmapPanel::showResult(const PairHeatmaps& r) {
    m_sharedRange = r.sharedRange;
    const HeatmapResult* results[3] = {&r.a, &r.b, &r.diff};
    const std::shared_ptr<const Tensor> tensors[3] = {m_values->a, m_values->b, m_values->absDiff};
    QStringList problems;
    for (int i = 0; i < 3; ++i) {
        const HeatmapResult& h = *results[i];
        if (!h.heatmap) {
            m_views[i]->setHeatmap(std::nullopt, {}, 0, 0);
            m_views[i]->setLegend({}, 0, 0);
            if (!h.error.isEmpty()) problems << h.error;
            continue;
        }
        const auto& dims = tensors[i]->shape.dims;
        const int64_t rows = h.heatmap->rowAxis >= 0 ? dims[static_cast<size_t>(h.heatmap->rowAxis)] : 1;
        const int64_t columns = h.heatmap->colAxis >= 0 ? dims[static_cast<size_t>(h.heatmap->colAxis)] : 1;
        m_views[i]->setHeatmap(*h.heatmap, h.image, rows, columns);
        m_views[i]->setLegend(h.colorbar, h.heatmap->lo, h.heatmap->hi);
    }
    if (!m_values->a) problems << tr("A has no value here: the variable was added.");
    if (!m_values->b) problems << tr("B has no value here: the variable was deleted.");
    if (m_values->a && m_values->b && !m_values->absDiff)
        problems << (m_values->diffError.isEmpty() ? tr("The shapes differ: no |A \u2212 B|; each side shows its default slice.")
                                                   : m_values->diffError);
    if (r.sharedRange)
        problems << tr("A and B share one scale: [%1, %2].")
                        .arg(QLocale().toString(r.sharedRange->first, 'g', 4), QLocale().toString(r.sharedRange->second, 'g', 4));
    m_message->setText(problems.join(QLatin1Char('\n')));
}

}  // namespace ckpt::ui
