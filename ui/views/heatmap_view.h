#pragma once
// Paints a heatmap thumbnail with the slice's aspect kept (clamped so a
// long, thin slice stays visible), pixels crisp at any device pixel ratio,
// and a legend right under the image so the eye does not travel across
// empty space to read the scale.
//
// Fitted to the widget by default; zoomed (Ctrl+wheel here, the actions of
// HeatmapZoomBar) it takes the size the zoom asks for and scrolls in its
// QScrollArea. The value and tensor indices under the mouse, or under the
// keyboard's cell cursor (arrow keys), are reported for a status line and
// in a tooltip. A zoom survives a new heatmap of the same slice size, so
// stepping through checkpoints of one run keeps the view.

#include <QImage>
#include <QPoint>
#include <QWidget>

#include <optional>

#include "ckpt/preview.h"

class QScrollArea;

namespace ckpt::ui {

class HeatmapView : public QWidget {
    Q_OBJECT
public:
    explicit HeatmapView(QWidget* parent = nullptr);
    // 'rows' x 'columns': the slice's size before pooling. A slice of
    // another size than the last one shown starts fitted.
    void setHeatmap(std::optional<Heatmap> heatmap, QImage image, int64_t rows, int64_t columns);
    // The colormap, low to high, drawn as a legend right under the image.
    void setLegend(QImage colorbar, double lo, double hi);
    const std::optional<Heatmap>& heatmap() const { return m_heatmap; }
    const QImage& image() const { return m_image; }
    // Where the image is drawn, in widget coordinates.
    QRectF imageRect() const;
    // The status text for a widget position; empty outside the image.
    QString valueTextAt(QPointF pos) const;
    // The heatmap cell (x across, y down) at a widget position, if any.
    std::optional<QPoint> cellAt(QPointF pos) const;
    // "row r, column c: value" for a cell of the heatmap shown.
    QString cellText(QPoint cell) const;
    // What the status line shows now: the hovered cell, else the keyboard's.
    QString cursorText() const { return m_cursorText; }
    // The keyboard's cell, moved with the arrow keys while focused.
    std::optional<QPoint> keyboardCell() const { return m_keyCell; }

    // Scale in logical pixels per tensor element; empty: fitted to the widget.
    std::optional<double> zoom() const { return m_zoom; }
    // The scale the image is drawn at now, fitted or zoomed.
    double effectiveZoom() const;
    void setZoom(std::optional<double> zoom);
    void zoomIn();
    void zoomOut();
    void fitToWindow() { setZoom(std::nullopt); }
    // One tensor element per device pixel.
    void actualSize();
    // The scroll area this view sits in, when wrapped by wrapInScrollArea().
    QScrollArea* scrollArea() const;

    // Wraps a view into a frameless, resizable scroll area for zooming.
    static QScrollArea* wrapInScrollArea(HeatmapView* view, QWidget* parent);

signals:
    // The text for the status line changed (empty: nothing under the cursor).
    void cursorTextChanged(const QString& text);
    void zoomChanged();

protected:
    void paintEvent(QPaintEvent* event) override;
    bool event(QEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void leaveEvent(QEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    void focusInEvent(QFocusEvent* event) override;
    void focusOutEvent(QFocusEvent* event) override;

private:
    // The slice's size in tensor elements after the aspect clamp.
    QSizeF naturalSize() const;
    QRectF fittedRect() const;
    void applyZoom(std::optional<double> zoom, std::optional<QPointF> anchor);
    void setCursorText(const QString& text);
    void moveKeyboardCell(int dx, int dy);

    std::optional<Heatmap> m_heatmap;
    QImage m_image;
    int64_t m_rows = 0, m_columns = 0;
    QImage m_colorbar;
    double m_lo = 0, m_hi = 0;
    std::optional<double> m_zoom;
    QSize m_fitMinimum;  // the minimum size while fitted
    std::optional<QPoint> m_keyCell;
    QString m_cursorText;
};

}  // namespace ckpt::ui
