#pragma once
// The "Restore" tab: match the open checkpoint against a restore target (a
// model spec, another checkpoint, or the checkpoint's own structure) the way
// tf.train.Checkpoint.restore does, colour the tree by match status, show
// TensorFlow's three load-status assertions verbatim, edit an assignment map
// with a debounced live preview, and restore-and-write into a new prefix.
// Matching and writing run on jobPool(); only results come back here.

#include <QWidget>

#include <functional>
#include <memory>

#include "ckpt/match_report.h"
#include "jobs/restore_jobs.h"
#include "models/checkpoint_snapshot.h"

class QCheckBox;
class QLabel;
class QLayout;
class QListWidget;
class QPushButton;
class QTableWidget;
class QTimer;

namespace ckpt::ui {

class JobControl;
class JobTracker;
class ObjectTreePane;

class RestoreView : public QWidget {
    Q_OBJECT
public:
    explicit RestoreView(JobTracker* jobs, QWidget* parent = nullptr);

    // A new checkpoint (or none): keeps the target and mapping, re-matches.
    void setSnapshot(std::shared_ptr<const CheckpointSnapshot> snapshot);
    // A *.json model spec or a checkpoint path; empty = the checkpoint's own structure.
    void setTarget(const QString& target);
    const QString& target() const { return m_target; }
    void addMappingRow(const QString& from = {}, const QString& to = {});
    // Restores with values into 'outPrefix', writes and verifies it. The
    // destination is judged first by the engine's rule on jobPool(): the
    // open checkpoint and the target are refused; an existing checkpoint is
    // replaced only after the replace question (naming it, its step and
    // size). When the restore fails, a second, separate question asks
    // whether to write anyway (ckpt/restored_write.h). Nothing is written
    // before both are answered.
    void restoreTo(const QString& outPrefix, RestoreConsent consent = {});
    // The catalog whose restore history records restoreTo(); empty: none.
    void setCatalogPath(const QString& path) { m_catalogPath = path; }
    // How the write-despite-failure question is asked: a message box unless
    // replaced (tests).
    using ConfirmWrite = std::function<bool(const QString& prefix, const QString& failure)>;
    void setConfirmWrite(ConfirmWrite confirm) { m_confirmWrite = std::move(confirm); }
    // How the replace question is asked: a message box (objectName
    // "replaceQuestion") unless replaced.
    using ConfirmReplace = std::function<bool(const DestinationVerdict& verdict)>;
    void setConfirmReplace(ConfirmReplace confirm) { m_confirmReplace = std::move(confirm); }

    ObjectTreePane* treePane() const { return m_tree; }
    QCheckBox* expectPartialBox() const { return m_expectPartial; }
    QTableWidget* mappingTable() const { return m_mapping; }
    QListWidget* unboundList() const { return m_unbound; }
    QListWidget* warningList() const { return m_warnings; }
    QPushButton* restoreButton() const { return m_restore; }
    QLabel* verdictLabel(Assertion a) const { return m_verdict[static_cast<int>(a)]; }
    QLabel* messageLabel(Assertion a) const { return m_message[static_cast<int>(a)]; }
    QLabel* resultLabel() const { return m_result; }
    // The report last shown (null before the first preview lands).
    const std::shared_ptr<const MatchReport>& report() const { return m_report; }
    bool isMatching() const { return m_previewJob != nullptr; }
    bool isRestoring() const { return m_restoreJob != nullptr; }

signals:
    void previewUpdated();
    void restoreFinished(bool ok, const QString& prefix);
    void openRequested(const QString& prefix);

protected:
    void showEvent(QShowEvent* event) override;

private:
    // The constructor's parts, in the order the widgets are created.
    void setDefaultQuestions();
    QLayout* createTargetRow();
    QWidget* createSidePanel();
    QWidget* createAssertions(QWidget* side);
    QWidget* createMappingBox(QWidget* side);
    QLayout* createRestoreRow();
    void chooseTarget();
    void chooseOutput();
    void scheduleMatch();
    void runMatch();
    void showPreview(const RestorePreview& preview);
    void showRestoreResult(const RestoreWriteResult& result);
    RestoreRequest request() const;

    JobTracker* m_jobs;
    ConfirmWrite m_confirmWrite;
    ConfirmReplace m_confirmReplace;
    std::shared_ptr<const CheckpointSnapshot> m_snapshot;
    std::shared_ptr<const MatchReport> m_report;
    QString m_target;
    QString m_catalogPath;
    ObjectTreePane* m_tree;
    QLabel* m_targetLabel;
    QLabel* m_summary;
    QCheckBox* m_expectPartial;
    QLabel* m_verdict[3];
    QLabel* m_message[3];
    QListWidget* m_unbound;
    QListWidget* m_warnings;
    QTableWidget* m_mapping;
    QPushButton* m_restore;
    QPushButton* m_openResult;
    QLabel* m_result;
    QTimer* m_debounce;
    std::shared_ptr<JobControl> m_previewJob;
    std::shared_ptr<JobControl> m_restoreJob;
    QString m_restoredPrefix;
    quint64 m_generation = 0;
    // Matching waits until the tab is shown: opening a checkpoint should not
    // pay for a restore preview nobody looks at.
    bool m_stale = false;
};

}  // namespace ckpt::ui
