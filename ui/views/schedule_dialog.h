#pragma once
// Creates or edits a schedule: name, source (a directory's latest
// checkpoint or the demo training run), destination, how often it runs,
// sharding and the destination's retention policy. The fields are checked
// as they are typed: the engine's validateSchedule() runs on jobPool()
// shortly after each edit (it looks at the file system) and its reason
// shows under the fields; OK stays disabled until the engine accepts the
// schedule as shown. The dialog stores nothing: the caller saves
// schedule() and may hand a store error back with showError().

#include <QDialog>

#include "ckpt/schedule.h"

class QCheckBox;
class QComboBox;
class QDialogButtonBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;
class QTimer;

namespace ckpt::ui {

class RetentionPolicyEditor;

class ScheduleDialog : public QDialog {
    Q_OBJECT
public:
    // 'schedule' with id 0 is a new one (its fields are the suggestion).
    explicit ScheduleDialog(const Schedule& schedule, QWidget* parent = nullptr);

    // The fields as a schedule (id, creation time and what the dialog has
    // no field for are kept from the one given).
    Schedule schedule() const;
    // Why the schedule as shown is refused; empty once the engine accepted it.
    QString reason() const;
    // The engine has judged the fields as they are now (no check pending).
    bool isChecked() const { return m_checkedGeneration == m_generation; }
    // A save that failed (a name already taken): shown like a reason.
    void showError(const QString& error);

    QLineEdit* nameEdit() const { return m_name; }
    QComboBox* sourceBox() const { return m_source; }
    QLineEdit* sourceEdit() const { return m_sourcePath; }
    QLineEdit* destinationEdit() const { return m_destination; }
    QLineEdit* intervalEdit() const { return m_interval; }
    QSpinBox* everyStepsBox() const { return m_everySteps; }
    RetentionPolicyEditor* retentionEditor() const { return m_retention; }
    QLabel* reasonLabel() const { return m_reason; }
    QPushButton* okButton() const;

signals:
    // Each verdict of the engine on the fields (valid or not).
    void checked(bool valid);

private:
    void fieldsEdited();
    void startCheck();
    void setReason(const QString& reason);
    // Parses what the engine's validation cannot see as text (durations, sizes).
    QString parseFields(Schedule* out) const;

    Schedule m_original;
    QLineEdit* m_name;
    QComboBox* m_source;
    QLineEdit* m_sourcePath;
    QPushButton* m_browseSource;
    QLineEdit* m_destination;
    QLineEdit* m_interval;
    QSpinBox* m_everySteps;
    QSpinBox* m_demoSteps;
    QSpinBox* m_shardCount;
    QLineEdit* m_maxShardBytes;
    QCheckBox* m_async;
    QCheckBox* m_enabled;
    RetentionPolicyEditor* m_retention;
    QLabel* m_reason;
    QDialogButtonBox* m_buttons;
    QTimer* m_debounce;
    QString m_reasonText;
    quint64 m_generation = 0;
    quint64 m_checkedGeneration = 0;
};

}  // namespace ckpt::ui
