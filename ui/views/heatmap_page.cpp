#include "views/heatmap_page.h"

#include <QComboBox>
#include <QLabel>
#include <QVBoxLayout>

#include <algorithm>

#include "jobs/preview_jobs.h"
#include "views/heatmap_view.h"

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

}  // namespace

HeatmapPage::HeatmapPage(QWidget* parent)
    : PreviewPage(parent), m_controls(new HeatmapControls(controlsWording(), this)), m_message(new QLabel(this)),
      m_view(new HeatmapView(this)), m_info(new QLabel(this)) {
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
    layout->addWidget(m_view, 1);

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
    m_controls->resetFor(tensor() ? &tensor()->shape : nullptr);
}

void HeatmapPage::startPreview() {
    // A new tensor starts from the default slice, even one of the same shape.
    if (m_selectorsFor != tensor().get()) {
        m_selectorsFor = tensor().get();
        m_controls->resetFor(&tensor()->shape);
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
