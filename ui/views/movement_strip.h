#pragma once
// The run-level "what moved" chart: one row per variable, one column per
// checkpoint, each cell coloured by log10 of how far the variable moved
// since the previous checkpoint (drawn by the engine, jobs/history_jobs.h).
// Row labels on the left, checkpoint steps on top, the scale underneath;
// hovering names the variable, the step and the value; clicking a row
// reports its variable. A value that did not move at all is drawn off the
// scale, in a neutral "=" cell, so it never reads as the smallest move.

#include <QImage>
#include <QList>
#include <QWidget>

#include <memory>
#include <optional>

#include "ckpt/checkpoint_history.h"
#include "ckpt/preview.h"

namespace ckpt::ui {

class MovementStrip : public QWidget {
    Q_OBJECT
public:
    explicit MovementStrip(QWidget* parent = nullptr);
    // 'image' is the strip (rows x checkpoints), 'colorbar' its colormap; null history clears.
    void setStrip(std::shared_ptr<const CheckpointHistory> history, QImage image, QImage colorbar, double lo, double hi);
    const std::shared_ptr<const CheckpointHistory>& history() const { return m_history; }
    // The cell under a widget position: (variable, checkpoint), or -1s.
    std::pair<int, int> cellAt(QPointF pos) const;
    QString cellText(int variable, int checkpoint) const;
    // Where a cell is drawn, in widget coordinates (empty outside the strip).
    QRectF cellRect(int variable, int checkpoint) const;
    // A value exactly as before: its cell is drawn in unchangedColor().
    static bool isUnchanged(const HistoryPoint& point);
    QColor unchangedColor() const;
    QSize sizeHint() const override;
    // The legend's words, each with the rectangle it needs where it is drawn.
    struct LegendText {
        QString text;
        QRectF rect;
        int flags;
    };
    QList<LegendText> legendTexts() const;

signals:
    void variableClicked(int variable);

protected:
    void paintEvent(QPaintEvent* event) override;
    bool event(QEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;

private:
    QRectF gridRect() const;
    // The scale's colour bar: between "10^lo" and "10^hi", on the first legend line.
    QRectF colorbarRect() const;

    std::shared_ptr<const CheckpointHistory> m_history;
    QImage m_image;
    QImage m_colorbar;
    double m_lo = 0, m_hi = 0;
    size_t m_commonPrefix = 0;  // characters every path shares, left off the labels
};

// "ckpt-3 (step 150)", or the name alone when it carries no step.
QString checkpointLabel(const HistoryCheckpoint& checkpoint);

}  // namespace ckpt::ui
