#pragma once
// A's and B's histograms overlaid: the same bins over the finite range of
// both together (jobs/compare_jobs.h), drawn as two step outlines with a
// legend naming each side; hovering reads both counts of a bin. Computed on
// jobPool() while the panel is shown.

#include <QWidget>

#include <memory>
#include <optional>

#include "ckpt/preview.h"
#include "jobs/compare_jobs.h"

class QChart;
class QChartView;
class QLabel;
class QSpinBox;

namespace ckpt::ui {

class PairHistogramPanel : public QWidget {
    Q_OBJECT
public:
    explicit PairHistogramPanel(QWidget* parent = nullptr);
    void setValues(std::shared_ptr<const PairValues> values, const QString& nameA, const QString& nameB);
    const std::optional<Histogram>& histogramA() const { return m_a; }
    const std::optional<Histogram>& histogramB() const { return m_b; }
    QChart* chart() const { return m_chart; }
    bool isBusy() const { return m_busy; }

signals:
    void histogramsReady();

protected:
    void showEvent(QShowEvent* event) override;

private:
    void refresh();
    void start();
    void plot();
    void showBinTip(double x);

    std::shared_ptr<const PairValues> m_values;
    QString m_nameA, m_nameB;
    std::optional<Histogram> m_a, m_b;
    QSpinBox* m_bins;
    QLabel* m_message;
    QChart* m_chart;
    QChartView* m_view;
    quint64 m_generation = 0;
    bool m_busy = false;
    bool m_stale = false;
};

}  // namespace ckpt::ui
