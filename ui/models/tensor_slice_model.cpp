#include "models/tensor_slice_model.h"

#include <QFont>
#include <QFontDatabase>

#include <algorithm>
#include <cmath>
#include <complex>

#include "ckpt/dtype.h"

namespace ckpt::ui {
namespace {

QString formatFloat(double v) {
    if (std::isnan(v)) return QStringLiteral("nan");
    if (std::isinf(v)) return v > 0 ? QStringLiteral("inf") : QStringLiteral("-inf");
    return QString::number(v, 'g', 7);
}

}  // namespace

void TensorSliceModel::setTensor(std::shared_ptr<const Tensor> tensor) {
    beginResetModel();
    m_tensor = std::move(tensor);
    const int r = rank();
    m_strides.assign(static_cast<size_t>(r), 1);
    for (int a = r - 2; a >= 0; --a)
        m_strides[static_cast<size_t>(a)] =
            m_strides[static_cast<size_t>(a) + 1] * m_tensor->shape.dims[static_cast<size_t>(a) + 1];
    m_pinned.assign(static_cast<size_t>(r), 0);
    m_rowAxis = r >= 2 ? r - 2 : (r == 1 ? 0 : -1);
    m_columnAxis = r >= 2 ? r - 1 : -1;
    m_rowOffset = m_columnOffset = 0;
    endResetModel();
    emit sliceChanged();
}

void TensorSliceModel::setAxes(int rowAxis, int columnAxis) {
    if (rowAxis >= rank() || columnAxis >= rank() || (rowAxis >= 0 && rowAxis == columnAxis)) return;
    beginResetModel();
    m_rowAxis = rowAxis;
    m_columnAxis = columnAxis;
    m_rowOffset = m_columnOffset = 0;
    endResetModel();
    emit sliceChanged();
}

void TensorSliceModel::setPinnedIndex(int axis, int64_t index) {
    if (axis < 0 || axis >= rank() || index < 0 || index >= extent(axis)) return;
    m_pinned[static_cast<size_t>(axis)] = index;
    if (rowCount() > 0 && columnCount() > 0) emit dataChanged(this->index(0, 0), this->index(rowCount() - 1, columnCount() - 1));
    emit sliceChanged();
}

int64_t TensorSliceModel::extent(int axis) const { return m_tensor->shape.dims[static_cast<size_t>(axis)]; }

int64_t TensorSliceModel::totalRows() const {
    if (!m_tensor || m_tensor->numElements() == 0) return 0;
    return m_rowAxis < 0 ? 1 : extent(m_rowAxis);
}

int64_t TensorSliceModel::totalColumns() const {
    if (!m_tensor || m_tensor->numElements() == 0) return 0;
    return m_columnAxis < 0 ? 1 : extent(m_columnAxis);
}

void TensorSliceModel::setWindow(int64_t rowOffset, int64_t columnOffset) {
    // Clamped so that a full window fits whenever the axis allows one.
    rowOffset = std::clamp<int64_t>(rowOffset, 0, std::max<int64_t>(0, totalRows() - kMaxRows));
    columnOffset = std::clamp<int64_t>(columnOffset, 0, std::max<int64_t>(0, totalColumns() - kMaxColumns));
    if (rowOffset == m_rowOffset && columnOffset == m_columnOffset) return;
    beginResetModel();
    m_rowOffset = rowOffset;
    m_columnOffset = columnOffset;
    endResetModel();
    emit sliceChanged();
}

int TensorSliceModel::rowCount(const QModelIndex& parent) const {
    if (parent.isValid()) return 0;
    return static_cast<int>(std::min<int64_t>(totalRows() - m_rowOffset, kMaxRows));
}

int TensorSliceModel::columnCount(const QModelIndex& parent) const {
    if (parent.isValid()) return 0;
    return static_cast<int>(std::min<int64_t>(totalColumns() - m_columnOffset, kMaxColumns));
}

int64_t TensorSliceModel::elementAt(int row, int column) const {
    if (!m_tensor || row < 0 || column < 0 || row >= rowCount() || column >= columnCount()) return -1;
    int64_t flat = 0;
    for (int a = 0; a < rank(); ++a) {
        int64_t i = m_pinned[static_cast<size_t>(a)];
        if (a == m_rowAxis) i = m_rowOffset + row;
        if (a == m_columnAxis) i = m_columnOffset + column;
        flat += i * m_strides[static_cast<size_t>(a)];
    }
    return flat;
}

QString TensorSliceModel::widestElementText() const {
    if (!m_tensor) return {};
    const DataType dtype = m_tensor->dtype;
    // formatFloat: sign, 7 significant digits, the point and a 3-digit exponent.
    QString real = QStringLiteral("-8.888888e-308");
    if (isComplex(dtype)) return real + QLatin1Char('-') + real.mid(1) + QLatin1Char('j');
    if (isFloating(dtype)) return real;
    switch (dtype) {
    case DataType::String: return {};
    case DataType::Bool: return QStringLiteral("false");
    default: break;
    }
    // Integers: the longest decimal of their width, sign included.
    switch (dataTypeSize(dtype)) {
    case 1: return QStringLiteral("-128");
    case 2: return QStringLiteral("-32768");
    case 4: return QStringLiteral("-2147483648");
    default: return QStringLiteral("-9223372036854775808");
    }
}

QString TensorSliceModel::formatElement(int64_t flat) const {
    const Tensor& t = *m_tensor;
    const auto i = static_cast<size_t>(flat);
    switch (t.dtype) {
    case DataType::String: {
        const std::string& s = t.strings[i];
        QString text = QString::fromUtf8(s.data(), static_cast<qsizetype>(std::min<size_t>(s.size(), 200)));
        if (s.size() > 200) text += QStringLiteral("\u2026 (%1 bytes)").arg(s.size());
        return text;
    }
    case DataType::Bool: return t.bytes[i] ? QStringLiteral("true") : QStringLiteral("false");
    case DataType::Int64: return QString::number(t.as<int64_t>()[i]);
    case DataType::UInt64: return QString::number(t.as<uint64_t>()[i]);
    case DataType::Complex64: {
        const auto c = t.as<std::complex<float>>()[i];
        return formatFloat(c.real()) + (c.imag() < 0 ? QStringLiteral("-") : QStringLiteral("+")) +
               formatFloat(std::abs(c.imag())) + QStringLiteral("j");
    }
    case DataType::Complex128: {
        const auto c = t.as<std::complex<double>>()[i];
        return formatFloat(c.real()) + (c.imag() < 0 ? QStringLiteral("-") : QStringLiteral("+")) +
               formatFloat(std::abs(c.imag())) + QStringLiteral("j");
    }
    default:
        if (isFloating(t.dtype)) return formatFloat(t.elementAsDouble(flat));
        return QString::number(static_cast<int64_t>(t.elementAsDouble(flat)));
    }
}

QString TensorSliceModel::copyText(int top, int left, int bottom, int right) const {
    QString out;
    for (int r = top; r <= bottom; ++r) {
        for (int c = left; c <= right; ++c) {
            const int64_t flat = elementAt(r, c);
            if (c > left) out += QLatin1Char('\t');
            if (flat >= 0) out += formatElement(flat);
        }
        out += QLatin1Char('\n');
    }
    return out;
}

QVariant TensorSliceModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid()) return {};
    const int64_t flat = elementAt(index.row(), index.column());
    if (flat < 0) return {};
    switch (role) {
    case Qt::DisplayRole:
    case Qt::ToolTipRole: return formatElement(flat);
    case Qt::TextAlignmentRole:
        return m_tensor->dtype == DataType::String ? QVariant(Qt::AlignLeft | Qt::AlignVCenter)
                                                   : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    case Qt::FontRole: {
        static const QFont fixed = QFontDatabase::systemFont(QFontDatabase::FixedFont);
        return fixed;
    }
    }
    return {};
}

QVariant TensorSliceModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (role != Qt::DisplayRole) return {};
    return QString::number((orientation == Qt::Vertical ? m_rowOffset : m_columnOffset) + section);
}

}  // namespace ckpt::ui
