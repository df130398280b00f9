// Every ckpt command refuses a location it has no storage for: a URL of an
// unknown scheme ("foo://") names the scheme in a clear error, exits
// non-zero and leaves nothing behind (no local directory called "foo:").
// s3:// and gs:// take the same path: refused while no object-store backend
// is registered, served by it once one is; either way no command writes a
// local directory called "s3:" (which `ckpt reshard ... s3://...` used to).
// The rows are checked against `ckpt --help`, so a new command without a row
// fails here.

#include <QDir>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

#include "test_support.h"

namespace {

struct Run {
    int exitCode = -1;
    QByteArray out, err;
};

// Subcommand names listed under "Subcommands:" in a help text.
QStringList subcommands(const QByteArray& help) {
    QStringList names;
    bool inList = false;
    for (const QByteArray& line : help.split('\n')) {
        if (line.startsWith("Subcommands:")) {
            inList = true;
            continue;
        }
        if (!inList) continue;
        const QRegularExpressionMatch m = QRegularExpression(QStringLiteral("^  ([a-z][a-z-]*) ")).match(QString::fromUtf8(line));
        if (m.hasMatch()) names << m.captured(1);
    }
    return names;
}

}  // namespace

class TstCliStorageSchemes : public QObject {
    Q_OBJECT

    QTemporaryDir m_work;  // the commands' working directory
    QTemporaryDir m_home;  // XDG_DATA_HOME: default catalog and store
    QString m_ckpt;        // a local checkpoint the commands can read
    QString m_spec;        // its model spec

    Run ckpt(const QStringList& args) {
        QProcess p;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("XDG_DATA_HOME"), m_home.path());
        // No credentials anywhere (no ~/.aws of the machine's user, no
        // AWS_/GS_ variables): an s3:// row stops at "no credentials"
        // before any request, so nothing leaves this machine.
        env.insert(QStringLiteral("HOME"), m_home.path());
        for (const QString& name : env.keys())
            if (name.startsWith(QLatin1String("AWS_")) || name.startsWith(QLatin1String("GS_"))) env.remove(name);
        p.setProcessEnvironment(env);
        p.setWorkingDirectory(m_work.path());
        p.start(ckpt::testing::binaryDir() + QStringLiteral("/app/cli/ckpt"), args);
        p.waitForFinished(120000);
        return {p.exitCode(), p.readAllStandardOutput(), p.readAllStandardError()};
    }

    // What the working directory holds besides the fixtures: must stay empty.
    QStringList strays() const {
        QStringList names = QDir(m_work.path()).entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden);
        names.removeAll(QStringLiteral("run"));
        names.removeAll(QStringLiteral("spec.json"));
        names.removeAll(QStringLiteral("in.safetensors"));
        return names;
    }

    // Each row: a name and the command's words, with LOC where the location goes.
    static std::vector<std::pair<const char*, QStringList>> table(const QString& loc) {
        std::vector<std::pair<const char*, QStringList>> out;
        const QString schedule = QStringLiteral("copy-") + loc.left(loc.indexOf(QLatin1Char(':')));
        const auto row = [&](const char* name, const QStringList& args) {
            QStringList filled;
            for (const QString& a : args)
                filled << (a == QLatin1String("copy") ? schedule : QString(a).replace(QStringLiteral("LOC"), loc));
            out.emplace_back(name, filled);
        };
        const QString ck = QStringLiteral("run/ckpt-1");
        const QString key = QStringLiteral("model/layer_with_weights-0/kernel/.ATTRIBUTES/VARIABLE_VALUE");
        row("inspect", {QStringLiteral("inspect"), QStringLiteral("LOC/ckpt-1")});
        row("verify", {QStringLiteral("verify"), QStringLiteral("LOC/ckpt-1")});
        row("cat", {QStringLiteral("cat"), QStringLiteral("LOC/ckpt-1"), key});
        row("tree", {QStringLiteral("tree"), QStringLiteral("LOC/ckpt-1")});
        row("stats", {QStringLiteral("stats"), QStringLiteral("LOC/ckpt-1"), key});
        row("histogram", {QStringLiteral("histogram"), QStringLiteral("LOC/ckpt-1"), key});
        row("preview source",
            {QStringLiteral("preview"), QStringLiteral("LOC/ckpt-1"), key, QStringLiteral("--png"), QStringLiteral("out.png")});
        row("preview png", {QStringLiteral("preview"), ck, key, QStringLiteral("--png"), QStringLiteral("LOC/out.png")});
        row("restore source", {QStringLiteral("restore"), QStringLiteral("LOC/ckpt-1"), QStringLiteral("--into"),
                               QStringLiteral("spec.json"), QStringLiteral("--no-record")});
        row("restore into", {QStringLiteral("restore"), ck, QStringLiteral("--into"), QStringLiteral("LOC/spec.json"),
                             QStringLiteral("--no-record")});
        row("restore out", {QStringLiteral("restore"), ck, QStringLiteral("--into"), QStringLiteral("spec.json"),
                            QStringLiteral("--out"), QStringLiteral("LOC/restored"), QStringLiteral("--no-record")});
        // The restore history is a side output: a catalog the restore cannot
        // record in is a warning, and the restore's own result stands.
        row("restore catalog (warning)", {QStringLiteral("restore"), ck, QStringLiteral("--into"), QStringLiteral("spec.json"),
                                          QStringLiteral("--catalog"), QStringLiteral("LOC/catalog.db")});
        row("spec", {QStringLiteral("spec"), QStringLiteral("LOC/ckpt-1")});
        row("demo-train",
            {QStringLiteral("demo-train"), QStringLiteral("LOC/demo"), QStringLiteral("--steps"), QStringLiteral("5")});
        row("latest", {QStringLiteral("latest"), QStringLiteral("LOC")});
        row("list", {QStringLiteral("list"), QStringLiteral("LOC")});
        row("reshard source", {QStringLiteral("reshard"), QStringLiteral("LOC/ckpt-1"), QStringLiteral("out/ckpt-1"),
                               QStringLiteral("--shards"), QStringLiteral("2")});
        row("reshard destination",
            {QStringLiteral("reshard"), ck, QStringLiteral("LOC/out/ckpt-1"), QStringLiteral("--shards"), QStringLiteral("2")});
        row("merge destination", {QStringLiteral("merge"), QStringLiteral("LOC/merged"), ck, QStringLiteral("run/ckpt-2")});
        row("merge source", {QStringLiteral("merge"), QStringLiteral("merged"), ck, QStringLiteral("LOC/ckpt-1")});
        row("merge average",
            {QStringLiteral("merge"), QStringLiteral("--average"), QStringLiteral("LOC/avg"), ck, QStringLiteral("run/ckpt-2")});
        row("edit source", {QStringLiteral("edit"), QStringLiteral("LOC/ckpt-1"), QStringLiteral("edited"),
                            QStringLiteral("--strip-optimizer")});
        row("edit destination", {QStringLiteral("edit"), ck, QStringLiteral("LOC/edited"), QStringLiteral("--strip-optimizer")});
        row("export source", {QStringLiteral("export"), QStringLiteral("LOC/ckpt-1"), QStringLiteral("out.safetensors")});
        row("export safetensors", {QStringLiteral("export"), ck, QStringLiteral("LOC/out.safetensors")});
        row("export npz", {QStringLiteral("export"), ck, QStringLiteral("LOC/out.npz")});
        row("import input", {QStringLiteral("import"), QStringLiteral("LOC/in.safetensors"), QStringLiteral("imported"),
                             QStringLiteral("--spec"), QStringLiteral("spec.json")});
        row("import destination", {QStringLiteral("import"), QStringLiteral("in.safetensors"), QStringLiteral("LOC/imported"),
                                   QStringLiteral("--spec"), QStringLiteral("spec.json")});
        row("import spec", {QStringLiteral("import"), QStringLiteral("in.safetensors"), QStringLiteral("imported"),
                            QStringLiteral("--spec"), QStringLiteral("LOC/spec.json")});
        row("diff", {QStringLiteral("diff"), ck, QStringLiteral("LOC/ckpt-1")});
        row("history", {QStringLiteral("history"), QStringLiteral("LOC")});
        row("retention plan", {QStringLiteral("retention"), QStringLiteral("plan"), QStringLiteral("LOC"),
                               QStringLiteral("--keep-latest"), QStringLiteral("1")});
        row("retention apply", {QStringLiteral("retention"), QStringLiteral("apply"), QStringLiteral("LOC"),
                                QStringLiteral("--keep-latest"), QStringLiteral("1")});
        row("schedule add destination", {QStringLiteral("schedule"), QStringLiteral("add"), QStringLiteral("copy"),
                                         QStringLiteral("--source"), QStringLiteral("run"), QStringLiteral("--dest"),
                                         QStringLiteral("LOC/dest"), QStringLiteral("--every"), QStringLiteral("1h")});
        row("schedule add source", {QStringLiteral("schedule"), QStringLiteral("add"), QStringLiteral("copy"),
                                    QStringLiteral("--source"), QStringLiteral("LOC"), QStringLiteral("--dest"),
                                    QStringLiteral("dest"), QStringLiteral("--every"), QStringLiteral("1h")});
        row("schedule list",
            {QStringLiteral("schedule"), QStringLiteral("list"), QStringLiteral("--store"), QStringLiteral("LOC/store.db")});
        row("schedule show", {QStringLiteral("schedule"), QStringLiteral("show"), QStringLiteral("copy"),
                              QStringLiteral("--store"), QStringLiteral("LOC/store.db")});
        row("schedule remove", {QStringLiteral("schedule"), QStringLiteral("remove"), QStringLiteral("copy"),
                                QStringLiteral("--store"), QStringLiteral("LOC/store.db")});
        row("schedule run-now", {QStringLiteral("schedule"), QStringLiteral("run-now"), QStringLiteral("copy"),
                                 QStringLiteral("--store"), QStringLiteral("LOC/store.db")});
        row("schedule cancel", {QStringLiteral("schedule"), QStringLiteral("cancel"), QStringLiteral("copy"),
                                QStringLiteral("--store"), QStringLiteral("LOC/store.db")});
        row("scheduler run",
            {QStringLiteral("scheduler"), QStringLiteral("run"), QStringLiteral("--store"), QStringLiteral("LOC/store.db")});
        row("catalog add", {QStringLiteral("catalog"), QStringLiteral("add"), QStringLiteral("LOC")});
        row("catalog scan", {QStringLiteral("catalog"), QStringLiteral("scan"), QStringLiteral("LOC")});
        row("catalog list",
            {QStringLiteral("catalog"), QStringLiteral("list"), QStringLiteral("--catalog"), QStringLiteral("LOC/catalog.db")});
        row("catalog search", {QStringLiteral("catalog"), QStringLiteral("search"), QStringLiteral("kernel"),
                               QStringLiteral("--catalog"), QStringLiteral("LOC/catalog.db")});
        row("catalog forget", {QStringLiteral("catalog"), QStringLiteral("forget"), QStringLiteral("LOC")});
        row("catalog history", {QStringLiteral("catalog"), QStringLiteral("history"), QStringLiteral("--catalog"),
                                QStringLiteral("LOC/catalog.db")});
        row("gc", {QStringLiteral("gc"), QStringLiteral("LOC")});
        row("gc --apply", {QStringLiteral("gc"), QStringLiteral("LOC"), QStringLiteral("--apply")});
        return out;
    }
    static void rows(const QString& loc) {
        for (const auto& [name, args] : table(loc)) QTest::newRow(name) << args;
    }

private slots:
    void initTestCase() {
        QVERIFY(m_work.isValid() && m_home.isValid());
        const Run trained = ckpt({QStringLiteral("demo-train"), QStringLiteral("run"), QStringLiteral("--steps"),
                                  QStringLiteral("4"), QStringLiteral("--save-every"), QStringLiteral("2")});
        QVERIFY2(trained.exitCode == 0, trained.err.constData());
        const Run spec = ckpt({QStringLiteral("spec"), QStringLiteral("run/ckpt-1")});
        QVERIFY2(spec.exitCode == 0, spec.err.constData());
        ckpt::testing::writeAll(m_work.filePath(QStringLiteral("spec.json")), spec.out);
        const Run exported = ckpt({QStringLiteral("export"), QStringLiteral("run/ckpt-1"), QStringLiteral("in.safetensors")});
        QVERIFY2(exported.exitCode == 0, exported.err.constData());
        QCOMPARE(strays(), QStringList());
    }

    // Every command and subcommand `ckpt --help` lists has a row.
    void everyCommandHasARow() {
        QStringList commands;
        QStringList groups;
        for (const QString& c : subcommands(ckpt({QStringLiteral("--help")}).out)) {
            const QStringList subs = subcommands(ckpt({c, QStringLiteral("--help")}).out);
            if (subs.isEmpty()) commands << c;
            else groups << c;
            for (const QString& s : subs) commands << c + QLatin1Char(' ') + s;
        }
        QVERIFY(commands.size() > 20);
        QStringList covered;
        for (const auto& [name, args] : table(QStringLiteral("foo://b"))) {
            Q_UNUSED(name);
            covered << (groups.contains(args[0]) ? args[0] + QLatin1Char(' ') + args[1] : args[0]);
        }
        QStringList missing;
        for (const QString& c : commands)
            if (!covered.contains(c)) missing << c;
        QVERIFY2(missing.isEmpty(), qPrintable(QStringLiteral("commands without a row: ") + missing.join(QStringLiteral(", "))));
    }

    void unknownSchemeRefused_data() {
        QTest::addColumn<QStringList>("args");
        rows(QStringLiteral("foo://bucket/run"));
    }
    void unknownSchemeRefused() {
        QFETCH(QStringList, args);
        const Run r = ckpt(args);
        const QByteArray all = r.out + r.err;
        if (!QByteArray(QTest::currentDataTag()).endsWith("(warning)")) QVERIFY2(r.exitCode != 0, all.constData());
        QVERIFY2(all.contains("unsupported storage scheme \"foo://\""), all.constData());
        QCOMPARE(strays(), QStringList());
    }

    void objectStoreNeverLocal_data() {
        QTest::addColumn<QStringList>("args");
        rows(QStringLiteral("s3://bucket/run"));
    }
    void objectStoreNeverLocal() {
        QFETCH(QStringList, args);
        const Run r = ckpt(args);
        // With no backend registered: refused by name. With one: whatever
        // the bucket says, but never a local directory called "s3:".
        if (!QByteArray(QTest::currentDataTag()).endsWith("(warning)")) QVERIFY2(r.exitCode != 0, (r.out + r.err).constData());
        QVERIFY2((r.out + r.err).contains("s3://"), (r.out + r.err).constData());
        QCOMPARE(strays(), QStringList());
    }
};

QTEST_GUILESS_MAIN(TstCliStorageSchemes)
#include "tst_cli_storage_schemes.moc"
