#pragma once
// Paints a heatmap thumbnail scaled to the widget with the slice's aspect
// kept (clamped so a long, thin slice stays visible), pixels crisp at any
// device pixel ratio, and a tooltip with the pooled value under the cursor
// and the tensor index range it covers. The legend sits under the image so
// the eye does not travel across empty space to read the scale.

#include <QImage>
#include <QWidget>

#include <optional>

#include "ckpt/preview.h"

namespace ckpt::ui {

class HeatmapView : public QWidget {
    Q_OBJECT
public:
    explicit HeatmapView(QWidget* parent = nullptr);
    // 'rows' x 'columns': the slice's size before pooling.
    void setHeatmap(std::optional<Heatmap> heatmap, QImage image, int64_t rows, int64_t columns);
    // The colormap, low to high, drawn as a legend right under the image.
    void setLegend(QImage colorbar, double lo, double hi);
    const std::optional<Heatmap>& heatmap() const { return m_heatmap; }
    const QImage& image() const { return m_image; }
    // Where the image is drawn, in widget coordinates.
    QRectF imageRect() const;
    // The tooltip text for a widget position; empty outside the image.
    QString valueTextAt(QPointF pos) const;

protected:
    void paintEvent(QPaintEvent* event) override;
    bool event(QEvent* event) override;

private:
    std::optional<Heatmap> m_heatmap;
    QImage m_image;
    int64_t m_rows = 0, m_columns = 0;
    QImage m_colorbar;
    double m_lo = 0, m_hi = 0;
};

}  // namespace ckpt::ui
