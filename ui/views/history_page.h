#pragma once
// The "History" page: how the selected variable evolved over every
// checkpoint of its directory (its L2 norm and its relative change since
// the previous checkpoint, as line charts whose points name their step and
// value on hover), and, on request, the run-level "what moved" strip of
// every weight. Both come from computeHistory on jobPool() with progress in
// the status bar and cancellation (Esc); the page computes only while shown.

#include <QString>

#include <memory>

#include "ckpt/checkpoint_history.h"
#include "views/inspector_page.h"

class QChart;
class QLabel;
class QPushButton;
class QScrollArea;

namespace ckpt::ui {

class HistoryChartView;
class JobControl;
class JobTracker;
class MovementStrip;
struct HistoryResult;

class HistoryPage : public InspectorPage {
    Q_OBJECT
public:
    explicit HistoryPage(JobTracker* jobs, QWidget* parent = nullptr);
    ~HistoryPage() override;
    QString pageTitle() const override { return tr("History"); }
    void setSelection(const TensorSelection& selection) override;
    void setValues(std::shared_ptr<const Tensor>) override {}

    // The variable with checkpoint key 'key' across the checkpoints of
    // 'directory'; 'label' titles the charts. Empty key: nothing selected.
    void setVariable(const QString& directory, const QString& key, const QString& label);
    // Computes the run-level strip for the current directory.
    void showRun();

    bool isBusy() const { return m_variableJob != nullptr; }
    bool isRunBusy() const { return m_runJob != nullptr; }
    QChart* normChart() const { return m_normChart; }
    QChart* changeChart() const { return m_changeChart; }
    HistoryChartView* normView() const { return m_normView; }
    MovementStrip* strip() const { return m_strip; }
    QPushButton* runButton() const { return m_runButton; }
    QString message() const;
    // The history last charted (null before one lands).
    const std::shared_ptr<const CheckpointHistory>& history() const { return m_history; }
    int variableIndex() const { return m_variable; }

signals:
    void historyReady(bool ok);
    void runReady(bool ok);

protected:
    void showEvent(QShowEvent* event) override;

private:
    void start();
    void showVariable(std::shared_ptr<const CheckpointHistory> history, int variable);
    void showRunResult(const HistoryResult& result);
    void clearCharts();

    JobTracker* m_jobs;
    QString m_directory, m_key, m_label;
    std::shared_ptr<const CheckpointHistory> m_history;
    int m_variable = -1;
    QLabel* m_title;
    QLabel* m_message;
    QChart* m_normChart;
    QChart* m_changeChart;
    HistoryChartView* m_normView;
    HistoryChartView* m_changeView;
    QPushButton* m_runButton;
    QLabel* m_runMessage;
    MovementStrip* m_strip;
    QScrollArea* m_scroll;
    QString m_runDirectory;  // the directory the strip shows
    std::shared_ptr<JobControl> m_variableJob, m_runJob;
    quint64 m_generation = 0, m_runGeneration = 0;
    bool m_stale = false;
};

}  // namespace ckpt::ui
