#pragma once
// The value grid: per-axis slice selectors (which axis runs down, which
// across, and an index spin box for every other axis) over a lazy
// TensorSliceModel, with Copy and Export .npy.

#include <QList>

#include "views/inspector_page.h"

class QComboBox;
class QHBoxLayout;
class QLabel;
class QPushButton;
class QSpinBox;
class QTableView;

namespace ckpt::ui {

class TensorSliceModel;

class ValuesPage : public InspectorPage {
    Q_OBJECT
public:
    explicit ValuesPage(QWidget* parent = nullptr);
    QString pageTitle() const override { return tr("Values"); }
    void setSelection(const TensorSelection& selection) override;
    void setValues(std::shared_ptr<const Tensor> values) override;

    TensorSliceModel* model() const { return m_model; }
    QTableView* table() const { return m_table; }
    QComboBox* rowAxisBox() const { return m_rowAxis; }
    QComboBox* columnAxisBox() const { return m_columnAxis; }
    QList<QSpinBox*> pinnedBoxes() const { return m_pinned; }
    void copySelection();
    // Writes the current tensor; returns the error message, empty on success.
    QString exportNpy(const QString& path);

private:
    void rebuildSelectors();
    void applyAxes();
    void exportInteractive();

    TensorSelection m_selection;
    TensorSliceModel* m_model;
    QTableView* m_table;
    QLabel* m_message;
    QWidget* m_selectors;
    QComboBox* m_rowAxis;
    QComboBox* m_columnAxis;
    QHBoxLayout* m_pinnedLayout;
    QList<QSpinBox*> m_pinned;
    QPushButton* m_copy;
    QPushButton* m_export;
};

}  // namespace ckpt::ui
