#pragma once
// Combines the open checkpoint with others: those of its directory (a
// run's checkpoints, listed as the sidebar lists them, in step order) and
// any added with Add…; checked rows are the sources, the open one always
// among them. Average: mean (equal or custom weights, one per checked row
// in the list's order), an exponential moving average over the sources in
// step order, or a spherical interpolation between exactly two; optionally
// weights only (the optimizer's state dropped); the fields are judged by
// the engine's checkAverageSpec, the sources' structure on jobPool(). Merge
// (`ckpt merge`): bundles with disjoint keys combined into one; the engine
// names conflicting keys when the job runs. The dialog only collects:
// the window runs the engine's averageCheckpoints or mergeCheckpoints.

#include "views/surgery_dialog.h"

class QCheckBox;
class QDoubleSpinBox;
class QLineEdit;
class QListWidget;

namespace ckpt::ui {

class AverageDialog : public SurgeryDialog {
    Q_OBJECT
public:
    enum Operation { Average, Merge };
    // 'candidates' in step order, 'current' among them.
    AverageDialog(const QString& current, const QStringList& candidates, QWidget* parent = nullptr,
                  Operation operation = Average);

    Operation operation() const { return m_operation; }
    AverageSpec spec() const;
    // Checks the row of 'prefix' (false: it is not listed).
    bool check(const QString& prefix, bool checked = true);
    // Lists 'prefix' (a checkpoint from elsewhere, as Add… does), checked.
    void addSource(const QString& prefix);

    QListWidget* candidateList() const { return m_list; }
    QComboBox* methodBox() const { return m_method; }
    QDoubleSpinBox* decayBox() const { return m_decay; }
    QDoubleSpinBox* slerpBox() const { return m_slerp; }
    QCheckBox* weightsOnlyBox() const { return m_weightsOnly; }
    QLineEdit* weightsEdit() const { return m_weights; }

protected:
    QString fieldsReason() const override;

private:
    void selectionEdited();
    AverageMethod method() const;
    std::vector<double> weights() const;  // empty: equal, or not numbers (weightsReason says)
    QString weightsReason() const;

    Operation m_operation;
    QListWidget* m_list;
    QComboBox* m_method;
    QDoubleSpinBox* m_decay;
    QDoubleSpinBox* m_slerp;
    QCheckBox* m_weightsOnly;
    QLineEdit* m_weights;
};

}  // namespace ckpt::ui
