#pragma once
// Shown instead of the tree when a checkpoint cannot be opened: what failed,
// the engine's message verbatim (selectable, so it can be pasted into a bug
// report), verify's findings, and a Retry button.

#include <QWidget>

class QLabel;
class QPlainTextEdit;

namespace ckpt::ui {

class ErrorPanel : public QWidget {
    Q_OBJECT
public:
    explicit ErrorPanel(QWidget* parent = nullptr);
    void showError(const QString& title, const QString& message, const QStringList& problems);
    QString messageText() const;

signals:
    void retryRequested();

private:
    QLabel* m_title;
    QPlainTextEdit* m_details;
};

}  // namespace ckpt::ui
