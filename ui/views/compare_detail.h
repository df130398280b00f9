#pragma once
// The compare view's right-hand side for the selected row: what the engine
// found (status, both sides' dtype and shape, the figures and the first
// differing elements), then tabs that show the pair's values: heatmaps of
// A, B and |A−B|, the overlaid histograms, and the variable's history in
// B's directory. Both values are read once per selection on jobPool();
// values of very large tensors only on request.

#include <QWidget>

#include <memory>

#include "models/compare_snapshot.h"

class QLabel;
class QPushButton;
class QScrollArea;
class QSplitter;
class QTabWidget;

namespace ckpt::ui {

class HistoryPage;
class JobControl;
class JobTracker;
class PairHeatmapPanel;
class PairHistogramPanel;
class WrappingLabel;
struct PairValues;

class CompareDetail : public QWidget {
    Q_OBJECT
public:
    // Pairs larger than this (both sides together) are read only after "Load values".
    static constexpr int64_t kAutoLoadBytes = 512ll << 20;

    explicit CompareDetail(JobTracker* jobs, QWidget* parent = nullptr);
    ~CompareDetail() override;
    // 'node' of 'snapshot'; -1 or a null snapshot clears. The row already
    // shown is a no-op.
    void setNode(std::shared_ptr<const CompareSnapshot> snapshot, int32_t node);

    PairHeatmapPanel* heatmaps() const { return m_heatmaps; }
    // The Heatmaps tab's page: the panel in its scroll area (for setCurrentWidget).
    QScrollArea* heatmapsPage() const { return m_heatmapsPage; }
    // The figures, the first differing elements and Load values, above the tabs.
    QScrollArea* figuresPane() const { return m_figuresPane; }
    WrappingLabel* figuresLabel() const { return m_figures; }
    PairHistogramPanel* histograms() const { return m_histograms; }
    HistoryPage* history() const { return m_history; }
    QTabWidget* tabs() const { return m_tabs; }
    QString figuresText() const;
    bool isLoading() const { return m_readJob != nullptr; }
    const std::shared_ptr<const PairValues>& values() const { return m_values; }

signals:
    // Both sides' values arrived (or failed) for the current row.
    void valuesReady(bool ok);

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    QWidget* createFiguresPane();
    // Splits the height between the figures and the tabs (see the .cpp).
    void fitSplit();
    QTabWidget* createTabs();
    void loadValues();

    JobTracker* m_jobs;
    std::shared_ptr<const CompareSnapshot> m_snapshot;
    int32_t m_node = -1;
    std::shared_ptr<const PairValues> m_values;
    WrappingLabel* m_title;
    WrappingLabel* m_figures;
    WrappingLabel* m_elements;
    QPushButton* m_load;
    QScrollArea* m_figuresPane = nullptr;
    QSplitter* m_split = nullptr;
    bool m_userSplit = false;  // the user dragged the handle: their split stays
    QTabWidget* m_tabs;
    QScrollArea* m_heatmapsPage = nullptr;
    PairHeatmapPanel* m_heatmaps;
    PairHistogramPanel* m_histograms;
    HistoryPage* m_history;
    std::shared_ptr<JobControl> m_readJob;
    quint64 m_generation = 0;
};

}  // namespace ckpt::ui
