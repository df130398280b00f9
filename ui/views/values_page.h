#pragma once
// The value grid: per-axis slice selectors (which axis runs down, which
// across, and an index spin box for every other axis) over a lazy
// TensorSliceModel, with Copy and Export .npy. An axis longer than the
// model's window gets a "from" box that moves the window along it; columns
// are as wide as the dtype's longest number, so no value is elided.

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
    void setValuesState(ValuesState state, const QString& detail) override;

    TensorSliceModel* model() const { return m_model; }
    QTableView* table() const { return m_table; }
    QComboBox* rowAxisBox() const { return m_rowAxis; }
    QComboBox* columnAxisBox() const { return m_columnAxis; }
    QList<QSpinBox*> pinnedBoxes() const { return m_pinned; }
    // Where the window starts along the rows and the columns (shown only
    // when that axis is longer than the window).
    QSpinBox* rowStartBox() const { return m_rowStart; }
    QSpinBox* columnStartBox() const { return m_columnStart; }
    QString message() const;
    void copySelection();
    // Writes the current tensor; returns the error message, empty on success.
    QString exportNpy(const QString& path);

private:
    void rebuildSelectors();
    void updateWindowBoxes();
    void fitColumns();
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
    QWidget* m_window;  // the window's "from" boxes and what they show
    QSpinBox* m_rowStart;
    QSpinBox* m_columnStart;
    QLabel* m_windowText;
    QPushButton* m_copy;
    QPushButton* m_export;
};

}  // namespace ckpt::ui
