// Search over a generated set of checkpoints with varied keys (a demo run
// with optimizer slots, object-based BERT-like and name-based ResNet- and
// GPT-like keys), checked against a brute-force substring search over
// Catalog::tensors() of every checkpoint: plain substrings of any length
// (one and two characters, '/', '_', '.', '-', quotes, parentheses),
// several words (each in the key or the object path), FTS5 syntax (OR,
// NOT, phrases, column filters), syntax errors, grouping and truncation;
// every query both ways a search can read the rows (through the key index,
// walking the checkpoints), and hits reported as they are found.

#include "ckpt/catalog.h"
#include "ckpt/demo_trainer.h"

#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <cctype>
#include <functional>
#include <set>
#include <sstream>

#include "catalog/catalog_search.h"
#include "catalog/database.h"
#include "catalog_support.h"
#include "test_support.h"

using namespace ckpt;
using namespace ckpt::testing;

namespace {

using Row = std::pair<std::string, std::string>;  // (prefix, key)
using Predicate = std::function<bool(const CatalogTensor&)>;

std::string lower(std::string s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}
bool has(const std::string& text, const std::string& word) { return lower(text).find(lower(word)) != std::string::npos; }
bool inKey(const CatalogTensor& t, const std::string& w) { return has(t.key, w); }
bool inPath(const CatalogTensor& t, const std::string& w) { return has(t.objectPath, w); }
bool inEither(const CatalogTensor& t, const std::string& w) { return inKey(t, w) || inPath(t, w); }

// A plain query: every whitespace-separated word is a substring (ASCII case
// ignored) of the key or of the object path.
Predicate plain(const std::string& query) {
    std::vector<std::string> words;
    std::istringstream in(query);
    for (std::string w; in >> w;) words.push_back(w);
    return [words](const CatalogTensor& t) {
        return std::all_of(words.begin(), words.end(), [&](const std::string& w) { return inEither(t, w); });
    };
}

struct Fixture {
    QTemporaryDir tmp;
    std::string root = tmp.filePath(QStringLiteral("exp")).toStdString();
    std::unique_ptr<Catalog> catalog;
    // A second connection to the same file, for catalog::search with a
    // forced plan (Catalog keeps its own private).
    std::unique_ptr<catalog::Database> database;
    std::vector<CatalogCheckpoint> checkpoints;  // by directory, then step
    std::map<int64_t, std::vector<CatalogTensor>> rows;

    bool build() {
        DemoTrainOptions demo;
        demo.directory = root + "/demo";
        demo.steps = 80;
        demo.maxToKeep = 2;
        if (!runDemoTraining(demo).ok()) return false;
        const std::vector<std::string> bert = {"encoder/layer_0/attention/query/kernel",
                                               "encoder/layer_0/attention/query/bias",
                                               "encoder/layer_0/attention/key/kernel",
                                               "encoder/layer_1/output/dense/kernel",
                                               "encoder/layer_11/output/LayerNorm/gamma",
                                               "embeddings/word_embeddings",
                                               "pooler/dense/kernel",
                                               "model/a.b/w"};
        for (int i = 1; i <= 3; ++i)
            if (!writeObjectCheckpoint(root + "/bert/ckpt-" + std::to_string(i), bert, static_cast<float>(i), 1000 * i).isOk())
                return false;
        const std::vector<std::string> resnet = {"resnet_v1_50/block1/unit_1/bottleneck_v1/conv1/weights",
                                                 "resnet_v1_50/block1/unit_1/bottleneck_v1/conv1/BatchNorm/moving_mean",
                                                 "resnet_v1_50/logits/biases",
                                                 "dense/kernel",
                                                 "global_step",
                                                 "it's_a_key",
                                                 "x"};
        for (int i = 1; i <= 2; ++i)
            if (!writeKeyedCheckpoint(root + "/resnet/model.ckpt-" + std::to_string(500 * i), resnet, static_cast<float>(i))
                     .isOk())
                return false;
        const std::vector<std::string> gpt = {
            "h.0.attn.c_attn.weight", "h.0.attn.c_proj.bias", "h.10.mlp.c_fc.weight", "ln_f.bias", "wte", "wpe", "lm-head/w"};
        if (!writeKeyedCheckpoint(root + "/gpt/step_7/weights", gpt, 7).isOk()) return false;

        auto opened = Catalog::open(tmp.filePath(QStringLiteral("catalog.db")).toStdString());
        if (!opened.ok()) return false;
        catalog = std::move(*opened);
        if (!catalog->addRoot(root).ok() || !catalog->scan({}).ok()) return false;
        auto connection = catalog::Database::open(tmp.filePath(QStringLiteral("catalog.db")).toStdString(), {});
        if (!connection.ok()) return false;
        database = std::move(*connection);
        auto all = catalog->checkpoints();
        if (!all.ok()) return false;
        checkpoints = *all;
        for (const CatalogCheckpoint& c : checkpoints) rows[c.id] = catalog->tensors(c.id).value();
        return checkpoints.size() == 8;
    }

    std::set<Row> bruteForce(const Predicate& match) const {
        std::set<Row> out;
        for (const CatalogCheckpoint& c : checkpoints)
            for (const CatalogTensor& t : rows.at(c.id))
                if (match(t)) out.emplace(c.prefix, t.key);
        return out;
    }
};

std::set<Row> found(const CatalogSearchResult& result) {
    std::set<Row> out;
    for (const CatalogSearchHit& hit : result.hits)
        for (const CatalogSearchMatch& m : hit.matches) out.emplace(hit.checkpoint.prefix, m.key);
    return out;
}

QString describe(const std::set<Row>& rows) {
    QStringList out;
    for (const Row& r : rows) out << QString::fromStdString(r.first + " " + r.second);
    if (out.size() > 8)
        return QString::number(out.size()) + QStringLiteral(" rows, first: ") + out.mid(0, 8).join(QStringLiteral("; "));
    return out.join(QStringLiteral("; "));
}

CatalogSearchOptions limited(int checkpoints, int matches) {
    CatalogSearchOptions o;
    o.maxCheckpoints = checkpoints;
    o.maxMatchesPerCheckpoint = matches;
    return o;
}
CatalogSearchOptions everything() { return limited(100000, 100000); }

}  // namespace

class TstCatalogSearch : public QObject {
    Q_OBJECT
    Fixture f;

    void check(const QString& query, const Predicate& predicate, bool mustMatch) {
        for (catalog::SearchPlan plan : {catalog::SearchPlan::Auto, catalog::SearchPlan::ByKeys, catalog::SearchPlan::Walk}) {
            checkPlan(query, predicate, mustMatch, plan);
            if (QTest::currentTestFailed()) {
                qWarning("plan %d", static_cast<int>(plan));
                return;
            }
        }
    }

    void checkPlan(const QString& query, const Predicate& predicate, bool mustMatch, catalog::SearchPlan plan) {
        const std::set<Row> expected = f.bruteForce(predicate);
        // Hits are reported as found, each complete, in the order returned.
        std::vector<CatalogSearchHit> reported;
        CatalogSearchOptions options = everything();
        options.onHit = [&](const CatalogSearchHit& hit) {
            reported.push_back(hit);
            return true;
        };
        auto result = catalog::search(*f.database, query.toStdString(), options, plan);
        QVERIFY2(result.ok(), result.status().toString().c_str());
        QCOMPARE(reported.size(), result->hits.size());
        for (size_t i = 0; i < reported.size(); ++i) {
            QCOMPARE(reported[i].checkpoint.id, result->hits[i].checkpoint.id);
            QCOMPARE(reported[i].totalMatches, result->hits[i].totalMatches);
            QCOMPARE(reported[i].matches.size(), result->hits[i].matches.size());
        }
        const std::set<Row> actual = found(*result);
        std::set<Row> missing, extra;
        std::set_difference(expected.begin(), expected.end(), actual.begin(), actual.end(),
                            std::inserter(missing, missing.end()));
        std::set_difference(actual.begin(), actual.end(), expected.begin(), expected.end(), std::inserter(extra, extra.end()));
        QVERIFY2(missing.empty() && extra.empty(),
                 qPrintable(QStringLiteral("query [%1] (FTS \"%2\"): missing %3 | extra %4")
                                .arg(query, QString::fromStdString(result->fullTextQuery), describe(missing), describe(extra))));
        QCOMPARE(result->query, query.toStdString());
        QCOMPARE(result->totalMatches, static_cast<int64_t>(expected.size()));
        std::set<std::string> checkpoints;
        for (const Row& r : expected) checkpoints.insert(r.first);
        QCOMPARE(result->totalCheckpoints, static_cast<int64_t>(checkpoints.size()));
        QCOMPARE(result->hits.size(), checkpoints.size());
        QVERIFY(!result->truncated);
        if (mustMatch) QVERIFY2(!expected.empty(), "the fixture should give this query something to find");
        // One hit per checkpoint, with the catalog's own record of it, in
        // the order checkpoints() lists them (by directory, then step).
        size_t next = 0;
        for (const CatalogSearchHit& hit : result->hits) {
            QCOMPARE(hit.totalMatches, static_cast<int64_t>(hit.matches.size()));
            while (next < f.checkpoints.size() && f.checkpoints[next].id != hit.checkpoint.id) ++next;
            QVERIFY2(next < f.checkpoints.size(), "hits out of order");
            QCOMPARE(hit.checkpoint.prefix, f.checkpoints[next].prefix);
            QCOMPARE(hit.checkpoint.step, f.checkpoints[next].step);
            for (const CatalogSearchMatch& m : hit.matches) {
                const auto& rows = f.rows.at(hit.checkpoint.id);
                auto it = std::find_if(rows.begin(), rows.end(), [&](const CatalogTensor& t) { return t.key == m.key; });
                QVERIFY(it != rows.end());
                QCOMPARE(m.objectPath, it->objectPath);
                QCOMPARE(m.dtype, it->dtype);
                QCOMPARE(m.shape, it->shape);
            }
        }
    }

private slots:
    void initTestCase() { QVERIFY(f.build()); }

    void plainSubstrings_data() {
        QTest::addColumn<QString>("query");
        QTest::addColumn<bool>("mustMatch");
        for (const char* q : {"kernel",
                              "layer_1",
                              "layer_11",
                              "attention/query",
                              "a.b",
                              "h.0.attn",
                              "c_attn.weight",
                              ".ATTRIBUTES/VARIABLE_VALUE",
                              "it's",
                              "'m'",
                              "state 'm' for",
                              "encoder kernel",
                              "query bias",
                              "ENCODER/Layer_0",
                              "LayerNorm",
                              "layer_with_weights-0",
                              "lm-head",
                              "w",
                              "x",
                              "ln",
                              "_",
                              "/",
                              ".",
                              "-",
                              "0",
                              "it",
                              "nothing_like_this",
                              "zz"})
            QTest::newRow(q) << QString::fromUtf8(q) << (std::string(q) != "nothing_like_this" && std::string(q) != "zz");
    }

    void plainSubstrings() {
        QFETCH(QString, query);
        QFETCH(bool, mustMatch);
        check(query, plain(query.toStdString()), mustMatch);
    }

    // Every object path starts with "(root)", and the explorer shows them:
    // one pasted as a query must find its tensor, not fail as FTS5 syntax
    // for its parentheses (as it does while any parenthesis makes a query
    // FTS5 syntax; an operator word or a quote is what should).
    void pastedObjectPath() {
        check(QStringLiteral("(root).model.a.b"), plain("(root).model.a.b"), true);
        check(QStringLiteral("(root).optimizer's state 'm' for (root).model.layer_with_weights-0.kernel"),
              plain("(root).optimizer's state 'm' for (root).model.layer_with_weights-0.kernel"), true);
    }

    void fullTextSyntax_data() {
        QTest::addColumn<QString>("query");
        QTest::addColumn<int>("which");
        QTest::newRow("OR") << QStringLiteral("kernel OR biases") << 0;
        QTest::newRow("NOT") << QStringLiteral("encoder NOT kernel") << 1;
        QTest::newRow("phrase") << QStringLiteral("\"attention/query\"") << 2;
        QTest::newRow("key: column") << QStringLiteral("key:kernel") << 3;
        QTest::newRow("object_path: column") << QStringLiteral("object_path:kernel") << 4;
        QTest::newRow("columns AND") << QStringLiteral("key:layer_0 AND object_path:query") << 5;
        QTest::newRow("AND, grouped OR") << QStringLiteral("encoder AND (bias OR gamma)") << 6;
        // ORs of words looked up one word at a time (search_candidates.cpp).
        QTest::newRow("OR of columns") << QStringLiteral("key:layer_1 OR object_path:bias OR _") << 7;
        QTest::newRow("OR of substrings") << QStringLiteral("ayer_ OR ttn") << 8;
    }

    void fullTextSyntax() {
        QFETCH(QString, query);
        QFETCH(int, which);
        const std::vector<Predicate> predicates = {
            [](const CatalogTensor& t) { return inEither(t, "kernel") || inEither(t, "biases"); },
            [](const CatalogTensor& t) { return inEither(t, "encoder") && !inEither(t, "kernel"); },
            [](const CatalogTensor& t) { return inEither(t, "attention/query"); },
            [](const CatalogTensor& t) { return inKey(t, "kernel"); },
            [](const CatalogTensor& t) { return inPath(t, "kernel"); },
            [](const CatalogTensor& t) { return inKey(t, "layer_0") && inPath(t, "query"); },
            [](const CatalogTensor& t) { return inEither(t, "encoder") && (inEither(t, "bias") || inEither(t, "gamma")); },
            [](const CatalogTensor& t) { return inKey(t, "layer_1") || inPath(t, "bias") || inEither(t, "_"); },
            [](const CatalogTensor& t) { return inEither(t, "ayer_") || inEither(t, "ttn"); },
        };
        check(query, predicates[static_cast<size_t>(which)], true);
        // The column filters must differ here, or they test nothing.
        if (which == 3) QVERIFY(f.bruteForce(predicates[3]) != f.bruteForce(predicates[4]));
    }

    void invalidSyntax_data() {
        QTest::addColumn<QString>("query");
        QTest::newRow("dangling OR") << QStringLiteral("kernel OR");
        QTest::newRow("unterminated phrase") << QStringLiteral("\"attention/query");
        QTest::newRow("unbalanced parenthesis") << QStringLiteral("encoder AND (bias");
    }

    void invalidSyntax() {
        QFETCH(QString, query);
        auto result = f.catalog->search(query.toStdString());
        QVERIFY2(!result.ok(), "accepted");
        QCOMPARE(result.status().code(), StatusCode::InvalidArgument);
        QVERIFY2(result.status().message().find(query.toStdString()) != std::string::npos, result.status().toString().c_str());
    }

    void limits() {
        const std::set<Row> all = f.bruteForce(plain("kernel"));
        std::set<std::string> checkpoints;
        for (const Row& r : all) checkpoints.insert(r.first);
        QVERIFY(checkpoints.size() > 3);
        auto full = f.catalog->search("kernel", everything());
        QVERIFY(full.ok());

        // Fewer checkpoints than match: the first ones, the totals of all.
        auto two = f.catalog->search("kernel", limited(2, 50));
        QVERIFY2(two.ok(), two.status().toString().c_str());
        QCOMPARE(two->hits.size(), size_t{2});
        QVERIFY(two->truncated);
        QCOMPARE(two->totalCheckpoints, static_cast<int64_t>(checkpoints.size()));
        QCOMPARE(two->totalMatches, static_cast<int64_t>(all.size()));
        for (size_t i = 0; i < 2; ++i) QCOMPARE(two->hits[i].checkpoint.id, full->hits[i].checkpoint.id);

        // Fewer matches per checkpoint: the count stays whole.
        auto one = f.catalog->search("kernel", limited(200, 1));
        QVERIFY2(one.ok(), one.status().toString().c_str());
        QVERIFY(!one->truncated);
        QCOMPARE(one->hits.size(), checkpoints.size());
        for (size_t i = 0; i < one->hits.size(); ++i) {
            QCOMPARE(one->hits[i].matches.size(), size_t{1});
            QCOMPARE(one->hits[i].totalMatches, full->hits[i].totalMatches);
        }
        QVERIFY(std::any_of(one->hits.begin(), one->hits.end(), [](const CatalogSearchHit& h) { return h.totalMatches > 1; }));

        // The walk reports the first hits before it has counted the rest,
        // and stops when told to.
        int seen = 0;
        CatalogSearchOptions stopAfterOne = limited(2, 50);
        stopAfterOne.onHit = [&](const CatalogSearchHit&) { return ++seen < 1; };
        auto stopped = catalog::search(*f.database, "kernel", stopAfterOne, catalog::SearchPlan::Walk);
        QCOMPARE(stopped.status().code(), StatusCode::Cancelled);
        QCOMPARE(seen, 1);
        CancellationToken cancel;
        cancel.cancel();
        CatalogSearchOptions cancelled = everything();
        cancelled.cancel = &cancel;
        QCOMPARE(f.catalog->search("kernel", cancelled).status().code(), StatusCode::Cancelled);
        for (catalog::SearchPlan plan : {catalog::SearchPlan::ByKeys, catalog::SearchPlan::Walk}) {
            auto walked = catalog::search(*f.database, "kernel", limited(2, 1), plan);
            QVERIFY2(walked.ok(), walked.status().toString().c_str());
            QCOMPARE(walked->totalMatches, static_cast<int64_t>(all.size()));
            QCOMPARE(walked->totalCheckpoints, static_cast<int64_t>(checkpoints.size()));
            QCOMPARE(walked->hits.size(), size_t{2});
            QVERIFY(walked->truncated);
            QCOMPARE(walked->hits[0].matches[0].key, full->hits[0].matches[0].key);
        }

        // Without exact totals the walk stops counting at the first
        // checkpoint it does not show: the same hits, each with its own
        // exact count, and totals flagged as lower bounds. Reading the rows
        // through the keys counts them all anyway: exact, and said so.
        QVERIFY(full->totalsExact);
        QVERIFY(two->totalsExact);
        for (catalog::SearchPlan plan : {catalog::SearchPlan::ByKeys, catalog::SearchPlan::Walk}) {
            CatalogSearchOptions quick = limited(2, 50);
            quick.exactTotals = false;
            auto bounded = catalog::search(*f.database, "kernel", quick, plan);
            QVERIFY2(bounded.ok(), bounded.status().toString().c_str());
            QVERIFY(bounded->truncated);
            QCOMPARE(bounded->hits.size(), size_t{2});
            for (size_t i = 0; i < 2; ++i) {
                QCOMPARE(bounded->hits[i].checkpoint.id, full->hits[i].checkpoint.id);
                QCOMPARE(bounded->hits[i].totalMatches, full->hits[i].totalMatches);
                QCOMPARE(bounded->hits[i].matches.size(), full->hits[i].matches.size());
            }
            if (plan == catalog::SearchPlan::ByKeys) {
                QVERIFY(bounded->totalsExact);
                QCOMPARE(bounded->totalCheckpoints, static_cast<int64_t>(checkpoints.size()));
                QCOMPARE(bounded->totalMatches, static_cast<int64_t>(all.size()));
                continue;
            }
            QVERIFY(!bounded->totalsExact);
            QCOMPARE(bounded->totalCheckpoints, int64_t{3});  // the two shown and the one that proved there are more
            QVERIFY(bounded->totalCheckpoints < static_cast<int64_t>(checkpoints.size()));
            QCOMPARE(bounded->totalMatches, full->hits[0].totalMatches + full->hits[1].totalMatches + full->hits[2].totalMatches);
            QVERIFY(bounded->totalMatches < static_cast<int64_t>(all.size()));
            // Everything shown: nothing left to count, the totals exact.
            CatalogSearchOptions roomy = everything();
            roomy.exactTotals = false;
            auto whole = catalog::search(*f.database, "kernel", roomy, plan);
            QVERIFY2(whole.ok(), whole.status().toString().c_str());
            QVERIFY(whole->totalsExact && !whole->truncated);
            QCOMPARE(whole->totalMatches, static_cast<int64_t>(all.size()));
            QCOMPARE(whole->totalCheckpoints, static_cast<int64_t>(checkpoints.size()));
        }

        // Nothing found is a result, not an error.
        auto none = f.catalog->search("no_such_tensor_anywhere");
        QVERIFY(none.ok());
        QVERIFY(none->hits.empty());
        QCOMPARE(none->totalMatches, int64_t{0});
    }
};

QTEST_GUILESS_MAIN(TstCatalogSearch)
#include "tst_catalog_search.moc"
