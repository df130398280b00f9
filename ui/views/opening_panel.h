#pragma once
// Shown in the object graph tab while a checkpoint on object storage opens
// (requests can take seconds, or retry for longer when the store does not
// answer): the location, a busy bar and Cancel, which abandons the open
// and gives the window back. It only asks (cancelRequested);
// CheckpointOpener acts.

#include <QWidget>

class QLabel;
class QPushButton;

namespace ckpt::ui {

class OpeningPanel : public QWidget {
    Q_OBJECT
public:
    explicit OpeningPanel(QWidget* parent = nullptr);

    void showLocation(const QString& location);
    QString text() const;
    QPushButton* cancelButton() const { return m_cancel; }

signals:
    void cancelRequested();

private:
    QLabel* m_title;
    QPushButton* m_cancel;
};

}  // namespace ckpt::ui
