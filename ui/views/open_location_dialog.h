#pragma once
// File ▸ Open Location… (Ctrl+L): a checkpoint or run by URL (s3://, gs://)
// or by path, typed or picked from the recent locations. The text is checked
// as it is typed, by its text alone (no settings read, no request made), and
// Open stays disabled with the reason shown until it may be opened; the open
// itself is CheckpointOpener's, like any other (locationChosen).
// Catalog ▸ Add Location… is the same dialog for a run or a folder of runs
// to catalogue (Purpose::AddToCatalog).
//   auto* d = new OpenLocationDialog(recentPaths, window);
//   connect(d, &OpenLocationDialog::locationChosen, opener, &CheckpointOpener::openPath);
//   d->open();

#include <QDialog>
#include <QStringList>

class QComboBox;
class QDialogButtonBox;
class QLabel;
class QPushButton;

namespace ckpt::ui {

class OpenLocationDialog : public QDialog {
    Q_OBJECT
public:
    enum class Purpose { Open, AddToCatalog };
    // 'recent': the recent locations, newest first, offered in the drop-down.
    explicit OpenLocationDialog(const QStringList& recent, QWidget* parent = nullptr, Purpose purpose = Purpose::Open);

    QComboBox* locationBox() const { return m_location; }
    QString location() const;
    // Why the location cannot be opened as typed; empty when it can.
    QString problem() const { return m_problem; }
    QString message() const;
    bool canOpen() const;

    // What is wrong with 'text' as a location to open; empty when nothing is.
    static QString judge(const QString& text);

signals:
    void locationChosen(const QString& location);

private:
    void validate();

    QComboBox* m_location;
    QLabel* m_message;
    QDialogButtonBox* m_buttons;
    QPushButton* m_accept;
    Purpose m_purpose;
    QString m_problem;
};

}  // namespace ckpt::ui
