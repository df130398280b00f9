// Every case of the corruption zoo (tests/zoo/corruption_zoo.h) through the
// built `ckpt`: the exact exit code and error line for each command
// (tests/zoo/zoo_expectations.cpp), within a time and memory budget, run as
// a measured child process. A crash, a hang or a runaway allocation fails
// the row instead of the machine: children are killed after 10 s and
// capped at 4 GiB of address space.

#include <QtTest>

#include <map>

#include "corruption_zoo.h"
#include "test_support.h"
#include "zoo_expectations.h"

using namespace ckpt;

namespace {

constexpr int kKillAfterMs = 10000;
// AddressSanitizer reserves terabytes of address space: no cap under it.
#if CKPT_UNDER_ASAN
constexpr quint64 kAddressSpaceCap = 0;
#else
constexpr quint64 kAddressSpaceCap = quint64(4) << 30;
#endif

QStringList argsFor(const zoo::ZooCase& c, const std::string& command) {
    QStringList args{QString::fromStdString(command), QString::fromStdString(c.path)};
    if (command == "cat" || command == "stats") args << QString::fromStdString(c.key);
    return args;
}

bool hasLineContaining(const QByteArray& output, const std::string& text) {
    for (const QByteArray& line : output.split('\n'))
        if (line.toStdString().find(text) != std::string::npos) return true;
    return false;
}

}  // namespace

class TstCorruptionZoo : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        if (ckpt::testing::realTestDataDir().isEmpty()) CKPT_MISSING_CORPUS();
        QVERIFY(m_root.isValid());
        auto built = zoo::buildZoo(m_root.path().toStdString(), ckpt::testing::realTestDataDir().toStdString());
        QVERIFY2(built.ok(), built.status().toString().c_str());
        for (zoo::ZooCase& c : *built) m_cases.emplace(c.name, std::move(c));
        QVERIFY2(m_cases.size() >= 60, qPrintable(QStringLiteral("only %1 cases").arg(m_cases.size())));
    }

    // Each case has rows, and each row names a case the zoo builds.
    void tableCoversTheZoo() {
        std::map<std::string, int> rows;
        for (const zoo::ZooExpectation& e : zoo::zooExpectations()) {
            QVERIFY2(m_cases.count(e.caseName), e.caseName);
            ++rows[e.caseName];
        }
        for (const auto& [name, c] : m_cases) QVERIFY2(rows[name] > 0, name.c_str());
    }

    void command_data() {
        QTest::addColumn<QString>("caseName");
        QTest::addColumn<QString>("command");
        QTest::addColumn<int>("exitCode");
        QTest::addColumn<QString>("text");
        for (const zoo::ZooExpectation& e : zoo::zooExpectations())
            QTest::newRow(qPrintable(QStringLiteral("%1 %2").arg(QLatin1String(e.caseName), QLatin1String(e.command))))
                << QString::fromLatin1(e.caseName) << QString::fromLatin1(e.command) << e.exitCode << QString::fromUtf8(e.text);
    }
    void command() {
        QFETCH(QString, caseName);
        QFETCH(QString, command);
        QFETCH(int, exitCode);
        QFETCH(QString, text);
        const auto found = m_cases.find(caseName.toStdString());
        QVERIFY(found != m_cases.end());
        const zoo::ZooCase& c = found->second;
        const auto run = ckpt::testing::runCkptMeasured(argsFor(c, command.toStdString()), kKillAfterMs, kAddressSpaceCap);
        const std::string expected = zoo::expandZooText(text.toStdString(), c.dir);

        QStringList wrong;
        if (run.timedOut) wrong << QStringLiteral("killed after %1 ms").arg(kKillAfterMs);
        else if (run.signal) wrong << QStringLiteral("ended by signal %1").arg(run.signal);
        else if (run.exitCode != exitCode) wrong << QStringLiteral("exit code %1, expected %2").arg(run.exitCode).arg(exitCode);
        if (!hasLineContaining(run.out, expected) && !hasLineContaining(run.err, expected))
            wrong << QStringLiteral("no line contains \"%1\"").arg(QString::fromStdString(expected));
        if (run.wallSeconds >= zoo::kZooMaxWallSeconds) wrong << QStringLiteral("took %1 s").arg(run.wallSeconds);
        if (run.peakRssKiB >= zoo::kZooMaxPeakRssKiB) wrong << QStringLiteral("peak RSS %1 KiB").arg(run.peakRssKiB);
        qInfo("%s %s: exit %d, %.3f s, %ld KiB", qPrintable(caseName), qPrintable(command), run.exitCode, run.wallSeconds,
              run.peakRssKiB);

        if (const char* reason = zoo::awaitingFix(c.name, command.toStdString())) QEXPECT_FAIL("", reason, Abort);
        QVERIFY2(wrong.isEmpty(), qPrintable(wrong.join(QStringLiteral("; ")) + QStringLiteral("\nstdout: ") +
                                             QString::fromUtf8(run.out.left(2000)) + QStringLiteral("\nstderr: ") +
                                             QString::fromUtf8(run.err.left(2000))));
    }

private:
    QTemporaryDir m_root;
    std::map<std::string, zoo::ZooCase> m_cases;
};

QTEST_GUILESS_MAIN(TstCorruptionZoo)
#include "tst_corruption_zoo.moc"
