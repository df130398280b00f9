#pragma once
// A heatmap of one 2-D slice of the selected tensor, drawn by the engine:
// which axis runs down and which across, every other axis fixed at an index
// or reduced (mean or max |x|), and the colormap (auto: diverging for data
// with both signs).

#include <QList>

#include "ckpt/preview.h"
#include "views/preview_page.h"

class QComboBox;
class QHBoxLayout;
class QLabel;
class QSpinBox;

namespace ckpt::ui {

class HeatmapView;
struct HeatmapResult;

class HeatmapPage : public PreviewPage {
    Q_OBJECT
public:
    explicit HeatmapPage(QWidget* parent = nullptr);
    QString pageTitle() const override { return tr("Heatmap"); }
    HeatmapView* view() const { return m_view; }
    QComboBox* rowAxisBox() const { return m_rowAxis; }
    QComboBox* columnAxisBox() const { return m_columnAxis; }
    QComboBox* reduceBox() const { return m_reduce; }
    QComboBox* colormapBox() const { return m_colormap; }
    // Per axis: -1 reduces it, else the fixed index (hidden for the shown axes).
    QList<QSpinBox*> indexBoxes() const { return m_indices; }
    // The request behind the heatmap shown (or being computed).
    const HeatmapRequest& lastRequest() const { return m_request; }
    QString message() const;

protected:
    void startPreview() override;
    void clearPreview() override;

private:
    void rebuildSelectors();
    void applyAxes();
    bool showResult(const HeatmapResult& result);

    HeatmapRequest m_request;
    const Tensor* m_selectorsFor = nullptr;  // the tensor the selectors were built for
    QWidget* m_axes;
    QComboBox* m_rowAxis;
    QComboBox* m_columnAxis;
    QHBoxLayout* m_indexLayout;
    QList<QSpinBox*> m_indices;
    QComboBox* m_reduce;
    QComboBox* m_colormap;
    QLabel* m_message;
    HeatmapView* m_view;
    QLabel* m_info;
};

}  // namespace ckpt::ui
