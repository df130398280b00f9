#pragma once
// A 2-D window onto a tensor of any rank: one axis runs down the rows, one
// across the columns, every other axis is pinned to an index. data() maps a
// cell to a flat element on demand, so nothing proportional to the tensor is
// ever built; the view only asks for the cells it paints.

#include <QAbstractTableModel>

#include <memory>
#include <vector>

#include "ckpt/tensor.h"

namespace ckpt::ui {

class TensorSliceModel : public QAbstractTableModel {
    Q_OBJECT
public:
    using QAbstractTableModel::QAbstractTableModel;

    // Resets the model: rows = last-but-one axis, columns = last axis.
    void setTensor(std::shared_ptr<const Tensor> tensor);
    const std::shared_ptr<const Tensor>& tensor() const { return m_tensor; }

    int rank() const { return m_tensor ? m_tensor->shape.rank() : 0; }
    int rowAxis() const { return m_rowAxis; }
    int columnAxis() const { return m_columnAxis; }
    // -1 for no axis (rank 0, or rank 1 columns). Distinct axes; resets the model.
    void setAxes(int rowAxis, int columnAxis);
    int64_t pinnedIndex(int axis) const { return m_pinned[static_cast<size_t>(axis)]; }
    void setPinnedIndex(int axis, int64_t index);

    // Flat element index of a cell, -1 outside the tensor.
    int64_t elementAt(int row, int column) const;
    QString formatElement(int64_t flat) const;
    // Tab-separated text of a rectangular block, for the clipboard.
    QString copyText(int top, int left, int bottom, int right) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

signals:
    void sliceChanged();

private:
    int64_t extent(int axis) const;

    std::shared_ptr<const Tensor> m_tensor;
    std::vector<int64_t> m_strides;
    std::vector<int64_t> m_pinned;
    int m_rowAxis = -1;
    int m_columnAxis = -1;
};

}  // namespace ckpt::ui
