#pragma once
// A 2-D window onto a tensor of any rank: one axis runs down the rows, one
// across the columns, every other axis is pinned to an index. data() maps a
// cell to a flat element on demand, so nothing proportional to the tensor is
// ever built; the view only asks for the cells it paints.
//
// The window is bounded too: at most kMaxRows rows and kMaxColumns columns
// starting at an offset along each axis. A view keeps one header section
// per row (QHeaderView's section list) and lays rows out in int pixels, so a
// 1-D tensor of 134 million elements shown whole would build 134 million
// sections and overflow the scroll range on the GUI thread; its window
// shows 100,000 rows at a time and the headers name the real indices.

#include <QAbstractTableModel>

#include <memory>
#include <vector>

#include "ckpt/tensor.h"

namespace ckpt::ui {

class TensorSliceModel : public QAbstractTableModel {
    Q_OBJECT
public:
    // The window's bounds: a few MiB of header sections, and well inside
    // the int pixel range at any row height or column width.
    static constexpr int kMaxRows = 100'000;
    static constexpr int kMaxColumns = 10'000;

    using QAbstractTableModel::QAbstractTableModel;

    // Resets the model: rows = last-but-one axis, columns = last axis, the
    // window at the start.
    void setTensor(std::shared_ptr<const Tensor> tensor);
    const std::shared_ptr<const Tensor>& tensor() const { return m_tensor; }

    int rank() const { return m_tensor ? m_tensor->shape.rank() : 0; }
    int rowAxis() const { return m_rowAxis; }
    int columnAxis() const { return m_columnAxis; }
    // -1 for no axis (rank 0, or rank 1 columns). Distinct axes; resets the
    // model and moves the window back to the start.
    void setAxes(int rowAxis, int columnAxis);
    int64_t pinnedIndex(int axis) const { return m_pinned[static_cast<size_t>(axis)]; }
    void setPinnedIndex(int axis, int64_t index);

    // How many rows and columns the slice has in all (the axes' extents),
    // and where the window starts; rowCount()/columnCount() are the window's.
    int64_t totalRows() const;
    int64_t totalColumns() const;
    int64_t rowOffset() const { return m_rowOffset; }
    int64_t columnOffset() const { return m_columnOffset; }
    // Moves the window so that it starts at (or as close as it can to)
    // these offsets; resets the model when it moved.
    void setWindow(int64_t rowOffset, int64_t columnOffset);

    // Flat element index of a window cell, -1 outside the tensor.
    int64_t elementAt(int row, int column) const;
    QString formatElement(int64_t flat) const;
    // Tab-separated text of a rectangular block of window cells, for the clipboard.
    QString copyText(int top, int left, int bottom, int right) const;
    // A text at least as wide as any element of this dtype is formatted
    // (for column widths that never elide a number); empty for strings.
    QString widestElementText() const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    // The real index along the axis (the window's offset added).
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

signals:
    // The slice or the window changed.
    void sliceChanged();

private:
    int64_t extent(int axis) const;

    std::shared_ptr<const Tensor> m_tensor;
    std::vector<int64_t> m_strides;
    std::vector<int64_t> m_pinned;
    int m_rowAxis = -1;
    int m_columnAxis = -1;
    int64_t m_rowOffset = 0;
    int64_t m_columnOffset = 0;
};

}  // namespace ckpt::ui
