// Issue #29, findings 1 and 9: every command that writes a checkpoint or a
// file applies one destination rule (ckpt/destination.h). An existing
// checkpoint or file is replaced only with --overwrite; a source of the
// operation never, in any of its spellings (symlinks, "..", its .index or a
// data file); paths with control characters or an empty last component are
// refused with a clear error; --help says the same about --overwrite
// everywhere; and a replaced checkpoint is rescanned in the user's catalog.

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

#include <sys/wait.h>
#include <unistd.h>

#include "ckpt/bundle_reader.h"
#include "ckpt/catalog.h"
#include "ckpt/checkpoint_listing.h"
#include "test_support.h"

using nlohmann::json;
using Run = ckpt::testing::CliRun;

namespace {

Run ckptCli(const QStringList& args) { return ckpt::testing::runCkpt(args); }

// md5 of a checkpoint's index and data files, in name order: what "unchanged" means.
QByteArray fingerprint(const QString& prefix) {
    const QFileInfo info(prefix);
    QDir dir = info.dir();
    QStringList names = dir.entryList({info.fileName() + QStringLiteral(".index"), info.fileName() + QStringLiteral(".data-*")},
                                      QDir::Files, QDir::Name);
    if (names.isEmpty()) return {};
    QCryptographicHash hash(QCryptographicHash::Md5);
    for (const QString& n : names) {
        QFile f(dir.filePath(n));
        if (!f.open(QIODevice::ReadOnly)) return {};
        hash.addData(n.toUtf8());
        hash.addData(f.readAll());
    }
    return hash.result().toHex();
}

QByteArray fileHash(const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) return {};
    return QCryptographicHash::hash(f.readAll(), QCryptographicHash::Md5).toHex();
}

int64_t tensorCount(const QString& prefix) {
    auto reader = ckpt::BundleReader::open(prefix.toStdString());
    return reader.ok() ? static_cast<int64_t>((*reader)->tensors().size()) : -1;
}

// The wording every writer's --help gives --overwrite.
const char* const kOverwriteHelp = "Replace a checkpoint or file already at the destination";

}  // namespace

class TstCliDestinations : public QObject {
    Q_OBJECT

    QTemporaryDir m_tmp;
    QString m_run;      // demo run: ckpt-1, ckpt-2
    QString m_first;    // its ckpt-1
    QString m_second;   // its ckpt-2
    QString m_spec;     // the run's own structure
    QString m_failing;  // without the optimizer, with an unbound extra variable
    QString m_arrays;   // ckpt-1 exported (for import)
    QString m_partA;    // ckpt-2 without its optimizer
    QString m_partB;    // ckpt-2's optimizer alone: merges with m_partA

    QString path(const QString& name) const { return m_tmp.filePath(name); }

    // A stripped copy of ckpt-1 (fewer tensors) at 'prefix': what a replacement must not silently destroy.
    void makeExisting(const QString& prefix) {
        QFile::remove(prefix + QStringLiteral(".index"));
        Run r = ckptCli({QStringLiteral("edit"), m_first, prefix, QStringLiteral("--strip-optimizer")});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY(!fingerprint(prefix).isEmpty());
    }

    // The writers, each writing DST from the run; 'extra' appended.
    QStringList writer(const QString& name, const QString& dst) const {
        if (name == QLatin1String("restore"))
            return {QStringLiteral("restore"), m_second, QStringLiteral("--into"), m_spec, QStringLiteral("--out"), dst};
        if (name == QLatin1String("reshard"))
            return {QStringLiteral("reshard"), m_second, dst, QStringLiteral("--shards"), QStringLiteral("2")};
        if (name == QLatin1String("merge")) return {QStringLiteral("merge"), dst, m_partA, m_partB};
        if (name == QLatin1String("average"))
            return {QStringLiteral("merge"), QStringLiteral("--average"), dst, m_first, m_second};
        if (name == QLatin1String("edit")) return {QStringLiteral("edit"), m_second, dst, QStringLiteral("--strip-optimizer")};
        if (name == QLatin1String("import")) return {QStringLiteral("import"), m_arrays, dst, QStringLiteral("--spec"), m_spec};
        return {};
    }

private slots:
    void initTestCase() {
        QVERIFY(m_tmp.isValid());
        // The default catalog of every ckpt run below (the test's own).
        qputenv("XDG_DATA_HOME", path(QStringLiteral("xdg")).toUtf8());
        m_run = path(QStringLiteral("run"));
        Run train = ckptCli({QStringLiteral("demo-train"), m_run, QStringLiteral("--steps"), QStringLiteral("20"),
                             QStringLiteral("--save-every"), QStringLiteral("10")});
        QVERIFY2(train.exitCode == 0, train.err.constData());
        auto listing = ckpt::listCheckpoints(m_run.toStdString());
        QVERIFY(listing.ok() && listing->checkpoints.size() >= 2);
        m_first = QString::fromStdString(listing->checkpoints[0].prefix);
        m_second = QString::fromStdString(listing->checkpoints[1].prefix);

        Run spec = ckptCli({QStringLiteral("spec"), m_first});
        QCOMPARE(spec.exitCode, 0);
        m_spec = path(QStringLiteral("spec.json"));
        QVERIFY(ckpt::testing::writeAll(m_spec, spec.out));
        json failing = json::parse(spec.out.toStdString());
        json& children = failing["objects"][0]["children"];
        for (size_t i = 0; i < children.size(); ++i)
            if (children[i]["name"] == "optimizer") children.erase(i--);
        int nextId = 0;
        for (const json& o : failing["objects"]) nextId = std::max(nextId, o["id"].get<int>() + 1);
        failing["objects"].push_back({{"id", nextId},
                                      {"kind", "variable"},
                                      {"dtype", "float32"},
                                      {"shape", {2}},
                                      {"initial_value", {1.5, -2.5}},
                                      {"children", json::array()}});
        children.push_back({{"name", "extra"}, {"id", nextId}});
        m_failing = path(QStringLiteral("failing.json"));
        QVERIFY(ckpt::testing::writeAll(m_failing, QByteArray::fromStdString(failing.dump())));

        m_partA = path(QStringLiteral("parts/a"));
        m_partB = path(QStringLiteral("parts/b"));
        Run a = ckptCli({QStringLiteral("edit"), m_second, m_partA, QStringLiteral("--delete"), QStringLiteral("optimizer")});
        QVERIFY2(a.exitCode == 0, a.err.constData());
        Run b = ckptCli({QStringLiteral("edit"), m_second, m_partB, QStringLiteral("--delete"), QStringLiteral("model"),
                         QStringLiteral("--delete"), QStringLiteral("step"), QStringLiteral("--delete"),
                         QStringLiteral("save_counter"), QStringLiteral("--force")});
        QVERIFY2(b.exitCode == 0, b.err.constData());
        Run merged = ckptCli({QStringLiteral("merge"), path(QStringLiteral("parts/merged")), m_partA, m_partB});
        QVERIFY2(merged.exitCode == 0, merged.err.constData());

        m_arrays = path(QStringLiteral("arrays.safetensors"));
        Run ex = ckptCli({QStringLiteral("export"), m_second, m_arrays});
        QVERIFY2(ex.exitCode == 0, ex.err.constData());
    }

    // The CLI case: restore --out onto a run's existing checkpoint
    // replaced it in place with exit 0, and restore had no --overwrite.
    void restoreOutKeepsExisting() {
        const QString dst = path(QStringLiteral("exp1/ckpt-5"));
        makeExisting(dst);
        const QByteArray before = fingerprint(dst);
        Run r = ckptCli({QStringLiteral("restore"), m_second, QStringLiteral("--into"), m_spec, QStringLiteral("--out"), dst,
                         QStringLiteral("--json")});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("AlreadyExists") && r.err.contains("--overwrite"), r.err.constData());
        const json j = json::parse(r.out.toStdString());
        QCOMPARE(j["out"]["written"], false);
        QCOMPARE(j["out"]["error"]["code"], "AlreadyExists");
        // What is there, as data: its tensors and size on disk.
        QCOMPARE(j["out"]["existing"]["tensors"].get<int64_t>(), tensorCount(dst));
        QVERIFY(j["out"]["existing"]["bytes"].get<int64_t>() > 0);
        QCOMPARE(fingerprint(dst), before);

        r = ckptCli({QStringLiteral("restore"), m_second, QStringLiteral("--into"), m_spec, QStringLiteral("--out"), dst,
                     QStringLiteral("--overwrite")});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY(fingerprint(dst) != before);
        QCOMPARE(tensorCount(dst), tensorCount(m_second));
    }

    // Failed assertions and an existing destination are two separate
    // consents: --overwrite does not imply --force, nor the reverse.
    void forceAndOverwriteAreSeparate() {
        const QString dst = path(QStringLiteral("exp2/ckpt-5"));
        makeExisting(dst);
        const QByteArray before = fingerprint(dst);
        Run r = ckptCli({QStringLiteral("restore"), m_second, QStringLiteral("--into"), m_failing, QStringLiteral("--assert"),
                         QStringLiteral("consumed"), QStringLiteral("--out"), dst, QStringLiteral("--force")});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("AlreadyExists"), r.err.constData());
        QCOMPARE(fingerprint(dst), before);
        r = ckptCli({QStringLiteral("restore"), m_second, QStringLiteral("--into"), m_failing, QStringLiteral("--assert"),
                     QStringLiteral("consumed"), QStringLiteral("--out"), dst, QStringLiteral("--overwrite")});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.out.contains("not written"), r.out.constData());
        QCOMPARE(fingerprint(dst), before);
        r = ckptCli({QStringLiteral("restore"), m_second, QStringLiteral("--into"), m_failing, QStringLiteral("--assert"),
                     QStringLiteral("consumed"), QStringLiteral("--out"), dst, QStringLiteral("--overwrite"),
                     QStringLiteral("--force")});
        QCOMPARE(r.exitCode, 1);  // the assertion still failed
        QVERIFY2(r.out.contains("verify: ok"), r.out.constData());
        QVERIFY(fingerprint(dst) != before);
    }

    // A source is never written, whatever the flags and however it is spelled.
    void sourceRefusedInEveryForm_data() {
        QTest::addColumn<QString>("form");
        QTest::newRow("prefix") << QStringLiteral("prefix");
        QTest::newRow(".index") << QStringLiteral("index");
        QTest::newRow("data file") << QStringLiteral("data");
        QTest::newRow("dot-dot") << QStringLiteral("dotdot");
        QTest::newRow("symlinked directory") << QStringLiteral("symlink");
    }
    void sourceRefusedInEveryForm() {
        QFETCH(QString, form);
        // 'prefix' as the form spells it.
        const auto spelled = [&](const QString& prefix) -> QString {
            const QFileInfo info(prefix);
            if (form == QLatin1String("index")) return prefix + QStringLiteral(".index");
            if (form == QLatin1String("data")) {
                const QStringList data = info.dir().entryList({info.fileName() + QStringLiteral(".data-*")}, QDir::Files);
                return data.isEmpty() ? QString() : info.dir().filePath(data.front());
            }
            if (form == QLatin1String("dotdot"))
                return info.path() + QStringLiteral("/../") + info.dir().dirName() + QLatin1Char('/') + info.fileName();
            if (form == QLatin1String("symlink")) {
                const QString link = info.path() + QStringLiteral("-link");
                if (!QFileInfo::exists(link) && !QFile::link(info.path(), link)) return {};
                return link + QLatin1Char('/') + info.fileName();
            }
            return prefix;
        };
        const QStringList writers = {QStringLiteral("restore"), QStringLiteral("reshard"), QStringLiteral("merge"),
                                     QStringLiteral("average"), QStringLiteral("edit")};
        for (const QString& w : writers) {
            const QString source = w == QLatin1String("merge") ? m_partA : m_second;
            const QString dst = spelled(source);
            QVERIFY(!dst.isEmpty());
            const QByteArray before = fingerprint(source);
            QStringList args = writer(w, dst) << QStringLiteral("--overwrite");
            if (w == QLatin1String("restore")) args << QStringLiteral("--force");
            const Run r = ckptCli(args);
            QVERIFY2(r.exitCode == 2, qPrintable(w + QStringLiteral(": exit %1: ").arg(r.exitCode) + QString::fromUtf8(r.err)));
            QVERIFY2(r.err.contains("source"), qPrintable(w + QStringLiteral(": ") + QString::fromUtf8(r.err)));
            QCOMPARE(fingerprint(source), before);
        }
        // export's output as one of the source's files
        if (form == QLatin1String("index") || form == QLatin1String("data")) {
            const QByteArray before = fingerprint(m_second);
            const Run r = ckptCli({QStringLiteral("export"), m_second, spelled(m_second), QStringLiteral("--format"),
                                   QStringLiteral("npz"), QStringLiteral("--overwrite")});
            QVERIFY2(r.exitCode == 2, r.err.constData());
            QCOMPARE(fingerprint(m_second), before);
        }
    }

    // restore --out onto its own template checkpoint (--into CKPT) is onto a source too.
    void restoreOutNotOntoTemplate() {
        const QByteArray before = fingerprint(m_first);
        const Run r = ckptCli({QStringLiteral("restore"), m_second, QStringLiteral("--into"), m_first, QStringLiteral("--out"),
                               m_first, QStringLiteral("--overwrite")});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("source"), r.err.constData());
        QCOMPARE(fingerprint(m_first), before);
    }

    void everyWriterNeedsOverwrite_data() {
        QTest::addColumn<QString>("name");
        for (const char* w : {"restore", "reshard", "merge", "average", "edit", "import"})
            QTest::newRow(w) << QString::fromLatin1(w);
    }
    void everyWriterNeedsOverwrite() {
        QFETCH(QString, name);
        const QString dst = path(QStringLiteral("taken-") + name + QStringLiteral("/ckpt-9"));
        makeExisting(dst);
        const QByteArray before = fingerprint(dst);
        Run r = ckptCli(writer(name, dst) << QStringLiteral("--json"));
        QVERIFY2(r.exitCode == 1, qPrintable(QStringLiteral("exit %1: ").arg(r.exitCode) + QString::fromUtf8(r.err)));
        QVERIFY2(r.err.contains("AlreadyExists") && r.err.contains("--overwrite"), r.err.constData());
        QCOMPARE(fingerprint(dst), before);
        r = ckptCli(writer(name, dst) << QStringLiteral("--overwrite"));
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY(fingerprint(dst) != before);
        // Nothing of the write is left beside the result.
        const QStringList left = QDir(QFileInfo(dst).path()).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot);
        for (const QString& n : left)
            QVERIFY2(n.startsWith(QStringLiteral("ckpt-9.")) && !n.contains(QStringLiteral("tmp")),
                     qPrintable(QStringLiteral("left behind: ") + n));
    }

    void exportNeedsOverwrite() {
        const QString out = path(QStringLiteral("out.npz"));
        QVERIFY(ckpt::testing::writeAll(out, "not yet an npz"));
        Run r = ckptCli({QStringLiteral("export"), m_second, out});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("AlreadyExists") && r.err.contains("--overwrite"), r.err.constData());
        QCOMPARE(ckpt::testing::readAll(out), QByteArray("not yet an npz"));
        r = ckptCli({QStringLiteral("export"), m_second, out, QStringLiteral("--overwrite")});
        QCOMPARE(r.exitCode, 0);
        QVERIFY(fileHash(out) != QCryptographicHash::hash("not yet an npz", QCryptographicHash::Md5).toHex());
    }

    void badPaths_data() {
        QTest::addColumn<QString>("dst");
        QTest::addColumn<QByteArray>("message");
        QTest::newRow("newline") << path(QStringLiteral("bad\nname/ckpt")) << QByteArray("control character");
        QTest::newRow("tab") << path(QStringLiteral("bad/ck\tpt")) << QByteArray("control character");
        QTest::newRow("escape") << path(QStringLiteral("bad/ck\x1b[2Jpt")) << QByteArray("control character");
        QTest::newRow("trailing slash") << path(QStringLiteral("bad/")) << QByteArray("no file name");
        QTest::newRow("dot") << path(QStringLiteral("bad/.")) << QByteArray("no file name");
        QTest::newRow("empty") << QString() << QByteArray("empty");
    }
    void badPaths() {
        QFETCH(QString, dst);
        QFETCH(QByteArray, message);
        for (const char* w : {"restore", "reshard", "merge", "average", "edit", "import"}) {
            const Run r = ckptCli(writer(QString::fromLatin1(w), dst));
            QVERIFY2(r.exitCode == 2, qPrintable(QStringLiteral("%1: exit %2: ").arg(QLatin1String(w)).arg(r.exitCode) +
                                                 QString::fromUtf8(r.err)));
            QVERIFY2(r.err.contains(message),
                     qPrintable(QStringLiteral("%1: ").arg(QLatin1String(w)) + QString::fromUtf8(r.err)));
        }
        const Run r = ckptCli({QStringLiteral("export"), m_second, dst, QStringLiteral("--format"), QStringLiteral("npz")});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(message), r.err.constData());
        QVERIFY(!QFileInfo::exists(path(QStringLiteral("bad\nname"))));
        QVERIFY(QDir(path(QStringLiteral("bad"))).entryList(QDir::AllEntries | QDir::NoDotAndDotDot).isEmpty());
    }

    void helpSaysTheSame() {
        for (const char* w : {"restore", "reshard", "merge", "edit", "import", "export"}) {
            const Run r = ckptCli({QString::fromLatin1(w), QStringLiteral("--help")});
            QCOMPARE(r.exitCode, 0);
            // CLI11 may put "Needs: --out" between the flag and its text.
            const QString help = QString::fromUtf8(r.out.simplified());
            const QRegularExpression flag(QStringLiteral("--overwrite (Needs: --out )?") +
                                          QRegularExpression::escape(QString::fromLatin1(kOverwriteHelp)));
            QVERIFY2(help.contains(flag), qPrintable(QLatin1String(w) + QStringLiteral(": ") + help));
        }
    }

    // Issue #29, finding 4: `ckpt verify DIR` said OK while the state file
    // named checkpoints that are gone.
    void verifyDirReportsALyingStateFile() {
        const QString dir = path(QStringLiteral("lying"));
        QVERIFY(QDir().mkpath(dir));
        for (const QFileInfo& f : QDir(m_run).entryInfoList(QDir::Files))
            QVERIFY(QFile::copy(f.filePath(), dir + QLatin1Char('/') + f.fileName()));
        const QString first = QFileInfo(m_first).fileName();
        for (const QString& f : QDir(dir).entryList({first + QStringLiteral(".*")}, QDir::Files))
            QVERIFY(QFile::remove(dir + QLatin1Char('/') + f));
        QVERIFY(ckpt::testing::readAll(dir + QStringLiteral("/checkpoint")).contains(first.toUtf8()));
        Run r = ckptCli({QStringLiteral("verify"), dir});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.out.contains(("names " + first + ", which has no index").toUtf8()), r.out.constData());
        r = ckptCli({QStringLiteral("verify"), dir, QStringLiteral("--json")});
        QCOMPARE(r.exitCode, 1);
        const json j = json::parse(r.out.toStdString());
        QCOMPARE(j["ok"], false);
        QCOMPARE(j["problems"][0]["file"], "checkpoint");
        // The checkpoint the state file's latest names still verifies on its own.
        QCOMPARE(ckptCli({QStringLiteral("verify"), m_second}).exitCode, 0);
    }

    // `ckpt gc`: a dry run lists with sizes and reasons, --apply removes what
    // a writer that has ended left, and what has no owner only after --grace.
    void gcCommand() {
        const QString dir = path(QStringLiteral("leftovers"));
        QVERIFY(QDir().mkpath(dir));
        const pid_t dead = ::fork();
        if (dead == 0) ::_exit(0);
        ::waitpid(dead, nullptr, 0);
        // The boot part of a token made now, by this machine.
        QFile boot(QStringLiteral("/proc/sys/kernel/random/boot_id"));
        QVERIFY(boot.open(QIODevice::ReadOnly));
        const QString bootId = QString::fromLatin1(boot.readAll()).remove(QLatin1Char('-')).left(8).toLower();
        const QString orphan = QStringLiteral("checkpoint.tmp-%1-1-%2-0").arg(dead).arg(bootId);
        QVERIFY(ckpt::testing::writeAll(dir + QLatin1Char('/') + orphan, "model_checkpoint_path: \"x\"\n"));
        QVERIFY(ckpt::testing::writeAll(dir + QStringLiteral("/ckpt-3.index.tempstate1234"), "half an index"));
        Run r = ckptCli({QStringLiteral("gc"), dir, QStringLiteral("--json")});
        QCOMPARE(r.exitCode, 0);
        json j = json::parse(r.out.toStdString());
        QCOMPARE(j["items"].size(), size_t{2});
        QCOMPARE(j["removable"], 1);
        QCOMPARE(j["removed"], 0);
        QVERIFY(QFile::exists(dir + QLatin1Char('/') + orphan));
        r = ckptCli({QStringLiteral("gc"), dir, QStringLiteral("--apply")});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.contains("removed") && r.out.contains(orphan.toUtf8()), r.out.constData());
        QVERIFY(!QFile::exists(dir + QLatin1Char('/') + orphan));
        QVERIFY(QFile::exists(dir + QStringLiteral("/ckpt-3.index.tempstate1234")));
        r = ckptCli({QStringLiteral("gc"), dir, QStringLiteral("--apply"), QStringLiteral("--grace"), QStringLiteral("0")});
        QCOMPARE(r.exitCode, 0);
        QVERIFY(QDir(dir).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot).isEmpty());
        QCOMPARE(ckptCli({QStringLiteral("gc"), path(QStringLiteral("no-such-dir"))}).exitCode, 1);
    }

    // A checkpoint the catalog holds is rescanned once it has been replaced:
    // the catalog described the old content before (issue #29, finding 1).
    void catalogRescansReplaced() {
        const QString dir = path(QStringLiteral("catalogued"));
        const QString dst = dir + QStringLiteral("/ckpt-5");
        makeExisting(dst);
        auto catalogPath = ckpt::Catalog::defaultPath();
        QVERIFY(catalogPath.ok());
        Run add = ckptCli({QStringLiteral("catalog"), QStringLiteral("add"), dir});
        QVERIFY2(add.exitCode == 0, add.err.constData());
        Run scan = ckptCli({QStringLiteral("catalog"), QStringLiteral("scan")});
        QVERIFY2(scan.exitCode == 0, scan.err.constData());
        const int64_t oldCount = tensorCount(dst);
        {
            auto catalog = ckpt::Catalog::open(*catalogPath);
            QVERIFY(catalog.ok());
            auto row = (*catalog)->checkpoint(dst.toStdString());
            QVERIFY(row.ok());
            QCOMPARE(row->tensors, oldCount);
        }
        for (const QString& w : {QStringLiteral("restore"), QStringLiteral("reshard")}) {
            Run r = ckptCli(writer(w, dst) << QStringLiteral("--overwrite"));
            QVERIFY2(r.exitCode == 0, r.err.constData());
            auto catalog = ckpt::Catalog::open(*catalogPath);
            QVERIFY(catalog.ok());
            auto row = (*catalog)->checkpoint(dst.toStdString());
            QVERIFY(row.ok());
            QCOMPARE(row->tensors, tensorCount(dst));
            QVERIFY(row->tensors != oldCount);
            // Written, then verified: the catalog knows it is healthy.
            QCOMPARE(row->health(), ckpt::CatalogHealth::Healthy);
            QCOMPARE(row->bytes, static_cast<uint64_t>(QFileInfo(dst + QStringLiteral(".index")).size() + [&] {
                         qint64 total = 0;
                         const QFileInfo info(dst);
                         for (const QFileInfo& f : info.dir().entryInfoList({info.fileName() + QStringLiteral(".data-*")}))
                             total += f.size();
                         return total;
                     }()));
            makeExisting(dst);
            Run rescan = ckptCli({QStringLiteral("catalog"), QStringLiteral("scan")});
            QVERIFY(rescan.exitCode == 0);
        }
    }
};

QTEST_GUILESS_MAIN(TstCliDestinations)
#include "tst_cli_destinations.moc"
