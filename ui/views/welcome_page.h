#pragma once
// What the object graph tab shows with nothing open: how to open a
// checkpoint, a button that trains demo checkpoints for a newcomer without
// one at hand, and the last few recent checkpoints as one-click buttons.
// It only asks (signals); CheckpointOpener, DemoController and RecentMenu act.

#include <QStringList>
#include <QWidget>

class QPushButton;

namespace ckpt::ui {

class WelcomePage : public QWidget {
    Q_OBJECT
public:
    explicit WelcomePage(QWidget* parent = nullptr);

    // Generate Demo Checkpoints is disabled while a demo trains.
    void setDemoRunning(bool running);
    // Offers the first few of 'paths' (newest first), marking the ones gone from disk.
    void showRecent(const QStringList& paths);

signals:
    void openRequested();
    // Into the default demo folder (opening the demo already there).
    void demoRequested();
    // Into a folder the user chooses.
    void demoIntoFolderRequested();
    void recentRequested(const QString& path);

private:
    QPushButton* m_demoButton;
    QWidget* m_recentBox;
};

}  // namespace ckpt::ui
