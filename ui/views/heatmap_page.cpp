#include "views/heatmap_page.h"

#include <QComboBox>
#include <QDir>
#include <QFileInfo>
#include <QLabel>
#include <QScrollArea>
#include <QVBoxLayout>

#include <algorithm>

#include "jobs/preview_jobs.h"
#include "views/heatmap_view.h"
#include "views/heatmap_zoom_bar.h"

namespace ckpt::ui {
namespace {

// Thumbnail size bounds in device pixels: enough to tell neighbouring rows
// apart in a kernel, small enough to pool in milliseconds.
constexpr int kMinThumb = 256, kMaxThumb = 1024;

// The inspector's wording: the controls drive this page's one heatmap.
HeatmapControlsWording controlsWording() {
    HeatmapControlsWording w;
    w.rowAxisName = HeatmapPage::tr("Heatmap axis shown as rows");
    w.columnAxisName = HeatmapPage::tr("Heatmap axis shown as columns");
    w.indexName = HeatmapPage::tr("Heatmap index along axis %1");
    w.indexToolTip = HeatmapPage::tr("Fix axis %1 at an index, or reduce all of it");
    w.reduceName = HeatmapPage::tr("How axes set to all, and pooled cells, are reduced");
    w.reduceToolTip = HeatmapPage::tr(
        "Axes not shown and not fixed at an index, and blocks pooled into one cell of a large "
        "slice, are reduced: the mean of their finite values, or the value with the largest magnitude");
    w.colormapLabel = HeatmapPage::tr("C&olormap:");
    w.colormapName = HeatmapPage::tr("Heatmap colormap");
    w.colormapToolTip = HeatmapPage::tr("auto: a diverging map centred on zero for data with both signs, else viridis");
    return w;
}

// The variable's path within its run (the directory of its checkpoint):
// the same key in another checkpoint of the run keeps the slice and zoom.
// Empty when the selection names no checkpoint: it never matches.
QString sliceKey(const TensorSelection& selection) {
    if (!selection.snapshot || !selection.snapshot->checkpoint || selection.path.isEmpty()) return {};
    const QString prefix = QString::fromStdString(selection.snapshot->checkpoint->prefix());
    return QFileInfo(prefix).absoluteDir().absolutePath() + QLatin1Char('\n') + selection.path;
}

}  // namespace

HeatmapPage::HeatmapPage(QWidget* parent)
    : PreviewPage(parent), m_controls(new HeatmapControls(controlsWording(), this)), m_message(new QLabel(this)),
      m_zoomBar(new HeatmapZoomBar(this)), m_view(new HeatmapView), m_info(new QLabel(this)) {
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_controls);

    m_message->setWordWrap(true);
    m_message->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_message->setAccessibleName(tr("Heatmap status"));
    layout->addWidget(m_message);
    m_info->setWordWrap(true);
    m_info->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_info->setAccessibleName(tr("Heatmap slice and where it was computed"));
    layout->addWidget(m_info);
    m_view->setAccessibleName(tr("Heatmap image"));
    m_view->setToolTip(tr("Arrow keys move the cell read out; Ctrl+wheel zooms"));
    m_zoomBar->addView(m_view);
    m_zoomBar->attachShortcuts(this);
    layout->addWidget(m_zoomBar);
    layout->addWidget(HeatmapView::wrapInScrollArea(m_view, this), 1);

    connect(m_controls, &HeatmapControls::changed, this, [this] { refresh(); });
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
    // Hidden, not forgotten: the next values may be this variable's in
    // another checkpoint of the run.
    m_controls->setAxesShown(false);
}

void HeatmapPage::startPreview() {
    if (m_selectorsFor != tensor().get()) {
        m_selectorsFor = tensor().get();
        const QString key = sliceKey(selection());
        if (!key.isEmpty() && key == m_sliceFor) {
            m_controls->setShape(&tensor()->shape);
            m_controls->setAxesShown(true);
        } else {
            // Another variable starts from the default slice, fitted, even
            // one of the same shape.
            m_controls->resetFor(&tensor()->shape);
            m_view->fitToWindow();
        }
        m_sliceFor = key;
    }
    HeatmapRequest request = m_controls->request();
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
        slice += tr(", pooled to %1 \u00d7 %2 cells by %3").arg(h.height).arg(h.width).arg(reduceBox()->currentText());
    const QString map = colormapBox()->currentIndex() == 0 ? tr("colormap %1 (auto)").arg(QString::fromStdString(h.colormap))
                                                           : tr("colormap %1").arg(QString::fromStdString(h.colormap));
    m_info->setText(slice + QStringLiteral(" \u00b7 ") + map + QLatin1Char('\n') + computedOnText(h.computedOn));
    return true;
}

}  // namespace ckpt::ui
