#pragma once
// The compare view's heatmaps of one pair: A, B and |A−B| of the same
// slice, A and B on ONE colour scale so equal colours mean equal values.
// One set of slice selectors drives all three and survives a new pair of
// the same shape (stepping through versions keeps the slice). Drawn on
// jobPool() (jobs/compare_jobs.h) while the panel is shown. The three zoom
// together through one HeatmapZoomBar, the inspector's heatmap rules.
// Its minimum height holds the controls and all three heatmaps whole: where
// a window is shorter, put it in a scroll area (CompareDetail does).

#include <QList>
#include <QWidget>

#include <memory>

#include "ckpt/preview.h"
#include "jobs/compare_jobs.h"
#include "views/heatmap_controls.h"

class QComboBox;
class QLabel;
class QSpinBox;

namespace ckpt::ui {

class HeatmapView;
class HeatmapZoomBar;

class PairHeatmapPanel : public QWidget {
    Q_OBJECT
public:
    explicit PairHeatmapPanel(QWidget* parent = nullptr);
    // Null clears. 'nameA'/'nameB' caption the two sides.
    void setValues(std::shared_ptr<const PairValues> values, const QString& nameA, const QString& nameB);

    HeatmapView* viewA() const { return m_views[0]; }
    HeatmapView* viewB() const { return m_views[1]; }
    HeatmapView* viewDiff() const { return m_views[2]; }
    HeatmapZoomBar* zoomBar() const { return m_zoomBar; }
    QComboBox* rowAxisBox() const { return m_controls->rowAxisBox(); }
    QComboBox* columnAxisBox() const { return m_controls->columnAxisBox(); }
    QList<QSpinBox*> indexBoxes() const { return m_controls->indexBoxes(); }
    bool isBusy() const { return m_busy; }
    // The scale A and B share in the heatmaps shown (empty: one side only, or constant).
    const std::optional<std::pair<double, double>>& sharedRange() const { return m_sharedRange; }

signals:
    void heatmapsReady();

protected:
    void showEvent(QShowEvent* event) override;

private:
    void refresh();
    void start();
    void showResult(const PairHeatmaps& result);

    std::shared_ptr<const PairValues> m_values;
    std::optional<std::pair<double, double>> m_sharedRange;
    HeatmapControls* m_controls;
    QLabel* m_message;
    HeatmapZoomBar* m_zoomBar;
    QLabel* m_captions[3];
    HeatmapView* m_views[3];
    quint64 m_generation = 0;
    bool m_busy = false;
    bool m_stale = false;
};

}  // namespace ckpt::ui
