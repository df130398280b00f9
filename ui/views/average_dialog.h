#pragma once
// Averages the open checkpoint with others of its directory (a run's
// checkpoints, listed as the sidebar lists them, in step order): checked
// rows are the sources, the open one always among them. Mean (equal
// weights), an exponential moving average over the sources in step order,
// or a spherical interpolation between exactly two; optionally weights
// only (the optimizer's state dropped). The engine's averageCheckpoints
// names structural mismatches when the job runs.

#include "views/surgery_dialog.h"

class QCheckBox;
class QDoubleSpinBox;
class QListWidget;

namespace ckpt::ui {

class AverageDialog : public SurgeryDialog {
    Q_OBJECT
public:
    // 'candidates' in step order, 'current' among them.
    AverageDialog(const QString& current, const QStringList& candidates, QWidget* parent = nullptr);

    AverageSpec spec() const;
    // Checks the row of 'prefix' (false: it is not listed).
    bool check(const QString& prefix, bool checked = true);

    QListWidget* candidateList() const { return m_list; }
    QComboBox* methodBox() const { return m_method; }
    QDoubleSpinBox* decayBox() const { return m_decay; }
    QDoubleSpinBox* slerpBox() const { return m_slerp; }
    QCheckBox* weightsOnlyBox() const { return m_weightsOnly; }

protected:
    QString fieldsReason() const override;

private:
    void selectionEdited();

    QListWidget* m_list;
    QComboBox* m_method;
    QDoubleSpinBox* m_decay;
    QDoubleSpinBox* m_slerp;
    QCheckBox* m_weightsOnly;
};

}  // namespace ckpt::ui
