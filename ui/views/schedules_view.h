#pragma once
// The "Schedules" tab: the schedules of one store (ckpt/schedule_store.h)
// with next run, last result and a sparkline of recent run durations; the
// selected schedule's runs log; New / Edit (ScheduleDialog), Remove (after
// confirmation), and Run now, which runs the schedule on jobPool() with
// progress and a Cancel button (the run is recorded `interrupted`): in this
// process when no scheduler service holds the store, else queued for the
// service and followed through the store (ckpt/schedule_client.h). Cancel
// Run also stops a run another process is making (the service's due run).
// The store is re-read in a job every few seconds while the tab is shown,
// every second while a run is in progress, so runs made by `ckpt scheduler
// run` in another process appear with their live progress. Nothing is
// read until the tab is first shown. GUI thread only.

#include <QWidget>

#include <atomic>
#include <memory>

#include "ckpt/retention.h"

class QLabel;
class QProgressBar;
class QPushButton;
class QTableView;
class QTimer;

namespace ckpt::ui {

class DurationSparkline;
class JobControl;
class JobTracker;
class ScheduleDialog;
class ScheduleRunsModel;
class SchedulesModel;
struct RunNowResult;
struct ScheduleStoreSnapshot;

class SchedulesView : public QWidget {
    Q_OBJECT
public:
    explicit SchedulesView(JobTracker* jobs, QWidget* parent = nullptr);
    ~SchedulesView() override;

    // The store to show (`--schedule-store`); empty: the engine's default.
    void setStorePath(const QString& path);
    QString storePath() const;
    // Suggested source directory for a new schedule (the sidebar's).
    void setSuggestedSource(const QString& dir) { m_suggestedSource = dir; }
    // Re-reads the store now (unless a read is in flight).
    void refresh();

    void selectSchedule(const QString& name);
    QString selectedName() const;
    // Opens the dialog for a new schedule / the selected one (window-modal;
    // the store is written when it is accepted). Returns the dialog.
    ScheduleDialog* newSchedule();
    ScheduleDialog* editSelected();
    void removeSelected();
    void runSelected();
    void cancelRun();

    SchedulesModel* model() const { return m_model; }
    ScheduleRunsModel* runsModel() const { return m_runsModel; }
    QTableView* table() const { return m_table; }
    QTableView* runsTable() const { return m_runsTable; }
    DurationSparkline* sparkline() const { return m_sparkline; }
    QPushButton* runButton() const { return m_run; }
    QPushButton* cancelButton() const { return m_cancel; }
    QProgressBar* progressBar() const { return m_progress; }
    QLabel* statusLabel() const { return m_status; }
    QTimer* refreshTimer() const { return m_refreshTimer; }
    bool isRunning() const { return m_runJob != nullptr; }
    // The selected schedule's newest run, when it is in progress (any process's).
    bool selectedIsRunning() const;

signals:
    // A read of the store landed (ok false: its error is shown).
    void refreshed(bool ok);
    // Run now ended; 'result' is the run's recorded result name ("ok",
    // "failed", "interrupted", ...) or empty when the scheduler could not run it.
    void runFinished(const QString& name, const QString& result);
    // "Preview retention": the destination with the schedule's policy and owner.
    void retentionPreviewRequested(const QString& dir, const ckpt::RetentionPolicy& policy, const QString& owner);

protected:
    void showEvent(QShowEvent* event) override;
    void hideEvent(QHideEvent* event) override;

private:
    void onRead(const std::shared_ptr<const ScheduleStoreSnapshot>& snapshot);
    void onSelectionChanged();
    void updateButtons();
    void saveFromDialog(ScheduleDialog* dialog);
    void onRunDone(const QString& name, const RunNowResult& result);
    void setStatus(const QString& text);

    JobTracker* m_jobs;
    QString m_storePath;  // resolved; empty until first needed
    QString m_suggestedSource;
    SchedulesModel* m_model;
    ScheduleRunsModel* m_runsModel;
    QTableView* m_table;
    QTableView* m_runsTable;
    QLabel* m_storeLabel;
    QLabel* m_runsTitle;
    DurationSparkline* m_sparkline;
    QPushButton* m_new;
    QPushButton* m_edit;
    QPushButton* m_remove;
    QPushButton* m_run;
    QPushButton* m_cancel;
    QPushButton* m_preview;
    QProgressBar* m_progress;
    QLabel* m_status;
    QTimer* m_refreshTimer;
    QTimer* m_progressTimer;
    bool m_readInFlight = false;
    bool m_readAgain = false;  // a write landed while a read was in flight
    QString m_pendingSelection;
    std::shared_ptr<JobControl> m_runJob;
    // The scheduler service's pid once the run was queued for it (set by the job).
    std::shared_ptr<std::atomic<int64_t>> m_queuedPid;
    QString m_runName;
};

}  // namespace ckpt::ui
