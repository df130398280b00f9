#pragma once
// Which checkpoint the explorer shows, and opening one: a path or URL, the
// Open, Open Directory and Open Location dialogs, a click in the sidebar, a
// search result at its key, Reload and Close. The open runs on jobPool()
// (openCheckpoint); a newer open supersedes an older one still running,
// whose result is then dropped. The object graph tab's page follows: the
// welcome page with nothing open, the tree, the error panel when the open
// failed, or while a checkpoint on object storage opens, the opening panel
// (Cancel stops the open: its requests are dropped and its worker ends);
// the status line and the window title say what is shown.

#include <QObject>
#include <QString>
#include <QStringList>

#include <memory>

#include "models/checkpoint_snapshot.h"

class QFileDialog;
class QLabel;
class QStackedWidget;

namespace ckpt::ui {

class CheckpointSidebar;
class ErrorPanel;
class JobControl;
class JobTracker;
class ObjectTreePane;
class OpenLocationDialog;
class OpeningPanel;
class RestoreView;
class TensorInspector;
class WelcomePage;

// What a file chosen in the Open dialog stands for: its bundle prefix, or
// for a SavedModel's saved_model.pb or a directory's state file, the directory.
QString checkpointPathFor(const QString& file);

// The parts an open updates; the window owns them.
struct OpenerParts {
    QWidget* window;  // its title names the checkpoint; parent of the dialogs
    JobTracker* jobs;
    CheckpointSidebar* sidebar;
    QStackedWidget* page;  // the object graph tab: welcome, tree or error
    WelcomePage* welcome;
    ObjectTreePane* tree;
    ErrorPanel* error;
    OpeningPanel* busy;  // while a remote checkpoint opens
    RestoreView* restore;
    TensorInspector* inspector;
    QLabel* status;
};

class CheckpointOpener : public QObject {
    Q_OBJECT
public:
    explicit CheckpointOpener(const OpenerParts& parts, QObject* parent = nullptr);

    // A prefix, .index/.data file, checkpoint directory or SavedModel.
    void openPath(const QString& path);
    // Opens 'prefix' unless it is shown, then selects the node holding 'key'.
    void openAt(const QString& prefix, const QString& key);
    // A click on the checkpoint already shown does not open it again.
    void activate(const QString& prefix);
    // Lists the sidebar's directories again and reopens the checkpoint.
    void refresh();
    void closeCurrent();
    // File ▸ Open: a dialog for an index, data file, state file or
    // SavedModel; choosing one opens its checkpoint.
    QFileDialog* openDialog();
    void openDirectoryDialog();
    // File ▸ Open Location: a URL or path typed or picked from the recent
    // ones; choosing one opens it here.
    OpenLocationDialog* openLocationDialog();
    // Abandons the open in progress (its result is dropped; the engine call
    // ends on its own) and shows again what was shown before it.
    void cancelOpen();
    bool isOpening() const { return m_openJob != nullptr; }
    // The error panel in place of the tree, the status line saying 'error'.
    void showError(const QString& title, const QString& error, const QStringList& problems);

    // The checkpoint shown; null when none is (or its open failed).
    const std::shared_ptr<const CheckpointSnapshot>& snapshot() const { return m_snapshot; }
    bool isErrorShown() const;
    // The tree shows the checkpoint (not the welcome page or an error).
    bool isTreeShown() const;

signals:
    // An open starts: the path (a bundle prefix or directory) it opens.
    void opening(const QString& path);
    // The directory (run) of what is opening, for the sidebar: at once for
    // a local path; for a remote one when its open found the checkpoint (a
    // URL is not looked up on the GUI thread).
    void directoryFound(const QString& dir);
    // After each open: whether the checkpoint opened.
    void opened(bool ok);
    void closed();

private:
    void showSnapshot(std::shared_ptr<const CheckpointSnapshot> snapshot);
    void restoreAfterCancel(const QString& abandoned);
    void revealVariables();

    OpenerParts m_parts;
    QString m_currentPath;
    QString m_currentDirectory;  // the sidebar's directory of m_currentPath, once known
    std::shared_ptr<const CheckpointSnapshot> m_snapshot;
    std::shared_ptr<JobControl> m_openJob;
    quint64 m_openGeneration = 0;
    QString m_pendingKey;  // selected once the open of this generation lands
    quint64 m_pendingKeyGeneration = 0;
};

}  // namespace ckpt::ui
