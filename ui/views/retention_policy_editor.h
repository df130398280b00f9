#pragma once
// Edits a RetentionPolicy (ckpt/retention.h): the common rules as spin
// boxes on one page, the whole policy as JSON on the other; either edits
// the same policy. Rules the form has no box for (yearly buckets, UTC,
// what to do without the metric) survive form edits and are set in JSON.
// The engine validates after every edit; its message shows under the
// editor. Used by the retention preview and the schedule dialog.

#include <QWidget>

#include "ckpt/retention.h"

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QSpinBox;
class QTabWidget;

namespace ckpt::ui {

class RetentionPolicyEditor : public QWidget {
    Q_OBJECT
public:
    explicit RetentionPolicyEditor(QWidget* parent = nullptr);

    // Shows 'policy' in both pages; emits nothing.
    void setPolicy(const RetentionPolicy& policy);
    // The last valid state of the JSON page, or the form's.
    const RetentionPolicy& policy() const { return m_policy; }
    // The engine's reason the policy (or its JSON) is refused; empty if valid.
    const QString& error() const { return m_error; }
    bool isValid() const { return m_error.isEmpty(); }

    // Boxes by rule, for tests and the tour: "keep_latest", "keep_one_per_hours",
    // "keep_every_steps", "keep_within", "keep_hourly", "keep_daily",
    // "keep_weekly", "keep_monthly", "best_count", "min_age" (QSpinBox or
    // QDoubleSpinBox by objectName); "best_metric", "keep_tags",
    // "disk_budget" (QLineEdit); "best_mode" (QComboBox).
    QPlainTextEdit* jsonEdit() const { return m_json; }
    QLabel* errorLabel() const { return m_errorLabel; }

signals:
    // After each edit, valid or not.
    void policyChanged();

private:
    QWidget* rulesPage();
    void connectEdits();
    QSpinBox* countBox(const QString& name, int max);
    QDoubleSpinBox* hoursBox(const QString& name);
    void formEdited();
    void jsonEdited();
    void showPolicyInForm();
    void setError(const QString& error);

    RetentionPolicy m_policy;
    QString m_error;
    QTabWidget* m_pages;
    QSpinBox* m_keepLatest;
    QDoubleSpinBox* m_onePerHours;
    QSpinBox* m_everySteps;
    QDoubleSpinBox* m_within;
    QSpinBox* m_hourly;
    QSpinBox* m_daily;
    QSpinBox* m_weekly;
    QSpinBox* m_monthly;
    QLineEdit* m_bestMetric;
    QSpinBox* m_bestCount;
    QComboBox* m_bestMode;
    QLineEdit* m_tags;
    QDoubleSpinBox* m_minAge;
    QLineEdit* m_diskBudget;
    QPlainTextEdit* m_json;
    QLabel* m_errorLabel;
    bool m_updating = false;  // showing a policy: the boxes' signals are ours
};

}  // namespace ckpt::ui
