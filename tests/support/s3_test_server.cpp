#include "s3_test_server.h"

#include <QDir>
#include <QFile>
#include <QRandomGenerator>
#include <QStandardPaths>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ckpt/object_store.h"
#include "test_support.h"

namespace ckpt::testing {

std::optional<S3TestServer> s3TestServer(QString* why) {
    const QString state = qEnvironmentVariable("CKPT_S3_STATE");
    if (state.isEmpty()) {
        *why = QStringLiteral("CKPT_S3_STATE is not set: run through CTest (the s3 fixture starts the server)");
        return std::nullopt;
    }
    QFile f(state + QStringLiteral("/env"));
    if (!f.open(QIODevice::ReadOnly)) {
        *why = QStringLiteral("no %1: the s3 fixture (scripts/s3-server.sh start) did not run").arg(f.fileName());
        return std::nullopt;
    }
    std::map<std::string, std::string> kv;
    for (const QByteArray& line : f.readAll().split('\n')) {
        const qsizetype eq = line.indexOf('=');
        if (eq > 0) kv[line.left(eq).toStdString()] = line.mid(eq + 1).toStdString();
    }
    S3TestServer s{kv["AWS_ENDPOINT_URL"], kv["AWS_ACCESS_KEY_ID"], kv["AWS_SECRET_ACCESS_KEY"], kv["AWS_REGION"],
                   kv["CKPT_S3_BUCKET"]};
    if (s.endpoint.empty() || s.secret.empty() || s.bucket.empty()) {
        *why = QStringLiteral("%1 is incomplete").arg(f.fileName());
        return std::nullopt;
    }
    return s;
}

std::map<std::string, std::string> S3TestServer::variables() const {
    static const QString emptyHome = QDir::tempPath() + QStringLiteral("/ckpt-s3-test-home");
    QDir().mkpath(emptyHome);
    return {{"HOME", emptyHome.toStdString()},
            {"AWS_ENDPOINT_URL", endpoint},
            {"AWS_ACCESS_KEY_ID", accessKeyId},
            {"AWS_SECRET_ACCESS_KEY", secret},
            {"AWS_REGION", region}};
}

void setStoreEnvironment(const std::map<std::string, std::string>& variables) {
    for (const char* name :
         {"AWS_ENDPOINT_URL", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_REGION", "AWS_SESSION_TOKEN", "AWS_PROFILE"})
        qunsetenv(name);
    for (const auto& [k, v] : variables) qputenv(k.c_str(), QByteArray::fromStdString(v));
}

objstore::EnvLookup lookupFrom(std::map<std::string, std::string> variables) {
    return [vars = std::move(variables)](std::string_view name) -> std::optional<std::string> {
        auto it = vars.find(std::string(name));
        if (it == vars.end()) return std::nullopt;
        return it->second;
    };
}

std::string uniquePrefix(const char* test) {
    return std::string(test) + "/" + QString::number(QRandomGenerator::global()->generate64(), 16).toStdString() + "/";
}

Status uploadDirectory(objstore::ObjectClient& client, const QString& localDir, const std::string& bucket,
                       const std::string& keyPrefix) {
    const QFileInfoList files = QDir(localDir).entryInfoList(QDir::Files, QDir::Name);
    for (const QFileInfo& f : files) {
        const QByteArray bytes = readAll(f.absoluteFilePath());
        auto put = client.put({bucket, keyPrefix + f.fileName().toStdString()},
                              std::string_view(bytes.constData(), size_t(bytes.size())));
        if (!put) return put.status();
    }
    return okStatus();
}

std::optional<UploadedRun> uploadedDemoRun(const S3TestServer& server, const QString& localDir, const char* test,
                                           const QStringList& trainArgs, QString* why) {
    setStoreEnvironment(server.variables());
    if (const Status s = configureObjectStores({}); !s.isOk()) {
        *why = QString::fromStdString(s.toString());
        return std::nullopt;
    }
    const CliRun train = runCkpt(QStringList{QStringLiteral("demo-train"), localDir} + trainArgs);
    if (train.exitCode != 0) {
        *why = QStringLiteral("demo-train failed: ") + QString::fromUtf8(train.err);
        return std::nullopt;
    }
    auto client = testClient(server.variables());
    if (!client) {
        *why = QStringLiteral("no client for the test server");
        return std::nullopt;
    }
    UploadedRun run;
    run.local = localDir;
    run.prefix = uniquePrefix(test);
    if (const Status s = uploadDirectory(*client, localDir, server.bucket, run.prefix + "run/"); !s.isOk()) {
        *why = QString::fromStdString(s.toString());
        return std::nullopt;
    }
    run.remote = QString::fromStdString("s3://" + server.bucket + "/" + run.prefix + "run");
    return run;
}

std::unique_ptr<objstore::ObjectClient> testClient(std::map<std::string, std::string> variables) {
    auto settings = objstore::resolveStoreSettings(objstore::StoreKind::S3, lookupFrom(std::move(variables)));
    if (!settings) return nullptr;
    settings->transfer.retry.baseDelay = std::chrono::milliseconds(20);
    settings->transfer.retry.maxDelay = std::chrono::milliseconds(200);
    auto client = objstore::ObjectClient::create(std::move(*settings));
    return client ? std::move(*client) : nullptr;
}

int freeLoopbackPort() {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) return 0;
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    int port = 0;
    if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 &&
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0)
        port = ntohs(addr.sin_port);
    ::close(fd);
    return port;
}

FaultProxy::~FaultProxy() { stop(); }

bool FaultProxy::start(const std::string& upstream, double slowdown, double reset, double midreset, int seed, bool ignoreRange,
                       double lostReply, bool loseConditionalReplies, bool stripConditions, double delaySeconds,
                       const QString& delayWhile) {
    m_process = std::make_unique<QProcess>();
    m_process->setProcessChannelMode(QProcess::SeparateChannels);
    QStringList args = {sourceDir() + QStringLiteral("/scripts/s3-fault-proxy.py"),
                        QStringLiteral("--upstream"),
                        QString::fromStdString(upstream),
                        QStringLiteral("--slowdown"),
                        QString::number(slowdown),
                        QStringLiteral("--reset"),
                        QString::number(reset),
                        QStringLiteral("--midreset"),
                        QString::number(midreset),
                        QStringLiteral("--lostreply"),
                        QString::number(lostReply),
                        QStringLiteral("--seed"),
                        QString::number(seed)};
    if (ignoreRange) args << QStringLiteral("--ignore-range");
    if (loseConditionalReplies) args << QStringLiteral("--lose-conditional-replies");
    if (stripConditions) args << QStringLiteral("--strip-conditions");
    if (delaySeconds > 0) args << QStringLiteral("--delay") << QString::number(delaySeconds);
    if (!delayWhile.isEmpty()) args << QStringLiteral("--delay-while") << delayWhile;
    m_process->start(QStringLiteral("python3"), args);
    if (!m_process->waitForStarted(10000)) return false;
    for (int i = 0; i < 100 && !m_process->canReadLine(); ++i) m_process->waitForReadyRead(100);
    const QByteArray line = m_process->readLine().trimmed();
    if (!line.startsWith("port ")) return false;
    m_port = line.mid(5).toInt();
    return m_port > 0;
}

QString FaultProxy::stop() {
    if (!m_process) return {};
    m_process->terminate();
    if (!m_process->waitForFinished(10000)) {
        m_process->kill();
        m_process->waitForFinished(5000);
    }
    QString counters = QString::fromUtf8(m_process->readAllStandardOutput()).trimmed();
    m_process.reset();
    return counters;
}

std::optional<std::string> s3RootThroughDispatch(const char* test, QString* why) {
    const auto server = s3TestServer(why);
    if (!server) return std::nullopt;
    setStoreEnvironment(server->variables());
    if (const Status configured = configureObjectStores({}); !configured.isOk()) {
        *why = QString::fromStdString(configured.toString());
        return std::nullopt;
    }
    return "s3://" + server->bucket + "/" + uniquePrefix(test);
}

}  // namespace ckpt::testing
