#pragma once
// A heatmap of one 2-D slice of the selected tensor, drawn by the engine:
// which axis runs down and which across, every other axis fixed at an index
// or reduced (mean or max |x|), and the colormap (auto: diverging for data
// with both signs). Zoomed and read cell by cell through HeatmapZoomBar.
// The same variable in another checkpoint of the same directory (one run)
// keeps the slice and zoom where they still fit; another variable starts
// from the default slice, fitted.

#include <QList>

#include "ckpt/preview.h"
#include "views/heatmap_controls.h"
#include "views/preview_page.h"

class QComboBox;
class QLabel;
class QSpinBox;

namespace ckpt::ui {

class HeatmapView;
class HeatmapZoomBar;
struct HeatmapResult;

class HeatmapPage : public PreviewPage {
    Q_OBJECT
public:
    explicit HeatmapPage(QWidget* parent = nullptr);
    QString pageTitle() const override { return tr("Heatmap"); }
    HeatmapView* view() const { return m_view; }
    HeatmapZoomBar* zoomBar() const { return m_zoomBar; }
    QComboBox* rowAxisBox() const { return m_controls->rowAxisBox(); }
    QComboBox* columnAxisBox() const { return m_controls->columnAxisBox(); }
    QComboBox* reduceBox() const { return m_controls->reduceBox(); }
    QComboBox* colormapBox() const { return m_controls->colormapBox(); }
    // Per axis: -1 reduces it, else the fixed index (hidden for the shown axes).
    QList<QSpinBox*> indexBoxes() const { return m_controls->indexBoxes(); }
    // The request behind the heatmap shown (or being computed).
    const HeatmapRequest& lastRequest() const { return m_request; }
    QString message() const;

protected:
    void startPreview() override;
    void clearPreview() override;

private:
    bool showResult(const HeatmapResult& result);

    HeatmapRequest m_request;
    const Tensor* m_selectorsFor = nullptr;  // the tensor the selectors were built for
    QString m_sliceFor;                      // its run and path (sliceKey)
    HeatmapControls* m_controls;
    QLabel* m_message;
    HeatmapZoomBar* m_zoomBar;
    HeatmapView* m_view;
    QLabel* m_info;
};

}  // namespace ckpt::ui
