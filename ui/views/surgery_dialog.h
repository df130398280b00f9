#pragma once
// What every surgery dialog asks (issue #18): where the result goes and how
// it is sharded. The destination is suggested beside the source's run (never in
// it: suggestDestination) under a name no checkpoint uses, and judged as it is typed by the engine's
// destination rule (ckpt/destination.h, through judgeDestination on
// jobPool() shortly after each edit): a source, the open checkpoint, a
// directory or a place that cannot be written is refused with its reason
// above the buttons; an existing checkpoint (or file) is named with its
// step and size, and Write then asks the replace question before the
// dialog closes (overwrite() is the answer). A write that fails reopens the
// dialog with its error and every setting (showWriteError). Write stays disabled until the
// engine and the subclass (an edit's plan, an average's sources) accept what
// is shown. Save As is this dialog alone; the edit, average and export
// dialogs add their fields above (export judges a file and hides the
// sharding). The dialog writes nothing: the window runs the job once it is
// accepted.

#include <QDialog>
#include <QStringList>

#include <functional>

#include "jobs/surgery_jobs.h"

class QComboBox;
class QDialogButtonBox;
class QFormLayout;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;
class QTimer;
class QVBoxLayout;

namespace ckpt::ui {

class SurgeryDialog : public QDialog {
    Q_OBJECT
public:
    // 'sources' are the checkpoints read (the destination must not be one);
    // 'suggested' the destination shown first.
    SurgeryDialog(const QString& title, const QStringList& sources, const QString& suggested, QWidget* parent = nullptr);

    // Checkpoints open in the explorer: refused as the destination too.
    void setOpenCheckpoints(const QStringList& open);
    QString destination() const;
    // The user answered the replace question with Replace (set when Write
    // accepted a destination where something exists).
    bool overwrite() const { return m_overwrite; }
    // The engine's last verdict on the destination shown.
    const DestinationVerdict& verdict() const { return m_verdict; }
    // The note naming what Write would replace; empty when nothing.
    QLabel* replaceLabel() const { return m_replaceNote; }
    // Asks the replace question when something exists at the destination,
    // then accepts (or stays open after Cancel).
    void accept() override;
    const QStringList& sources() const { return m_sources; }
    ShardingChoice sharding() const;
    // Why Write is disabled; empty once everything shown is accepted.
    QString reason() const { return m_reasonText; }
    // Every check of the fields as they are now has answered.
    bool isChecked() const;
    // A write from this dialog failed: shown above the fields, every setting
    // kept, until the next edit; the destination is judged again.
    void showWriteError(const QString& error);

    QLineEdit* destinationEdit() const { return m_destination; }
    QComboBox* shardingBox() const { return m_sharding; }
    QSpinBox* shardCountBox() const { return m_shardCount; }
    QLineEdit* maxShardEdit() const { return m_maxShard; }
    QLabel* reasonLabel() const { return m_reason; }
    QPushButton* okButton() const;

    enum ShardingMode { ByTask, FixedCount, MaxSize };

signals:
    // Each verdict on the fields as shown (valid or not).
    void checked(bool valid);

protected:
    // Where subclasses put their own fields, above the destination.
    QVBoxLayout* content() const { return m_content; }
    void setSources(const QStringList& sources);
    // What judges the destination on jobPool() instead of judgeDestination
    // (an export's output is a file, an average also checks its sources).
    using DestinationCheck =
        std::function<DestinationVerdict(const QString& destination, const QStringList& sources, const QStringList& open)>;
    void setDestinationCheck(DestinationCheck check);
    // For results the sharding does not apply to.
    void setShardingShown(bool shown);
    // The subclass's refusal of its fields (empty: none) and whether it is
    // still waiting for the engine; updateVerdict() after either changes.
    virtual QString fieldsReason() const { return {}; }
    virtual bool fieldsPending() const { return false; }
    void updateVerdict();

private:
    void destinationEdited();
    void startCheck();
    QString shardingReason() const;

    QStringList m_sources;
    QStringList m_open;
    DestinationCheck m_check;
    DestinationVerdict m_verdict;
    bool m_overwrite = false;
    QLabel* m_replaceNote;
    QVBoxLayout* m_content;
    QFormLayout* m_form;
    QLineEdit* m_destination;
    QComboBox* m_sharding;
    QLabel* m_shardingLabel = nullptr;
    QSpinBox* m_shardCount;
    QLineEdit* m_maxShard;
    QLabel* m_reason;
    QDialogButtonBox* m_buttons;
    QTimer* m_debounce;
    QString m_destinationReason;
    QString m_reasonText;
    QString m_writeError;
    quint64 m_generation = 0;
    quint64 m_checkedGeneration = 0;
};

}  // namespace ckpt::ui
