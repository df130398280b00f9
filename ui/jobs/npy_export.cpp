#include "jobs/npy_export.h"

#include <QFile>
#include <QSaveFile>

#include <cstring>

#include "ckpt/dtype.h"
#include "ckpt/npy.h"

namespace ckpt::ui {

QString writeNpy(const Tensor& tensor, const QString& path) {
    if (tensor.dtype == DataType::String) return QObject::tr("String tensors cannot be saved as .npy without pickling.");
    std::string_view descr = npyDescr(tensor.dtype);
    QByteArray body;
    if (!descr.empty()) {
        body = QByteArray(reinterpret_cast<const char*>(tensor.bytes.data()), static_cast<qsizetype>(tensor.bytes.size()));
    } else if (isFloating(tensor.dtype)) {
        descr = "<f4";
        const int64_t n = tensor.numElements();
        body.resize(static_cast<qsizetype>(n) * 4);
        for (int64_t i = 0; i < n; ++i) {
            const float v = static_cast<float>(tensor.elementAsDouble(i));
            std::memcpy(body.data() + i * 4, &v, 4);
        }
    } else {
        return QObject::tr("%1 has no NumPy equivalent.").arg(QString::fromLatin1(dataTypeName(tensor.dtype)));
    }
    const std::string preamble = npyPreamble(descr, tensor.shape);
    QSaveFile f(path);
    if (!f.open(QIODevice::WriteOnly)) return QObject::tr("Cannot write %1: %2").arg(path, f.errorString());
    f.write(preamble.data(), static_cast<qint64>(preamble.size()));
    f.write(body);
    if (!f.commit()) return QObject::tr("Cannot write %1: %2").arg(path, f.errorString());
    return {};
}

}  // namespace ckpt::ui
