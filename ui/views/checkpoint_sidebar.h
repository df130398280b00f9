#pragma once
// The window's left pane: the opened directories and their checkpoints
// (DirectoryModel), listed and verified in the background. Selecting two
// rows, the context menu or dropping one row onto another asks to compare;
// the window, which owns the workspace, answers the requests it emits.
// Clicking a column header sorts by it (the model keeps step order, which
// "previous checkpoint" and comparisons go by); a click or Enter on any
// cell of a checkpoint's row opens it. Names keep their width: Size, then
// Modified, give way first.

#include <QSet>
#include <QStringList>
#include <QTreeView>

#include <deque>
#include <memory>

namespace ckpt::ui {

class ColumnFitter;
class DirectoryModel;
class DirectorySortModel;
class JobControl;
class JobTracker;

class CheckpointSidebar : public QTreeView {
    Q_OBJECT
public:
    explicit CheckpointSidebar(JobTracker* jobs, QWidget* parent = nullptr);

    DirectoryModel* directories() const { return m_dirs; }

    // Lists 'dir' in the background (adding or replacing its row). A
    // directory the user opened is expanded and its new or not-yet-verified
    // checkpoints are queued for verification; one listed because the
    // catalog knows it shows the catalog's health until it is opened.
    void listDirectory(const QString& dir, bool opened = true);
    // Forgets every health badge (files may have changed on disk) and lists
    // every directory again.
    void relistAll();
    // Lists 'dir' again as it was listed before (opened or from the catalog), keeping health.
    void relistDirectory(const QString& dir) { listDirectory(dir, m_openedDirs.contains(dir)); }
    void removeDirectory(const QString& dir);

    // The checkpoint the window shows; its row stays current across listings.
    void setOpenedCheckpoint(const QString& prefix);
    // An open that failed: no checkpoint is shown, the failed one (if it was
    // found at all) is badged damaged and pointed at.
    void showOpenFailed(const QString& prefix, const QString& problems);

    // Verification reads every byte: it waits while a checkpoint opens.
    // Clearing the hold does not resume the queue; resumeVerification() does.
    void setOpenInProgress(bool opening) { m_openInProgress = opening; }
    void resumeVerification();
    // Where verification results are also recorded; empty: nowhere.
    void setCatalogPath(const QString& path) { m_catalogPath = path; }

    // Selected checkpoints in sidebar (step) order: the older first.
    QStringList selectedPrefixes() const;
    // The checkpoint before 'prefix' in its directory; empty for the first.
    QString previousCheckpoint(const QString& prefix) const;
    // The view's row of a checkpoint or directory (the model's rows mapped
    // through the sort); invalid when not listed.
    QModelIndex indexForPrefix(const QString& prefix) const;
    QModelIndex indexForDirectory(const QString& dir) const;

signals:
    // A checkpoint row was clicked or activated on its own (not while picking
    // several to compare); the window decides whether it is already open.
    void checkpointActivated(const QString& prefix);
    void openRequested(const QString& prefix);
    // Compare A (before) with B (after).
    void compareRequested(const QString& pathA, const QString& pathB);
    void compareWithPreviousRequested(const QString& prefix);
    // A background verification finished (or was cancelled) for 'prefix'.
    void healthChanged(const QString& prefix);
    // The directory row's context menu: remove it from the sidebar and the catalog.
    void forgetDirectoryRequested(const QString& dir);

private:
    void queueVerify(const QString& prefix);
    void onRowActivated(const QModelIndex& index);
    // Directory rows span every column (they move when the view sorts).
    void spanDirectoryRows();
    // The longest checkpoint name sets the name column's floor.
    void fitNameColumn();
    void showContextMenu(const QPoint& pos);

    JobTracker* m_jobs;
    DirectoryModel* m_dirs;
    DirectorySortModel* m_sorted;  // what the view shows
    QString m_openedPrefix;
    QString m_catalogPath;
    QSet<QString> m_openedDirs;  // listed because the user opened them: verified
    bool m_openInProgress = false;
    ColumnFitter* m_fitter;
    std::deque<QString> m_verifyQueue;
    std::shared_ptr<JobControl> m_verifyJob;
};

}  // namespace ckpt::ui
