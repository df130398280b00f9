#pragma once
// The selected tensor's histogram from the engine, drawn with Qt Charts as
// a step area: a bin-count selector (auto or a number; recomputes) and linear/log counts
// (redraws only: the engine's counts stay linear).

#include <optional>

#include "ckpt/preview.h"
#include "views/preview_page.h"

class QCheckBox;
class QChart;
class QChartView;
class QLabel;
class QSpinBox;

namespace ckpt::ui {

struct HistogramResult;

class HistogramPage : public PreviewPage {
    Q_OBJECT
public:
    explicit HistogramPage(QWidget* parent = nullptr);
    QString pageTitle() const override { return tr("Histogram"); }
    const std::optional<Histogram>& histogram() const { return m_histogram; }
    QSpinBox* binsBox() const { return m_bins; }
    QCheckBox* logBox() const { return m_log; }
    QChartView* chartView() const { return m_view; }
    QString message() const;
    // The bin count of "auto": about sqrt(n), within [8, 128], so a small
    // kernel is not scattered over mostly empty bins and a large one keeps
    // its shape.
    static int autoBins(int64_t elements);

protected:
    void startPreview() override;
    void clearPreview() override;

private:
    bool showResult(const HistogramResult& result);
    void plot();
    void showBinTip(double x);

    std::optional<Histogram> m_histogram;
    QSpinBox* m_bins;
    QCheckBox* m_log;
    QChart* m_chart;
    QChartView* m_view;
    QLabel* m_message;
    QLabel* m_info;
};

}  // namespace ckpt::ui
