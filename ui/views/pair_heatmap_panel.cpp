#include "views/pair_heatmap_panel.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QShowEvent>
#include <QSpinBox>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>
#include <limits>

#include "jobs/job_pool.h"
#include "jobs/when_done.h"
#include "views/heatmap_view.h"

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

}  // namespace

PairHeatmapPanel::PairHeatmapPanel(QWidget* parent)
    : QWidget(parent), m_axes(new QWidget(this)), m_rowAxis(new QComboBox(m_axes)), m_columnAxis(new QComboBox(m_axes)),
      m_indexLayout(new QHBoxLayout), m_reduce(new QComboBox(this)), m_colormap(new QComboBox(this)),
      m_message(new QLabel(this)) {
    auto* layout = new QVBoxLayout(this);
    auto* axes = new QHBoxLayout(m_axes);
    axes->setContentsMargins(0, 0, 0, 0);
    axes->addWidget(new QLabel(tr("Rows:"), m_axes));
    axes->addWidget(m_rowAxis);
    axes->addWidget(new QLabel(tr("Columns:"), m_axes));
    axes->addWidget(m_columnAxis);
    axes->addLayout(m_indexLayout);
    axes->addStretch();
    m_rowAxis->setAccessibleName(tr("Axis shown as rows in all three heatmaps"));
    m_columnAxis->setAccessibleName(tr("Axis shown as columns in all three heatmaps"));
    layout->addWidget(m_axes);
    auto* look = new QHBoxLayout;
    auto* reduceLabel = new QLabel(tr("&Reduce:"), this);
    reduceLabel->setBuddy(m_reduce);
    look->addWidget(reduceLabel);
    m_reduce->addItem(tr("mean"), static_cast<int>(HeatmapReduce::Mean));
    m_reduce->addItem(tr("max |x|"), static_cast<int>(HeatmapReduce::MaxAbs));
    m_reduce->setToolTip(tr("How axes set to all, and blocks pooled into one cell, are reduced (the same for all three)"));
    look->addWidget(m_reduce);
    auto* mapLabel = new QLabel(tr("C&olormap (A, B):"), this);
    mapLabel->setBuddy(m_colormap);
    look->addWidget(mapLabel);
    for (const std::string& name : heatmapColormapNames()) m_colormap->addItem(QString::fromStdString(name));
    m_colormap->setToolTip(tr("A and B share this map and one scale; |A \u2212 B| always uses magma from zero up"));
    look->addWidget(m_colormap);
    look->addStretch();
    layout->addLayout(look);
    m_message->setWordWrap(true);
    m_message->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_message->setAccessibleName(tr("Compare heatmap status"));
    layout->addWidget(m_message);
    for (int i = 0; i < 3; ++i) {
        m_captions[i] = new QLabel(this);
        m_captions[i]->setTextInteractionFlags(Qt::TextSelectableByMouse);
        m_views[i] = new HeatmapView(this);
        m_views[i]->setMinimumSize(100, 90);
        layout->addWidget(m_captions[i]);
        layout->addWidget(m_views[i], 1);
    }
    m_views[0]->setAccessibleName(tr("Heatmap of A"));
    m_views[1]->setAccessibleName(tr("Heatmap of B"));
    m_views[2]->setAccessibleName(tr("Heatmap of |A \u2212 B|"));
    connect(m_rowAxis, &QComboBox::activated, this, &PairHeatmapPanel::applyAxes);
    connect(m_columnAxis, &QComboBox::activated, this, &PairHeatmapPanel::applyAxes);
    connect(m_reduce, &QComboBox::activated, this, &PairHeatmapPanel::refresh);
    connect(m_colormap, &QComboBox::activated, this, &PairHeatmapPanel::refresh);
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
    if (m_values && (!shape || !m_selectorShape || !(*shape == *m_selectorShape))) rebuildSelectors(shape);
    m_axes->setVisible(m_values && m_selectorShape && m_selectorShape->rank() >= 2);
    if (!m_values) {
        m_message->setText(tr("Select a compared tensor to see A, B and where they differ."));
        return;
    }
    refresh();
}

void PairHeatmapPanel::rebuildSelectors(const TensorShape* shape) {
    qDeleteAll(m_indices);
    m_indices.clear();
    m_rowAxis->clear();
    m_columnAxis->clear();
    m_selectorShape = shape ? std::optional<TensorShape>(*shape) : std::nullopt;
    const int rank = shape ? shape->rank() : 0;
    m_axes->setVisible(rank >= 2);
    if (rank < 2) return;
    const auto& dims = shape->dims;
    for (int a = 0; a < rank; ++a) {
        const QString label = tr("axis %1 (%2)").arg(a).arg(dims[static_cast<size_t>(a)]);
        m_rowAxis->addItem(label, a);
        m_columnAxis->addItem(label, a);
    }
    m_rowAxis->setCurrentIndex(rank - 2);
    m_columnAxis->setCurrentIndex(rank - 1);
    m_shownAxes = {rank - 2, rank - 1};
    for (int a = 0; a < rank; ++a) {
        auto* box = new QSpinBox(m_axes);
        box->setPrefix(tr("axis %1: ").arg(a));
        box->setRange(-1, static_cast<int>(std::min<int64_t>(dims[static_cast<size_t>(a)] - 1, std::numeric_limits<int>::max())));
        box->setSpecialValueText(tr("axis %1: all").arg(a));  // -1: reduce the axis
        box->setValue(-1);
        box->setKeyboardTracking(false);
        box->setAccessibleName(tr("Index along axis %1 in all three heatmaps").arg(a));
        box->setVisible(a < rank - 2);
        connect(box, &QSpinBox::valueChanged, this, &PairHeatmapPanel::refresh);
        m_indexLayout->addWidget(box);
        m_indices.append(box);
    }
}

void PairHeatmapPanel::applyAxes() {
    int row = m_rowAxis->currentData().toInt();
    int column = m_columnAxis->currentData().toInt();
    if (row == column) {  // picking the other shown axis swaps them
        if (sender() == m_rowAxis) column = m_shownAxes.first;
        else row = m_shownAxes.second;
    }
    m_shownAxes = {row, column};
    m_rowAxis->setCurrentIndex(row);
    m_columnAxis->setCurrentIndex(column);
    for (int a = 0; a < m_indices.size(); ++a) m_indices[a]->setVisible(a != row && a != column);
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
    HeatmapRequest request;
    if (m_selectorShape && m_selectorShape->rank() >= 2) {
        const int row = m_rowAxis->currentData().toInt(), column = m_columnAxis->currentData().toInt();
        request.axes = std::make_pair(row, column);
        for (int a = 0; a < m_indices.size(); ++a)
            if (a != row && a != column && m_indices[a]->value() >= 0) request.fixedIndices[a] = m_indices[a]->value();
    }
    request.reduce = static_cast<HeatmapReduce>(m_reduce->currentData().toInt());
    request.colormap = m_colormap->currentText().toStdString();
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
