#pragma once
// The "Retention" tab: what a retention policy would do to a directory,
// before anything is deleted. A policy editor (the common rules as spin
// boxes, or the policy's JSON), whose owner may lose checkpoints, and the
// plan as a table coloured keep / delete / leave alone with the rules that
// keep each checkpoint or the reason it goes. The plan runs on jobPool()
// (ckpt/retention.h) and follows the editor after a short pause; "Apply…"
// lists what will be deleted, asks, and deletes in a job. Plans only while
// shown, so a hidden tab costs nothing. GUI thread only.

#include <QWidget>

#include <memory>

#include "ckpt/retention.h"

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;
class QTableView;
class QTimer;

namespace ckpt::ui {

class JobControl;
class JobTracker;
class RetentionPlanModel;
class RetentionPolicyEditor;
struct RetentionPreviewResult;

class RetentionPreview : public QWidget {
    Q_OBJECT
public:
    explicit RetentionPreview(JobTracker* jobs, QWidget* parent = nullptr);
    ~RetentionPreview() override;

    // The directory to plan (chosen by the user: suggestions stop).
    void setDirectory(const QString& dir);
    // The explorer's current directory: followed until the user picks one.
    void suggestDirectory(const QString& dir);
    QString directory() const;
    // Whose checkpoints may go; empty: the owner of the newest checkpoint.
    void setOwner(const QString& owner);
    void setPolicy(const RetentionPolicy& policy);
    const RetentionPolicy& policy() const;
    // Plans now rather than after the editing pause.
    void replan();

    RetentionPolicyEditor* editor() const { return m_editor; }
    RetentionPlanModel* model() const { return m_model; }
    QTableView* table() const { return m_table; }
    QLabel* totalsLabel() const { return m_totals; }
    // Notes, errors and the outcome of the last Apply.
    QLabel* statusLabel() const { return m_status; }
    QPushButton* applyButton() const { return m_apply; }
    QComboBox* ownerBox() const { return m_owner; }
    bool isBusy() const { return m_planJob || m_applyJob || m_pending; }

signals:
    // Each plan that lands (ok false: the error is shown instead).
    void planned(bool ok);
    // Checkpoints were deleted from 'dir' (the sidebar lists it again).
    void applied(const QString& dir, int deleted);

protected:
    void showEvent(QShowEvent* event) override;
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void schedulePlan();
    void startPlan();
    void onPlanned(const RetentionPreviewResult& result);
    void confirmAndApply();
    void updateApplyButton();
    void setStatus(const QString& text);
    void fitReasonColumn();

    JobTracker* m_jobs;
    QLineEdit* m_dir;
    RetentionPolicyEditor* m_editor;
    QComboBox* m_owner;
    QCheckBox* m_adopt;
    RetentionPlanModel* m_model;
    QTableView* m_table;
    QLabel* m_totals;
    QLabel* m_status;
    QPushButton* m_apply;
    QTimer* m_debounce;
    bool m_userChoseDirectory = false;
    bool m_pending = false;  // the shown plan is older than the editor
    QString m_applyOutcome;  // shown above the next plan's notes
    quint64 m_generation = 0;
    std::shared_ptr<JobControl> m_planJob;
    std::shared_ptr<JobControl> m_applyJob;
};

}  // namespace ckpt::ui
