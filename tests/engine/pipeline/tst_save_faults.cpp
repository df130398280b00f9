// Faults during saves: disk full, permission denied, an unwritable or corrupt
// state file, and SIGKILL at random moments of a save loop. Each must give a
// clear error (or, for kills, nothing) and leave the previous checkpoint intact.

#include "ckpt/bundle_reader.h"
#include "ckpt/checkpoint_manager.h"
#include "ckpt/checkpoint_state.h"
#include "ckpt/restore.h"
#include "ckpt/save.h"
#include "ckpt/verify.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include "test_support.h"

#include <csignal>
#include <cstring>
#include <random>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace ckpt;

namespace {

constexpr int kVariables = 3;
constexpr int64_t kElements = 64 * 1024;  // 256 KiB per variable

struct Program {
    std::shared_ptr<Trackable> root;
    std::vector<std::shared_ptr<Variable>> vars;
};

Program makeProgram() {
    Program p;
    p.root = Trackable::makeObject();
    for (int i = 0; i < kVariables; ++i) {
        p.vars.push_back(Variable::make(DataType::Float, TensorShape{{kElements}}));
        (void)p.root->addChild("v" + std::to_string(i), p.vars.back());
    }
    return p;
}

void fill(Program& p, float value) {
    for (auto& v : p.vars) {
        float* f = reinterpret_cast<float*>(v->mutableValue().bytes.data());
        std::fill(f, f + kElements, value);
    }
}

// Every variable of checkpoint "ckpt-N" holds N: a readable checkpoint is never a wrong one.
QString checkCheckpoint(const std::string& prefix) {
    const auto report = verifyBundle(prefix);
    if (!report.ok()) return QString::fromStdString(report.status().toString());
    if (!report->ok()) return QString::fromStdString(report->problems.front().message);
    auto r = BundleReader::open(prefix);
    const float n = static_cast<float>(std::stoll(prefix.substr(prefix.rfind('-') + 1)));
    for (int i = 0; i < kVariables; ++i) {
        auto t = (*r)->read("v" + std::to_string(i) + "/.ATTRIBUTES/VARIABLE_VALUE");
        if (!t.ok()) return QString::fromStdString(t.status().toString());
        for (float f : t->as<float>())
            if (f != n) return QStringLiteral("wrong value %1 in %2").arg(f).arg(QString::fromStdString(prefix));
    }
    return {};
}

std::string firstSave(const QString& dir) {
    Program p = makeProgram();
    fill(p, 1);
    auto m = CheckpointManager::create(p.root, dir.toStdString(), {});
    if (!m.ok() || !(*m)->save().ok()) return {};
    return dir.toStdString() + "/ckpt-1";
}

}  // namespace

class TstSaveFaults : public QObject {
    Q_OBJECT
private slots:
    void faults_data() {
        QTest::addColumn<QString>("fault");
        QTest::addColumn<int>("expected");  // StatusCode
        QTest::newRow("disk full (RLIMIT_FSIZE)") << "fsize" << int(StatusCode::ResourceExhausted);
        QTest::newRow("permission denied") << "permission" << int(StatusCode::PermissionDenied);
        // The state file is read before it is replaced (a compare-and-swap):
        // a directory there is refused as one.
        QTest::newRow("state file cannot be replaced") << "state dir" << int(StatusCode::InvalidArgument);
        QTest::newRow("corrupt state file") << "corrupt state" << int(StatusCode::DataLoss);
    }

    void faults() {
        QFETCH(QString, fault);
        QFETCH(int, expected);
        QTemporaryDir tmp;
        const QString dir = tmp.filePath(QStringLiteral("run"));
        const std::string previous = firstSave(dir);
        QVERIFY(!previous.empty());
        std::string message;
        const int code = ckpt::testing::runInChild([&]() -> int {
            Program p = makeProgram();
            fill(p, 2);
            if (fault == QLatin1String("fsize")) {
                std::signal(SIGXFSZ, SIG_IGN);
                rlimit lim{64 * 1024, 64 * 1024};
                ::setrlimit(RLIMIT_FSIZE, &lim);
            } else if (fault == QLatin1String("permission")) {
                if (::geteuid() == 0) {
                    // Root ignores permission bits: drop to 'nobody' in this child.
                    if (::setgid(65534) != 0 || ::setuid(65534) != 0) return 99;
                } else {
                    ::chmod(dir.toLocal8Bit().constData(), 0555);
                }
            } else if (fault == QLatin1String("state dir")) {
                QFile::remove(dir + QStringLiteral("/checkpoint"));
                QDir(dir).mkdir(QStringLiteral("checkpoint"));
            } else {
                QFile f(dir + QStringLiteral("/checkpoint"));
                if (!f.open(QIODevice::WriteOnly)) return 98;
                f.write("model_checkpoint_path: \"ckpt-1\"\nall_model_checkpoint_paths: {{{ garbage\n");
                f.close();
            }
            auto m = CheckpointManager::create(p.root, dir.toStdString(), {});
            if (!m.ok()) {
                std::fprintf(stderr, "%s\n", m.status().toString().c_str());
                return int(m.status().code());
            }
            (void)saveCounter(*p.root);
            int64_t one = 1;
            std::memcpy((*saveCounter(*p.root))->mutableValue().bytes.data(), &one, 8);
            auto saved = (*m)->save();
            if (!saved.ok()) std::fprintf(stderr, "%s\n", saved.status().toString().c_str());
            return saved.ok() ? 0 : int(saved.status().code());
        });
        ::chmod(dir.toLocal8Bit().constData(), 0755);
        QCOMPARE(code, expected);
        // The previous checkpoint is intact and the failed one is not readable.
        QCOMPARE(checkCheckpoint(previous), QString());
        if (fault != QLatin1String("state dir")) QVERIFY(!QFile::exists(dir + QStringLiteral("/ckpt-2.index")));
    }

    void killedSaveLoop() {
        QTemporaryDir tmp;
        const QString dir = tmp.filePath(QStringLiteral("run"));
        std::mt19937 rng(12345);
        std::uniform_int_distribution<int> delayUs(0, 40000);
        QElapsedTimer timer;
        timer.start();
        int kills = 0, checked = 0;
        for (; kills < 50 && timer.elapsed() < 50000; ++kills) {
            const pid_t pid = ::fork();
            if (pid == 0) {
                Program p = makeProgram();
                int64_t n = 0;
                auto latest = latestCheckpoint(dir.toStdString());
                if (latest.ok() && *latest) n = std::stoll(latest->value().substr(latest->value().rfind('-') + 1));
                auto counter = saveCounter(*p.root);
                std::memcpy((*counter)->mutableValue().bytes.data(), &n, 8);
                // Sync, eager async and deferred async saves in turn: the
                // next fill() races an async write, and ckpt-N must still hold N.
                CheckpointManagerOptions o;
                o.maxToKeep = 3;
                o.async = kills % 3 != 0;
                if (kills % 3 == 2) o.asyncSnapshot = CheckpointManagerOptions::Snapshot::Deferred;
                auto m = CheckpointManager::create(p.root, dir.toStdString(), o);
                if (!m.ok()) ::_exit(3);
                for (;;) {
                    fill(p, static_cast<float>(++n));
                    if (!(*m)->save().ok()) ::_exit(4);
                }
            }
            ::usleep(static_cast<useconds_t>(delayUs(rng)));
            ::kill(pid, SIGKILL);
            int status = 0;
            ::waitpid(pid, &status, 0);
            QVERIFY2(WIFSIGNALED(status), "the save loop exited on its own (a save failed)");
            auto latest = latestCheckpoint(dir.toStdString());
            QVERIFY2(latest.ok(), latest.status().toString().c_str());
            if (!*latest) continue;  // killed before the first save finished
            QCOMPARE(checkCheckpoint(**latest), QString());
            // And it restores: every variable of a fresh program matched and set to N.
            Program fresh = makeProgram();
            (void)saveCounter(*fresh.root);
            auto restored = restoreCheckpoint(**latest, fresh.root);
            QVERIFY2(restored.ok(), restored.status().toString().c_str());
            const Status consumed = restored->assertConsumed();
            QVERIFY2(consumed.isOk(), consumed.toString().c_str());
            const float n = static_cast<float>(std::stoll(latest->value().substr(latest->value().rfind('-') + 1)));
            for (const auto& v : fresh.vars) QCOMPARE(v->value().as<float>()[kElements - 1], n);
            ++checked;
        }
        qInfo("%d kills, %d latest checkpoints verified and restored in %lld ms", kills, checked,
              static_cast<long long>(timer.elapsed()));
        QVERIFY(kills >= 20);
        QVERIFY(checked > 0);
    }
};

QTEST_GUILESS_MAIN(TstSaveFaults)
#include "tst_save_faults.moc"
