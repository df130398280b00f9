// resolveStoreSettings(): credentials, region, endpoint and addressing the
// way the AWS CLI finds them, from a variable map and a temporary HOME with
// real ~/.aws files. No message ever carries a secret.

#include <QtTest>

#include <map>

#include "objstore/store_settings.h"
#include "test_support.h"

using namespace ckpt::objstore;

namespace {

const std::string kSecret = "S3cr3t/Value+ThatMustNeverShow";
const std::string kToken = "T0ken/ThatMustNeverShowEither";

struct Env {
    std::map<std::string, std::string> vars;
    EnvLookup lookup() const {
        return [this](std::string_view name) -> std::optional<std::string> {
            auto it = vars.find(std::string(name));
            if (it == vars.end()) return std::nullopt;
            return it->second;
        };
    }
};

void checkNoSecret(const ckpt::Status& s) {
    const QString msg = QString::fromStdString(s.toString());
    QVERIFY2(!msg.contains(QString::fromStdString(kSecret)), qPrintable(msg));
    QVERIFY2(!msg.contains(QString::fromStdString(kToken)), qPrintable(msg));
}

}  // namespace

class TstStoreSettings : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_home;
    Env baseEnv() const { return Env{{{"HOME", m_home.path().toStdString()}}}; }
    void writeAws(const char* name, const std::string& text) {
        QDir(m_home.path()).mkpath(QStringLiteral(".aws"));
        QVERIFY(ckpt::testing::writeAll(m_home.path() + "/.aws/" + name, QByteArray::fromStdString(text)));
    }

private slots:
    void init() { QDir(m_home.path() + "/.aws").removeRecursively(); }

    void variablesWin() {
        writeAws("credentials", "[default]\naws_access_key_id = FROMFILE\naws_secret_access_key = filesecret\n");
        Env env = baseEnv();
        env.vars["AWS_ACCESS_KEY_ID"] = "AKIDENV";
        env.vars["AWS_SECRET_ACCESS_KEY"] = kSecret;
        env.vars["AWS_SESSION_TOKEN"] = kToken;
        auto s = resolveStoreSettings(StoreKind::S3, env.lookup());
        QVERIFY2(s.ok(), s.status().toString().c_str());
        QCOMPARE(QString::fromStdString(s->credentials.accessKeyId), QStringLiteral("AKIDENV"));
        QCOMPARE(s->credentials.secretAccessKey.reveal(), kSecret);
        QCOMPARE(s->credentials.sessionToken.reveal(), kToken);
        QCOMPARE(QString::fromStdString(s->credentialSource), QStringLiteral("AWS_ACCESS_KEY_ID"));
        // AWS's own endpoint: regional, virtual-hosted, TLS.
        QCOMPARE(QString::fromStdString(s->region), QStringLiteral("us-east-1"));
        QCOMPARE(QString::fromStdString(s->endpoint.toString()), QStringLiteral("https://s3.us-east-1.amazonaws.com"));
        QVERIFY(s->addressing == Addressing::VirtualHost);
        QVERIFY(s->transfer.maxInFlight >= 4 && s->transfer.maxInFlight <= 8);
    }

    void profileFiles() {
        writeAws("credentials",
                 "# comment\n[default]\naws_access_key_id=DEF\naws_secret_access_key=def\n\n"
                 "[dev]\naws_access_key_id = AKIDDEV\naws_secret_access_key = " +
                     kSecret + "\n");
        writeAws("config",
                 "[default]\nregion = us-west-2\n[profile dev]\nregion = eu-central-1\n"
                 "endpoint_url = http://127.0.0.1:9000\ns3 =\n  addressing_style = virtual\n"
                 "[sso-session dev]\nregion = nowhere\n");
        Env env = baseEnv();
        env.vars["AWS_PROFILE"] = "dev";
        auto s = resolveStoreSettings(StoreKind::S3, env.lookup());
        QVERIFY2(s.ok(), s.status().toString().c_str());
        QCOMPARE(QString::fromStdString(s->credentials.accessKeyId), QStringLiteral("AKIDDEV"));
        QCOMPARE(QString::fromStdString(s->region), QStringLiteral("eu-central-1"));
        QCOMPARE(QString::fromStdString(s->endpoint.toString()), QStringLiteral("http://127.0.0.1:9000"));
        QVERIFY(s->addressing == Addressing::VirtualHost);
        QVERIFY(QString::fromStdString(s->credentialSource).contains(QStringLiteral("profile \"dev\"")));

        // The variables win over the profile's region and endpoint.
        env.vars["AWS_REGION"] = "ap-south-1";
        env.vars["AWS_ENDPOINT_URL"] = "http://localhost:9100";
        s = resolveStoreSettings(StoreKind::S3, env.lookup());
        QVERIFY(s.ok());
        QCOMPARE(QString::fromStdString(s->region), QStringLiteral("ap-south-1"));
        QCOMPARE(QString::fromStdString(s->endpoint.toString()), QStringLiteral("http://localhost:9100"));
        // --endpoint-url and --profile win over everything.
        StoreOverrides o;
        o.endpointUrl = "http://127.0.0.1:9200";
        o.profile = "default";
        o.addressing = Addressing::Path;
        s = resolveStoreSettings(StoreKind::S3, env.lookup(), o);
        QVERIFY(s.ok());
        QCOMPARE(QString::fromStdString(s->credentials.accessKeyId), QStringLiteral("DEF"));
        QCOMPARE(QString::fromStdString(s->endpoint.toString()), QStringLiteral("http://127.0.0.1:9200"));
        QVERIFY(s->addressing == Addressing::Path);
    }

    void customEndpointDefaultsToPathStyle() {
        Env env = baseEnv();
        env.vars["AWS_ACCESS_KEY_ID"] = "A";
        env.vars["AWS_SECRET_ACCESS_KEY"] = kSecret;
        env.vars["AWS_ENDPOINT_URL_S3"] = "https://minio.example.com";
        auto s = resolveStoreSettings(StoreKind::S3, env.lookup());
        QVERIFY(s.ok());
        QVERIFY(s->addressing == Addressing::Path);
    }

    void gcs() {
        Env env = baseEnv();
        env.vars["AWS_ACCESS_KEY_ID"] = "AWSKEY";
        env.vars["AWS_SECRET_ACCESS_KEY"] = "awssecret";
        env.vars["AWS_ENDPOINT_URL"] = "http://127.0.0.1:1";  // an S3 setting: not for gs://
        auto s = resolveStoreSettings(StoreKind::Gcs, env.lookup());
        QVERIFY(s.ok());
        QCOMPARE(QString::fromStdString(s->endpoint.toString()), QStringLiteral("https://storage.googleapis.com"));
        QCOMPARE(QString::fromStdString(s->region), QStringLiteral("auto"));
        QVERIFY(s->addressing == Addressing::Path);
        QCOMPARE(QString::fromStdString(s->credentials.accessKeyId), QStringLiteral("AWSKEY"));
        env.vars["GS_ACCESS_KEY_ID"] = "GOOGHMAC";
        env.vars["GS_SECRET_ACCESS_KEY"] = kSecret;
        s = resolveStoreSettings(StoreKind::Gcs, env.lookup());
        QVERIFY(s.ok());
        QCOMPARE(QString::fromStdString(s->credentials.accessKeyId), QStringLiteral("GOOGHMAC"));
    }

    void refusals_data() {
        QTest::addColumn<QStringList>("vars");  // NAME=VALUE
        QTest::addColumn<QString>("credentialsFile");
        QTest::addColumn<int>("code");
        QTest::addColumn<QString>("fragment");
        const QString S = QString::fromStdString(kSecret);
        QTest::newRow("no credentials") << QStringList{} << QString() << int(ckpt::StatusCode::PermissionDenied)
                                        << "no credentials for s3://: set AWS_ACCESS_KEY_ID";
        QTest::newRow("secret without key id")
            << QStringList{"AWS_SECRET_ACCESS_KEY=" + S} << QString() << int(ckpt::StatusCode::InvalidArgument)
            << "AWS_SECRET_ACCESS_KEY is set but AWS_ACCESS_KEY_ID is not";
        QTest::newRow("plain http to a remote host")
            << QStringList{"AWS_ACCESS_KEY_ID=A", "AWS_SECRET_ACCESS_KEY=" + S, "AWS_ENDPOINT_URL=http://10.1.2.3:9000"}
            << QString() << int(ckpt::StatusCode::FailedPrecondition) << "plain http to http://10.1.2.3:9000";
        QTest::newRow("endpoint with user info")
            << QStringList{"AWS_ACCESS_KEY_ID=A", "AWS_SECRET_ACCESS_KEY=" + S, "AWS_ENDPOINT_URL=https://A:" + S + "@host"}
            << QString() << int(ckpt::StatusCode::InvalidArgument) << "AWS_ENDPOINT_URL: credentials in the URL";
        QTest::newRow("missing profile") << QStringList{"AWS_PROFILE=nope"} << QString() << int(ckpt::StatusCode::NotFound)
                                         << "profile \"nope\" is in neither";
        QTest::newRow("malformed credentials line")
            << QStringList{} << "[default]\naws_access_key_id = A\naws_secret_access_key " + S + "\n"
            << int(ckpt::StatusCode::InvalidArgument) << "credentials line 3: expected \"key = value\"";
        QTest::newRow("unterminated section") << QStringList{} << "[default\naws_secret_access_key = " + S + "\n"
                                              << int(ckpt::StatusCode::InvalidArgument) << "line 1: unterminated section header";
        QTest::newRow("bad region") << QStringList{"AWS_ACCESS_KEY_ID=A", "AWS_SECRET_ACCESS_KEY=" + S,
                                                   "AWS_REGION=us-east-1/../x"}
                                    << QString() << int(ckpt::StatusCode::InvalidArgument) << "region";
        QTest::newRow("bad in-flight") << QStringList{"AWS_ACCESS_KEY_ID=A", "AWS_SECRET_ACCESS_KEY=" + S,
                                                      "CKPT_S3_MAX_IN_FLIGHT=1000"}
                                       << QString() << int(ckpt::StatusCode::InvalidArgument)
                                       << "CKPT_S3_MAX_IN_FLIGHT must be a number from 1 to 64";
        // Under S3's 5 MiB minimum a multipart completion would fail late, after every part was sent.
        for (const char* mib : {"4", "5121", "8M"})
            QTest::newRow(qPrintable(QStringLiteral("bad part size %1").arg(QLatin1String(mib))))
                << QStringList{"AWS_ACCESS_KEY_ID=A", "AWS_SECRET_ACCESS_KEY=" + S, "CKPT_S3_PART_SIZE_MIB=" + QLatin1String(mib)}
                << QString() << int(ckpt::StatusCode::InvalidArgument) << "CKPT_S3_PART_SIZE_MIB must be a number from 5 to 5120";
    }
    void refusals() {
        QFETCH(QStringList, vars);
        QFETCH(QString, credentialsFile);
        QFETCH(int, code);
        QFETCH(QString, fragment);
        if (!credentialsFile.isEmpty()) writeAws("credentials", credentialsFile.toStdString());
        Env env = baseEnv();
        for (const QString& v : vars) {
            const qsizetype eq = v.indexOf(QLatin1Char('='));
            env.vars[v.left(eq).toStdString()] = v.mid(eq + 1).toStdString();
        }
        auto s = resolveStoreSettings(StoreKind::S3, env.lookup());
        QVERIFY(!s.ok());
        QCOMPARE(int(s.status().code()), code);
        QVERIFY2(QString::fromStdString(s.status().message()).contains(fragment), s.status().toString().c_str());
        checkNoSecret(s.status());
    }

    void allowHttp() {
        Env env = baseEnv();
        env.vars["AWS_ACCESS_KEY_ID"] = "A";
        env.vars["AWS_SECRET_ACCESS_KEY"] = kSecret;
        env.vars["AWS_ENDPOINT_URL"] = "http://10.1.2.3:9000";
        StoreOverrides o;
        o.allowHttp = true;
        QVERIFY(resolveStoreSettings(StoreKind::S3, env.lookup(), o).ok());
        env.vars["CKPT_S3_ALLOW_HTTP"] = "1";
        QVERIFY(resolveStoreSettings(StoreKind::S3, env.lookup()).ok());
    }
};

QTEST_GUILESS_MAIN(TstStoreSettings)
#include "tst_store_settings.moc"
