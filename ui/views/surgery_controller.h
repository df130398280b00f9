#pragma once
// Surgery on the open checkpoint (issue #18): the Checkpoint menu and its
// toolbar entries, Rename and Delete on the object tree's rows, the dialogs
// that choose what to write, and the job that writes it, with progress in
// the status bar and Esc to cancel. The engine does the work
// (jobs/surgery_jobs.h, jobs/export_jobs.h); the open checkpoint is only
// read, and a written result is listed in the sidebar with a button in the
// status bar that opens it.

#include <QList>
#include <QObject>
#include <QString>

#include <functional>
#include <memory>

class QAction;
class QLabel;
class QMenuBar;
class QPushButton;
class QWidget;

namespace ckpt::ui {

class AverageDialog;
class CatalogController;
class CheckpointOpener;
class CheckpointSidebar;
class EditDialog;
class ExportDialog;
class JobControl;
class JobTracker;
class ObjectTreePane;
class SurgeryDialog;
struct SurgeryOutcome;
struct SurgeryTarget;

// What surgery reads and updates; the window owns them.
struct SurgeryParts {
    QWidget* window;  // the dialogs' parent
    JobTracker* jobs;
    CheckpointOpener* opener;
    ObjectTreePane* tree;
    CheckpointSidebar* sidebar;
    CatalogController* catalog;  // records what surgery writes
    QLabel* status;
};

class SurgeryController : public QObject {
    Q_OBJECT
public:
    explicit SurgeryController(const SurgeryParts& parts, QObject* parent = nullptr);

    // Adds the Checkpoint menu to 'bar'. The tree rows' context menu gets
    // 'rowLead' first, then Export, Rename and Delete.
    void addMenu(QMenuBar* bar, QAction* rowLead);
    // The menu's entries that belong on the toolbar (not the row ones).
    QList<QAction*> toolbarActions() const;
    // Shown in the status bar after a surgery wrote a checkpoint: opens it.
    QPushButton* openResultButton() const { return m_openResult; }

    // Each opens its dialog window-modal and returns it (null with no
    // checkpoint shown, or for rename/delete without an editable tree row
    // current); accepting it runs the write as a job.
    SurgeryDialog* saveAsDialog();
    EditDialog* stripOptimizerDialog();
    EditDialog* renameDialog();
    EditDialog* deleteDialog();
    AverageDialog* averageDialog();
    AverageDialog* mergeDialog();
    ExportDialog* exportDialog();

    // Enables the actions for what is shown: a checkpoint, an editable row.
    void updateActions();

signals:
    // A surgery job ended: written (ok), cancelled or failed; 'message' is
    // what the status bar says (the result's notes, or the error).
    void finished(bool ok, bool cancelled, const QString& prefix, const QString& message);

private:
    EditDialog* openEditDialog(int kind);         // EditDialog::Kind
    AverageDialog* combineDialog(int operation);  // AverageDialog::Operation
    // What a surgery dialog chose, with the open checkpoint and the catalog that records the result.
    SurgeryTarget surgeryTarget(const SurgeryDialog* dialog) const;
    // 'dialog' (hidden, kept) reopens with the error if the write fails and
    // is deleted otherwise.
    void runSurgery(SurgeryDialog* dialog, const QString& title,
                    std::function<SurgeryOutcome(const std::shared_ptr<JobControl>&)> work);
    void onSurgeryDone(const SurgeryOutcome& outcome, SurgeryDialog* dialog);

    SurgeryParts m_parts;
    QList<QAction*> m_actions;     // enabled while a checkpoint is shown
    QList<QAction*> m_rowActions;  // rename, delete: also need an editable row current
    QPushButton* m_openResult;
    QString m_resultPrefix;
};

}  // namespace ckpt::ui
