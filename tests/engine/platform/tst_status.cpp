// Status and Result: the factories, errno mapping, and an OK status
// returned as an error, which must not yield a Result with neither a value
// nor a reason.

#include <QtTest>

#include <cerrno>

#include "ckpt/status.h"
#include "platform/file.h"

using namespace ckpt;

Q_DECLARE_METATYPE(ckpt::StatusCode)

class TstStatus : public QObject {
    Q_OBJECT
private slots:
    void factories() {
        QVERIFY(okStatus().isOk());
        QCOMPARE(okStatus().toString(), std::string("OK"));
        const Status s = dataLoss("checksum mismatch in x");
        QVERIFY(!s.isOk());
        QCOMPARE(s.toString(), std::string("DataLoss: checksum mismatch in x"));
        Result<int> value(7);
        QVERIFY(value.ok());
        QCOMPARE(*value, 7);
        Result<int> error(notFound("no such thing"));
        QVERIFY(!error.ok());
        QCOMPARE(error.status().code(), StatusCode::NotFound);
    }

    void okStatusAsAnErrorBecomesInternal() {
#ifdef NDEBUG
        // Debug builds stop at the assertion instead.
        Result<int> r(okStatus());
        QVERIFY(!r.ok());
        QCOMPARE(r.status().code(), StatusCode::Internal);
        QVERIFY(!r.status().message().empty());
#endif
    }

    void errnoMapping_data() {
        QTest::addColumn<int>("err");
        QTest::addColumn<StatusCode>("code");
        QTest::newRow("ENOENT") << ENOENT << StatusCode::NotFound;
        QTest::newRow("ENOTDIR") << ENOTDIR << StatusCode::NotFound;
        QTest::newRow("EACCES") << EACCES << StatusCode::PermissionDenied;
        QTest::newRow("EROFS") << EROFS << StatusCode::PermissionDenied;
        QTest::newRow("ENOSPC") << ENOSPC << StatusCode::ResourceExhausted;
        QTest::newRow("EDQUOT") << EDQUOT << StatusCode::ResourceExhausted;
        QTest::newRow("EIO") << EIO << StatusCode::DataLoss;
    }
    void errnoMapping() {
        QFETCH(int, err);
        QFETCH(StatusCode, code);
        const Status s = platform::statusFromErrno(err, "cannot write /x/y");
        QCOMPARE(s.code(), code);
        QVERIFY2(s.message().starts_with("cannot write /x/y: "), s.message().c_str());
        QVERIFY(s.message().size() > std::string("cannot write /x/y: ").size());
    }
};

QTEST_GUILESS_MAIN(TstStatus)
#include "tst_status.moc"
