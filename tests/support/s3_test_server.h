#pragma once
// The loopback S3 server (SeaweedFS) that the `s3` CTest fixture starts
// with scripts/s3-server.sh, and the fault-injecting proxy
// (scripts/s3-fault-proxy.py) the retry tests put in front of it.

#include <QProcess>
#include <QString>

#include <map>
#include <memory>
#include <optional>
#include <string>

#include "objstore/object_client.h"
#include "objstore/store_settings.h"

namespace ckpt::testing {

struct S3TestServer {
    std::string endpoint;  // http://127.0.0.1:PORT
    std::string accessKeyId;
    std::string secret;
    std::string region;
    std::string bucket;
    // Variables for resolveStoreSettings (HOME: an empty directory, so no
    // ~/.aws file of the machine's user is read), as a map tests may edit.
    std::map<std::string, std::string> variables() const;
};

// Reads $CKPT_S3_STATE/env. nullopt, with the reason in 'why', when the
// fixture did not run (the test then fails: the server is part of the suite).
std::optional<S3TestServer> s3TestServer(QString* why);
objstore::EnvLookup lookupFrom(std::map<std::string, std::string> variables);
// Makes 'variables' this process's store settings (for the ckpt it starts,
// and the engine's own clients once they are made again): the AWS
// variables it does not name are unset.
void setStoreEnvironment(const std::map<std::string, std::string>& variables);
// Uploads every regular file directly inside 'localDir' to
// s3://bucket/keyPrefix<name> (fixtures: a checkpoint written locally).
Status uploadDirectory(objstore::ObjectClient& client, const QString& localDir, const std::string& bucket,
                       const std::string& keyPrefix);
// A demo run trained locally into 'localDir' (`ckpt demo-train localDir
// trainArgs...`) and uploaded to s3://bucket/<uniquePrefix(test)>run/, with
// the fixture's server made this process's store (as s3RootThroughDispatch).
// nullopt, with the reason in 'why', when any step fails.
struct UploadedRun {
    QString local;       // the run on disk
    QString remote;      // s3://bucket/<test>/<random>/run, no trailing slash
    std::string prefix;  // "<test>/<random>/": keys of this test start with it
};
std::optional<UploadedRun> uploadedDemoRun(const S3TestServer& server, const QString& localDir, const char* test,
                                           const QStringList& trainArgs, QString* why);

// A client for the test server with the given variables (retries fast).
std::unique_ptr<objstore::ObjectClient> testClient(std::map<std::string, std::string> variables);
// A TCP port on 127.0.0.1 that was free a moment ago (nothing listens on it).
int freeLoopbackPort();
// A key prefix no other test or run uses: "<test>/<random>/".
std::string uniquePrefix(const char* test);
// The fixture's server made the s3:// backend of this process and of the
// ckpt it starts (setStoreEnvironment, then the engine's clients made
// again), and a root under it no other test uses:
// "s3://<bucket>/<test>/<random>/". nullopt, with the reason in 'why',
// when the fixture did not run or the backend cannot be configured.
std::optional<std::string> s3RootThroughDispatch(const char* test, QString* why);

// scripts/s3-fault-proxy.py on a free loopback port, stopped when destroyed.
class FaultProxy {
public:
    FaultProxy() = default;
    ~FaultProxy();
    FaultProxy(const FaultProxy&) = delete;
    FaultProxy& operator=(const FaultProxy&) = delete;
    // Rates per request: 503 SlowDown, reset before answering, reset halfway
    // through the body, and forwarded but reset unanswered (a lost reply);
    // with 'loseConditionalReplies' the first attempt of every conditional
    // write (If-None-Match, If-Match) is forwarded and its answer lost; with
    // 'stripConditions' the conditional headers are dropped (a server that
    // ignores them); every request is held 'delaySeconds' before it is
    // answered (a slow server), with 'delayWhile' only while that file exists.
    bool start(const std::string& upstream, double slowdown, double reset, double midreset, int seed = 1,
               bool ignoreRange = false, double lostReply = 0, bool loseConditionalReplies = false, bool stripConditions = false,
               double delaySeconds = 0, const QString& delayWhile = {});
    std::string endpoint() const { return "http://127.0.0.1:" + std::to_string(m_port); }
    // Stops it and returns its counters line ("requests R slowdown S reset T midreset M").
    QString stop();

private:
    std::unique_ptr<QProcess> m_process;
    int m_port = 0;
};

}  // namespace ckpt::testing
