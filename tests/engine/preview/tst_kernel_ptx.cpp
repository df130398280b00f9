// The CUDA kernels' PTX, checked on any machine with nvcc (no GPU needed):
// an element of 2 bytes or more is loaded with one typed load. memcpy loads
// (right on the host, where tensors sit unaligned in a bundle) made nvcc
// split every device load into bytes once, and only a GPU benchmark would
// have noticed.

#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

#include "test_support.h"

#ifndef CKPT_NVCC
#error "CKPT_NVCC names the CUDA compiler"
#endif

namespace {

// Bytes of an element of ElementKind value k (preview_element.h's order).
int elementBytes(int k) {
    static const int bytes[] = {4, 8, 2, 2, 1, 2, 4, 8, 1, 2, 4, 8, 1, 8, 16};
    return k >= 0 && k < 15 ? bytes[k] : 0;
}

}  // namespace

class TstKernelPtx : public QObject {
    Q_OBJECT

private slots:
    void elementLoadsAreTyped() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString src = qEnvironmentVariable("CKPT_SOURCE_DIR");
        QVERIFY(!src.isEmpty());
        const QString ptx = dir.filePath(QStringLiteral("kernels.ptx"));
        QProcess nvcc;
        nvcc.start(QStringLiteral(CKPT_NVCC),
                   {"-std=c++17", "-O3", "-fmad=false", "-arch=sm_90", "-I" + src + "/engine", "-I" + src + "/engine/include",
                    "-ptx", src + "/engine/preview/cuda/preview_kernels.cu", "-o", ptx});
        QVERIFY(nvcc.waitForFinished(240000));
        QVERIFY2(nvcc.exitCode() == 0, nvcc.readAllStandardError().constData());
        QFile f(ptx);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QString text = QString::fromUtf8(f.readAll());
        const QRegularExpression kindOf(QStringLiteral("ElementKindE(\\d+)E"));
        const QRegularExpression byteLoad(QStringLiteral("ld\\.global(\\.nc)?\\.[us]8"));
        int checked = 0;
        for (const QString& entry : text.split(QStringLiteral(".entry "), Qt::SkipEmptyParts)) {
            const QString name = entry.section(QLatin1Char('('), 0, 0);
            const auto m = kindOf.match(name);
            if (!m.hasMatch() || elementBytes(m.captured(1).toInt()) < 2) continue;
            const QString body = entry.section(QLatin1Char('{'), 1);
            QVERIFY2(!byteLoad.match(body).hasMatch(), qPrintable(name + QStringLiteral(" loads its elements a byte at a time")));
            ++checked;
        }
        // Stats and histogram kernels of the twelve kinds of 2 bytes or more.
        QVERIFY2(checked >= 24, qPrintable(QString::number(checked)));
    }
};

QTEST_GUILESS_MAIN(TstKernelPtx)
#include "tst_kernel_ptx.moc"
