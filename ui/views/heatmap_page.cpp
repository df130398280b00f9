#include "views/heatmap_page.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QSpinBox>
#include <QVBoxLayout>

#include <algorithm>
#include <limits>

#include "jobs/preview_jobs.h"
#include "views/heatmap_view.h"

namespace ckpt::ui {
namespace {

// Thumbnail size bounds in device pixels: enough to tell neighbouring rows
// apart in a kernel, small enough to pool in milliseconds.
constexpr int kMinThumb = 256, kMaxThumb = 1024;

}  // namespace

HeatmapPage::HeatmapPage(QWidget* parent)
    : PreviewPage(parent), m_axes(new QWidget(this)), m_rowAxis(new QComboBox(m_axes)), m_columnAxis(new QComboBox(m_axes)),
      m_indexLayout(new QHBoxLayout), m_reduce(new QComboBox(this)), m_colormap(new QComboBox(this)), m_message(new QLabel(this)),
      m_view(new HeatmapView(this)), m_info(new QLabel(this)) {
    auto* layout = new QVBoxLayout(this);
    auto* axes = new QHBoxLayout(m_axes);
    axes->setContentsMargins(0, 0, 0, 0);
    axes->addWidget(new QLabel(tr("Rows:"), m_axes));
    axes->addWidget(m_rowAxis);
    axes->addWidget(new QLabel(tr("Columns:"), m_axes));
    axes->addWidget(m_columnAxis);
    axes->addLayout(m_indexLayout);
    axes->addStretch();
    m_rowAxis->setAccessibleName(tr("Heatmap axis shown as rows"));
    m_columnAxis->setAccessibleName(tr("Heatmap axis shown as columns"));
    layout->addWidget(m_axes);

    auto* look = new QHBoxLayout;
    auto* reduceLabel = new QLabel(tr("&Reduce:"), this);
    reduceLabel->setBuddy(m_reduce);
    look->addWidget(reduceLabel);
    m_reduce->addItem(tr("mean"), static_cast<int>(HeatmapReduce::Mean));
    m_reduce->addItem(tr("max |x|"), static_cast<int>(HeatmapReduce::MaxAbs));
    m_reduce->setAccessibleName(tr("How axes set to all, and pooled cells, are reduced"));
    m_reduce->setToolTip(
        tr("Axes not shown and not fixed at an index, and blocks pooled into one cell of a large "
           "slice, are reduced: the mean of their finite values, or the value with the largest magnitude"));
    look->addWidget(m_reduce);
    auto* mapLabel = new QLabel(tr("C&olormap:"), this);
    mapLabel->setBuddy(m_colormap);
    look->addWidget(mapLabel);
    for (const std::string& name : heatmapColormapNames()) m_colormap->addItem(QString::fromStdString(name));
    m_colormap->setAccessibleName(tr("Heatmap colormap"));
    m_colormap->setToolTip(tr("auto: a diverging map centred on zero for data with both signs, else viridis"));
    look->addWidget(m_colormap);
    look->addStretch();
    layout->addLayout(look);

    m_message->setWordWrap(true);
    m_message->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_message->setAccessibleName(tr("Heatmap status"));
    layout->addWidget(m_message);
    m_info->setWordWrap(true);
    m_info->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_info->setAccessibleName(tr("Heatmap slice and where it was computed"));
    layout->addWidget(m_info);
    m_view->setAccessibleName(tr("Heatmap image"));
    layout->addWidget(m_view, 1);

    connect(m_rowAxis, &QComboBox::activated, this, &HeatmapPage::applyAxes);
    connect(m_columnAxis, &QComboBox::activated, this, &HeatmapPage::applyAxes);
    connect(m_reduce, &QComboBox::activated, this, [this] { refresh(); });
    connect(m_colormap, &QComboBox::activated, this, [this] { refresh(); });
    clearPreview();
}

QString HeatmapPage::message() const { return m_message->text(); }

void HeatmapPage::clearPreview() {
    m_selectorsFor = nullptr;
    m_message->setText(tr("The heatmap appears once the values are read."));
    m_message->show();
    m_view->setHeatmap(std::nullopt, {}, 0, 0);
    m_view->setLegend({}, 0, 0);
    m_info->clear();
    rebuildSelectors();
}

void HeatmapPage::rebuildSelectors() {
    qDeleteAll(m_indices);
    m_indices.clear();
    m_rowAxis->clear();
    m_columnAxis->clear();
    const int rank = tensor() ? tensor()->shape.rank() : 0;
    m_axes->setVisible(rank >= 2);
    if (rank < 2) return;
    const auto& dims = tensor()->shape.dims;
    for (int a = 0; a < rank; ++a) {
        const QString label = tr("axis %1 (%2)").arg(a).arg(dims[static_cast<size_t>(a)]);
        m_rowAxis->addItem(label, a);
        m_columnAxis->addItem(label, a);
    }
    // The engine's default: the last two axes.
    m_rowAxis->setCurrentIndex(rank - 2);
    m_columnAxis->setCurrentIndex(rank - 1);
    for (int a = 0; a < rank; ++a) {
        auto* box = new QSpinBox(m_axes);
        box->setPrefix(tr("axis %1: ").arg(a));
        // -1 is "all": the axis is reduced rather than fixed.
        box->setRange(-1, static_cast<int>(std::min<int64_t>(dims[static_cast<size_t>(a)] - 1, std::numeric_limits<int>::max())));
        box->setSpecialValueText(tr("axis %1: all").arg(a));
        box->setValue(-1);
        box->setKeyboardTracking(false);
        box->setAccessibleName(tr("Heatmap index along axis %1").arg(a));
        box->setToolTip(tr("Fix axis %1 at an index, or reduce all of it").arg(a));
        box->setVisible(a < rank - 2);
        connect(box, &QSpinBox::valueChanged, this, [this] { refresh(); });
        m_indexLayout->addWidget(box);
        m_indices.append(box);
    }
}

void HeatmapPage::applyAxes() {
    int row = m_rowAxis->currentData().toInt();
    int column = m_columnAxis->currentData().toInt();
    if (row == column) {
        // As in the value grid: picking the other shown axis swaps them.
        if (sender() == m_rowAxis) column = m_request.axes ? m_request.axes->first : m_columnAxis->count() - 2;
        else row = m_request.axes ? m_request.axes->second : m_rowAxis->count() - 1;
    }
    m_rowAxis->setCurrentIndex(row);
    m_columnAxis->setCurrentIndex(column);
    for (int a = 0; a < m_indices.size(); ++a) m_indices[a]->setVisible(a != row && a != column);
    refresh();
}

void HeatmapPage::startPreview() {
    if (m_selectorsFor != tensor().get()) {
        m_selectorsFor = tensor().get();
        rebuildSelectors();
    }
    HeatmapRequest request;
    const int rank = tensor()->shape.rank();
    if (rank >= 2) {
        const int row = m_rowAxis->currentData().toInt(), column = m_columnAxis->currentData().toInt();
        request.axes = std::make_pair(row, column);
        for (int a = 0; a < m_indices.size(); ++a)
            if (a != row && a != column && m_indices[a]->value() >= 0) request.fixedIndices[a] = m_indices[a]->value();
    }
    request.reduce = static_cast<HeatmapReduce>(m_reduce->currentData().toInt());
    request.colormap = m_colormap->currentText().toStdString();
    const qreal dpr = devicePixelRatioF();
    request.maxWidth = std::clamp(static_cast<int>(m_view->width() * dpr), kMinThumb, kMaxThumb);
    request.maxHeight = std::clamp(static_cast<int>(m_view->height() * dpr), kMinThumb, kMaxThumb);
    m_request = request;
    m_message->setText(tr("Drawing heatmap\u2026"));
    m_message->show();
    runPreview([t = tensor(), request] { return renderTensorHeatmap(t, request); },
               [this](const HeatmapResult& r) { return showResult(r); });
}

bool HeatmapPage::showResult(const HeatmapResult& result) {
    if (!result.heatmap) {
        m_message->setText(result.error);
        m_view->setHeatmap(std::nullopt, {}, 0, 0);
        m_view->setLegend({}, 0, 0);
        m_info->clear();
        return false;
    }
    const Heatmap& h = *result.heatmap;
    const auto& dims = tensor()->shape.dims;
    const int64_t rows = h.rowAxis >= 0 ? dims[static_cast<size_t>(h.rowAxis)] : 1;
    const int64_t columns = h.colAxis >= 0 ? dims[static_cast<size_t>(h.colAxis)] : 1;
    m_message->clear();
    m_message->hide();
    m_view->setHeatmap(h, result.image, rows, columns);
    m_view->setLegend(result.colorbar, h.lo, h.hi);
    QString slice = tr("%1 \u00d7 %2 slice").arg(rows).arg(columns);
    if (h.width < columns || h.height < rows)
        // Pooling reduces each cell's block the same way as the other axes.
        slice += tr(", pooled to %1 \u00d7 %2 cells by %3").arg(h.height).arg(h.width).arg(m_reduce->currentText());
    const QString map = m_colormap->currentIndex() == 0 ? tr("colormap %1 (auto)").arg(QString::fromStdString(h.colormap))
                                                        : tr("colormap %1").arg(QString::fromStdString(h.colormap));
    m_info->setText(slice + QStringLiteral(" \u00b7 ") + map + QLatin1Char('\n') + computedOnText(h.computedOn));
    return true;
}

}  // namespace ckpt::ui
