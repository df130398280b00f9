// The value grid's lazy slice model for tensors of every rank, and .npy export.

#include <QAbstractItemModelTester>
#include <QTemporaryDir>
#include <QtTest>

#include <cstring>

#include "explorer_test.h"
#include "ckpt/tensor.h"
#include "jobs/npy_export.h"
#include "models/tensor_slice_model.h"
#include "test_support.h"

using namespace ckpt;
using namespace ckpt::ui;

namespace {

std::shared_ptr<const Tensor> iota(std::vector<int64_t> dims) {
    auto t = std::make_shared<Tensor>();
    t->dtype = DataType::Float;
    t->shape.dims = std::move(dims);
    const int64_t n = t->numElements();
    t->bytes.resize(static_cast<size_t>(n) * 4);
    for (int64_t i = 0; i < n; ++i) {
        const float v = static_cast<float>(i);
        std::memcpy(t->bytes.data() + i * 4, &v, 4);
    }
    return t;
}

}  // namespace

class TstTensorSliceModel : public QObject {
    Q_OBJECT
private slots:
    void rank3SlicesAndAxes() {
        TensorSliceModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setTensor(iota({2, 3, 4}));
        QCOMPARE(model.rowCount(), 3);
        QCOMPARE(model.columnCount(), 4);
        QCOMPARE(model.index(2, 3).data().toString(), QStringLiteral("11"));
        model.setPinnedIndex(0, 1);
        QCOMPARE(model.index(2, 3).data().toString(), QStringLiteral("23"));
        model.setPinnedIndex(0, 5);  // out of range: ignored
        QCOMPARE(model.pinnedIndex(0), 1);
        // Rows = axis 0, columns = axis 2, axis 1 pinned.
        model.setAxes(0, 2);
        model.setPinnedIndex(1, 2);
        QCOMPARE(model.rowCount(), 2);
        QCOMPARE(model.columnCount(), 4);
        QCOMPARE(model.index(1, 1).data().toString(), QStringLiteral("21"));  // [1,2,1]
        model.setAxes(1, 1);                                                  // rejected
        QCOMPARE(model.rowAxis(), 0);
        QCOMPARE(model.copyText(0, 0, 1, 1), QStringLiteral("8\t9\n20\t21\n"));
    }

    void lowRanksAndEmpty() {
        TensorSliceModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setTensor(iota({}));
        QCOMPARE(model.rowCount(), 1);
        QCOMPARE(model.columnCount(), 1);
        QCOMPARE(model.index(0, 0).data().toString(), QStringLiteral("0"));
        model.setTensor(iota({5}));
        QCOMPARE(model.rowCount(), 5);
        QCOMPARE(model.columnCount(), 1);
        QCOMPARE(model.index(4, 0).data().toString(), QStringLiteral("4"));
        model.setTensor(iota({0, 3}));
        QCOMPARE(model.rowCount(), 0);
        model.setTensor(nullptr);
        QCOMPARE(model.rowCount(), 0);
    }

    void hugeAxesAreNotMaterialised() {
        // A 3 x 2^33 tensor cannot be allocated here, but the model only needs
        // the shape: a window of kMaxColumns columns moves along the axis,
        // its headers naming the real indices, without touching memory.
        auto t = std::make_shared<Tensor>();
        t->dtype = DataType::Float;
        t->shape.dims = {3, int64_t(1) << 33};
        TensorSliceModel model;
        model.setTensor(t);
        QCOMPARE(model.columnCount(), TensorSliceModel::kMaxColumns);
        QCOMPARE(model.totalColumns(), int64_t(1) << 33);
        QCOMPARE(model.elementAt(2, 7), (int64_t(2) << 33) + 7);
        model.setWindow(0, (int64_t(1) << 33) - 5);  // clamped to the last full window
        QCOMPARE(model.columnOffset(), (int64_t(1) << 33) - TensorSliceModel::kMaxColumns);
        QCOMPARE(model.headerData(TensorSliceModel::kMaxColumns - 1, Qt::Horizontal).toString(),
                 QString::number((int64_t(1) << 33) - 1));
        QCOMPARE(model.elementAt(1, TensorSliceModel::kMaxColumns - 1), (int64_t(2) << 33) - 1);
        model.setAxes(1, 0);  // a new slice starts at the beginning
        QCOMPARE(model.rowOffset(), 0);
        QCOMPARE(model.rowCount(), TensorSliceModel::kMaxRows);
        QCOMPARE(model.columnCount(), 3);
    }

    void stringsAndBools() {
        auto s = std::make_shared<Tensor>();
        s->dtype = DataType::String;
        s->shape.dims = {2};
        s->strings = {"hello", std::string(300, 'x')};
        TensorSliceModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setTensor(s);
        QCOMPARE(model.index(0, 0).data().toString(), QStringLiteral("hello"));
        QVERIFY(model.index(1, 0).data().toString().contains(QStringLiteral("300 bytes")));
        auto b = std::make_shared<Tensor>();
        b->dtype = DataType::Bool;
        b->shape.dims = {2};
        b->bytes = {0, 1};
        model.setTensor(b);
        QCOMPARE(model.index(1, 0).data().toString(), QStringLiteral("true"));
    }

    void npyExport() {
        QTemporaryDir tmp;
        const QString path = tmp.filePath(QStringLiteral("t.npy"));
        QCOMPARE(writeNpy(*iota({2, 3}), path), QString());
        const QByteArray f = ckpt::testing::readAll(path);
        QVERIFY(f.startsWith(QByteArray("\x93NUMPY\x01\x00", 8)));
        const int headerLen = static_cast<uint8_t>(f[8]) | (static_cast<uint8_t>(f[9]) << 8);
        QCOMPARE((10 + headerLen) % 64, 0);
        const QByteArray header = f.mid(10, headerLen);
        QVERIFY2(header.contains("'descr': '<f4'"), header.constData());
        QVERIFY2(header.contains("'shape': (2, 3)"), header.constData());
        QCOMPARE(f.size(), 10 + headerLen + 24);
        float last = 0;
        std::memcpy(&last, f.constData() + f.size() - 4, 4);
        QCOMPARE(last, 5.0f);
        QCOMPARE(writeNpy(*iota({4}), path), QString());
        QVERIFY(ckpt::testing::readAll(path).contains("'shape': (4,)"));
        Tensor s;
        s.dtype = DataType::String;
        QVERIFY(!writeNpy(s, path).isEmpty());
    }
};

CKPT_EXPLORER_TEST_MAIN(TstTensorSliceModel)
#include "tst_tensor_slice_model.moc"
