#pragma once
// The controls that choose a heatmap: which axis runs down and which across,
// every other axis fixed at an index or reduced, the reduction (mean or
// max |x|) and the colormap. Shared by the inspector's heatmap page and the
// compare view's heatmaps so both slice a tensor the same way; each names
// the controls for what they drive there.

#include <QList>
#include <QString>
#include <QWidget>

#include <optional>
#include <utility>

#include "ckpt/preview.h"

class QComboBox;
class QHBoxLayout;
class QSpinBox;

namespace ckpt::ui {

// Accessible names, tooltips and one label as each user words them; "%1" in
// the index entries is the axis number. An empty entry leaves that name,
// tooltip or label blank.
struct HeatmapControlsWording {
    QString rowAxisName;
    QString columnAxisName;
    QString indexName;
    QString indexToolTip;
    QString reduceName;
    QString reduceToolTip;
    QString colormapLabel;  // with its mnemonic, e.g. "C&olormap:"
    QString colormapName;
    QString colormapToolTip;
};

class HeatmapControls : public QWidget {
    Q_OBJECT
public:
    explicit HeatmapControls(const HeatmapControlsWording& wording, QWidget* parent = nullptr);

    // Fresh selectors for 'shape' showing the engine's default slice (the
    // last two axes, the others reduced). Null or rank < 2: nothing to pick.
    void resetFor(const TensorShape* shape);
    // As resetFor, except that the user's slice is kept where it fits: the
    // same shape keeps all of it, the same rank keeps the axes and every
    // index still inside its axis (the others fall back to reducing).
    void setShape(const TensorShape* shape);
    // False hides the axis selectors (there is nothing to slice just now)
    // without forgetting the slice they hold.
    void setAxesShown(bool shown);
    // The slice, reduction and colormap chosen; the caller adds the size bounds.
    HeatmapRequest request() const;

    QComboBox* rowAxisBox() const { return m_rowAxis; }
    QComboBox* columnAxisBox() const { return m_columnAxis; }
    QComboBox* reduceBox() const { return m_reduce; }
    QComboBox* colormapBox() const { return m_colormap; }
    // Per axis: -1 reduces it, else the fixed index (hidden for the shown axes).
    QList<QSpinBox*> indexBoxes() const { return m_indices; }

signals:
    // The user picked another slice, reduction or colormap.
    void changed();

private:
    bool hasAxesToPick() const { return m_shape && m_shape->rank() >= 2; }
    void applyAxes(bool rowPicked);

    HeatmapControlsWording m_wording;
    std::optional<TensorShape> m_shape;     // the shape the selectors were built for
    std::pair<int, int> m_shownAxes{0, 1};  // (row, column) as last applied
    QWidget* m_axesRow;
    QComboBox* m_rowAxis;
    QComboBox* m_columnAxis;
    QHBoxLayout* m_indexLayout;
    QList<QSpinBox*> m_indices;
    QComboBox* m_reduce;
    QComboBox* m_colormap;
};

}  // namespace ckpt::ui
