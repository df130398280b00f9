#include "jobs/npy_export.h"

#include <QFile>
#include <QSaveFile>

#include <cstring>

#include "ckpt/dtype.h"

namespace ckpt::ui {
namespace {

// NumPy's descr for types stored byte-for-byte; nullptr when there is none.
const char* npyDescr(DataType t) {
    switch (t) {
    case DataType::Float: return "<f4";
    case DataType::Double: return "<f8";
    case DataType::Half: return "<f2";
    case DataType::Int8: return "|i1";
    case DataType::Int16: return "<i2";
    case DataType::Int32: return "<i4";
    case DataType::Int64: return "<i8";
    case DataType::UInt8: return "|u1";
    case DataType::UInt16: return "<u2";
    case DataType::UInt32: return "<u4";
    case DataType::UInt64: return "<u8";
    case DataType::Bool: return "|b1";
    case DataType::Complex64: return "<c8";
    case DataType::Complex128: return "<c16";
    default: return nullptr;
    }
}

} // namespace

QString writeNpy(const Tensor& tensor, const QString& path) {
    if (tensor.dtype == DataType::String) return QObject::tr("String tensors cannot be saved as .npy without pickling.");
    const char* descr = npyDescr(tensor.dtype);
    QByteArray body;
    if (descr) {
        body = QByteArray(reinterpret_cast<const char*>(tensor.bytes.data()), static_cast<qsizetype>(tensor.bytes.size()));
    } else if (isFloating(tensor.dtype)) {
        descr = "<f4";
        const int64_t n = tensor.numElements();
        body.resize(static_cast<qsizetype>(n * 4));
        for (int64_t i = 0; i < n; ++i) {
            const float v = static_cast<float>(tensor.elementAsDouble(i));
            std::memcpy(body.data() + i * 4, &v, 4);
        }
    } else {
        return QObject::tr("%1 has no NumPy equivalent.").arg(QString::fromLatin1(dataTypeName(tensor.dtype)));
    }
    QByteArray shape = "(";
    for (int64_t d : tensor.shape.dims) shape += QByteArray::number(d) + ", ";
    // "(3,)" for rank 1, "(3, 4)" above: Python's tuple spelling.
    if (tensor.shape.rank() > 1) shape.chop(2);
    else if (tensor.shape.rank() == 1) shape.chop(1);
    shape += ")";
    QByteArray header = "{'descr': '" + QByteArray(descr) + "', 'fortran_order': False, 'shape': " + shape + ", }";
    // Magic (6) + version (2) + length (2) + header + '\n' is a multiple of 64.
    const qsizetype unpadded = 10 + header.size() + 1;
    header += QByteArray((64 - unpadded % 64) % 64, ' ');
    header += '\n';
    QSaveFile f(path);
    if (!f.open(QIODevice::WriteOnly)) return QObject::tr("Cannot write %1: %2").arg(path, f.errorString());
    QByteArray prefix("\x93NUMPY\x01\x00", 8);
    const auto len = static_cast<uint16_t>(header.size());
    prefix += static_cast<char>(len & 0xff);
    prefix += static_cast<char>(len >> 8);
    f.write(prefix);
    f.write(header);
    f.write(body);
    if (!f.commit()) return QObject::tr("Cannot write %1: %2").arg(path, f.errorString());
    return {};
}

} // namespace ckpt::ui
