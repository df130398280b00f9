// The catalog's query reader (catalog/search_query.h) against the index it
// replaced: for FTS5 syntax (parseFts5; a plain query becomes FTS5 syntax
// only with a quote, a column filter or an operator word) over phrases of
// three or more characters,
// SearchQuery::matches must pick exactly the rows that SQLite's own FTS5
// trigram table picks (the semantics the catalog documented until schema
// version 5), on keys chosen to make substrings, case, column filters and
// operator precedence matter. Also: the words a phrase is split into, the
// NEAR distance, and malformed queries refused naming themselves.

#include <QtTest>

#include <sqlite3.h>

#include <set>
#include <string>
#include <vector>

#include "catalog/search_query.h"

using namespace ckpt;
using namespace ckpt::catalog;

namespace {

struct Row {
    std::string key, path;
};

const std::vector<Row> kRows = {
    {"encoder/layer_0/attention/query/kernel/.ATTRIBUTES/VARIABLE_VALUE", "(root).encoder.layer_0.attention.query.kernel"},
    {"encoder/layer_0/attention/query/bias/.ATTRIBUTES/VARIABLE_VALUE", "(root).encoder.layer_0.attention.query.bias"},
    {"encoder/layer_1/output/LayerNorm/gamma/.ATTRIBUTES/VARIABLE_VALUE", "(root).encoder.layer_1.output.LayerNorm.gamma"},
    {"encoder/layer_11/output/dense/kernel/.ATTRIBUTES/VARIABLE_VALUE", "(root).encoder.layer_11.output.dense.kernel"},
    {"decoder/layer_0/attention/key/kernel/.OPTIMIZER_SLOT/optimizer/m/.ATTRIBUTES/VARIABLE_VALUE",
     "(root).optimizer's state 'm' for (root).decoder.layer_0.attention.key.kernel"},
    {"resnet_v1_50/block1/unit_1/bottleneck_v1/conv1/weights", ""},
    {"resnet_v1_50/block1/unit_1/bottleneck_v1/conv1/BatchNorm/moving_mean", ""},
    {"h.0.attn.c_attn.weight", ""},
    {"h.10.mlp.c_fc.weight", ""},
    {"kernelish/attention_query", "(root).kernelish.attention_query"},
    {"save_counter/.ATTRIBUTES/VARIABLE_VALUE", "(root).save_counter"},
    {"Query/KERNEL", "(root).Query.KERNEL"},
};

std::set<size_t> viaFts5(const std::string& query) {
    sqlite3* db = nullptr;
    sqlite3_open(":memory:", &db);
    sqlite3_exec(db,
                 "CREATE TABLE k (id INTEGER PRIMARY KEY, key TEXT, object_path TEXT);"
                 "CREATE VIRTUAL TABLE t USING fts5(key, object_path, content='k', content_rowid='id', tokenize='trigram');",
                 nullptr, nullptr, nullptr);
    sqlite3_stmt* ins = nullptr;
    sqlite3_prepare_v2(db, "INSERT INTO k VALUES (?1, ?2, ?3)", -1, &ins, nullptr);
    for (size_t i = 0; i < kRows.size(); ++i) {
        sqlite3_bind_int64(ins, 1, static_cast<int64_t>(i));
        sqlite3_bind_text(ins, 2, kRows[i].key.c_str(), -1, SQLITE_STATIC);
        sqlite3_bind_text(ins, 3, kRows[i].path.c_str(), -1, SQLITE_STATIC);
        sqlite3_step(ins);
        sqlite3_reset(ins);
    }
    sqlite3_finalize(ins);
    sqlite3_exec(db, "INSERT INTO t (t) VALUES ('rebuild')", nullptr, nullptr, nullptr);
    sqlite3_stmt* q = nullptr;
    std::set<size_t> out;
    if (sqlite3_prepare_v2(db, "SELECT rowid FROM t WHERE t MATCH ?1", -1, &q, nullptr) == SQLITE_OK) {
        sqlite3_bind_text(q, 1, query.c_str(), -1, SQLITE_STATIC);
        while (sqlite3_step(q) == SQLITE_ROW) out.insert(static_cast<size_t>(sqlite3_column_int64(q, 0)));
        sqlite3_finalize(q);
    }
    sqlite3_close(db);
    return out;
}

std::set<size_t> viaQuery(const SearchQuery& q) {
    std::set<size_t> out;
    for (size_t i = 0; i < kRows.size(); ++i)
        if (q.matches(kRows[i].key, kRows[i].path)) out.insert(i);
    return out;
}

QString describe(const std::set<size_t>& rows) {
    QStringList out;
    for (size_t r : rows) out << QString::number(static_cast<int>(r));
    return out.join(QLatin1Char(','));
}

}  // namespace

class TstSearchQuery : public QObject {
    Q_OBJECT
private slots:
    void sameRowsAsTrigramFts5_data() {
        QTest::addColumn<QString>("query");
        for (const char* q : {"\"attention/query\"",
                              "kernel OR gamma",
                              "kernel NOT optimizer",
                              "encoder AND (bias OR gamma)",
                              "encoder AND bias OR gamma",
                              "encoder OR bias AND gamma",
                              "encoder NOT kernel OR weights",
                              "key:kernel",
                              "object_path:kernel",
                              "key:layer_0 AND object_path:query",
                              "{key object_path}:gamma",
                              "-key:root",
                              "-object_path:kernel",
                              "key:(kernel OR weights)",
                              "KEY:query",
                              "\"QUERY\"",
                              "^encoder",
                              "^\"(root).encoder\"",
                              "object_path:^\"(root).kernelish\"",
                              "atten*",
                              "\"c_attn.weight\"",
                              "\"'m' for\"",
                              "layer_1 layer_11",
                              "\"layer_1\" NOT \"layer_11\"",
                              "\"h.10\" OR \"h.0.\"",
                              "no_such_thing OR \"BatchNorm\""})
            QTest::newRow(q) << QString::fromUtf8(q);
    }
    void sameRowsAsTrigramFts5() {
        QFETCH(QString, query);
        const std::string text = query.toStdString();
        auto parsed = SearchQuery::parseFts5(text);
        QVERIFY2(parsed.ok(), parsed.status().toString().c_str());
        const std::set<size_t> expected = viaFts5(text);
        const std::set<size_t> actual = viaQuery(*parsed);
        QVERIFY2(expected == actual,
                 qPrintable(QStringLiteral("[%1]: FTS5 %2, ours %3").arg(query, describe(expected), describe(actual))));
    }

    // Plain text never becomes FTS5 syntax: a pasted object path with its
    // parentheses and quote, and every word a substring of either text.
    void plainWords() {
        auto q = SearchQuery::parse("(root).optimizer's 'm'");
        QVERIFY(q.ok());
        QVERIFY(q->matches(kRows[4].key, kRows[4].path));
        QVERIFY(!q->matches(kRows[0].key, kRows[0].path));
        auto two = SearchQuery::parse("LAYER_0 .attention.");
        QVERIFY(two.ok());
        QCOMPARE(viaQuery(*two), (std::set<size_t>{0, 1, 4}));
        QVERIFY(SearchQuery::parse("   ")->empty());
    }

    // The words of a phrase, and which may be part of a longer word.
    void words() {
        const auto w = phraseWords("layer_3/kernel");
        QCOMPARE(w.size(), size_t{2});
        QCOMPARE(std::string(w[0].text), std::string("layer_3"));
        QVERIFY(w[0].mayExtendLeft && !w[0].mayExtendRight);
        QCOMPARE(std::string(w[1].text), std::string("kernel"));
        QVERIFY(!w[1].mayExtendLeft && w[1].mayExtendRight);
        const auto inner = phraseWords("/a/b.c/");
        QCOMPARE(inner.size(), size_t{3});
        for (const PhraseWord& p : inner) QVERIFY(!p.mayExtendLeft && !p.mayExtendRight);
        const auto whole = phraseWords("kern");
        QCOMPARE(whole.size(), size_t{1});
        QVERIFY(whole[0].mayExtendLeft && whole[0].mayExtendRight);
        QVERIFY(phraseWords("/.-").empty());
        const auto utf8 = phraseWords("gr\xc3\xbc\xc3\x9f/e");  // non-ASCII bytes stay inside words
        QCOMPARE(utf8.size(), size_t{2});
        QCOMPARE(std::string(utf8[0].text), std::string("gr\xc3\xbc\xc3\x9f"));
    }

    // NEAR: every phrase in one column, the last starting at most N
    // characters after the first one ends.
    void near() {
        auto q = SearchQuery::parse("NEAR(encoder query, 20)");
        QVERIFY(SearchQuery::parse("atten*").ok() && SearchQuery::parse("atten*")->root().text == "atten*");  // plain
        QVERIFY2(q.ok(), q.status().toString().c_str());
        QVERIFY(q->matches(kRows[0].key, kRows[0].path));  // "/layer_0/attention/": 19 characters between
        auto tight = SearchQuery::parse("NEAR(encoder query, 5)");
        QVERIFY(tight.ok());
        QVERIFY(!tight->matches(kRows[0].key, kRows[0].path));
        auto spread = SearchQuery::parse("NEAR(encoder weights)");
        QVERIFY(spread.ok());
        QVERIFY(!spread->matches(kRows[0].key, kRows[0].path));
    }

    void malformed_data() {
        QTest::addColumn<QString>("query");
        QTest::newRow("dangling OR") << QStringLiteral("kernel OR");
        QTest::newRow("unterminated phrase") << QStringLiteral("\"attention/query");
        QTest::newRow("unbalanced parenthesis") << QStringLiteral("encoder AND (bias");
        QTest::newRow("unknown column") << QStringLiteral("shape:kernel");
        QTest::newRow("bare slash") << QStringLiteral("kernel AND a/b");
        QTest::newRow("NEAR without a number") << QStringLiteral("NEAR(a b, x)");
        QTest::newRow("lone NOT") << QStringLiteral("NOT kernel");
    }
    void malformed() {
        QFETCH(QString, query);
        auto q = SearchQuery::parseFts5(query.toStdString());
        QVERIFY2(!q.ok(), "accepted");
        QCOMPARE(q.status().code(), StatusCode::InvalidArgument);
        QVERIFY2(q.status().message().find(query.toStdString()) != std::string::npos, q.status().toString().c_str());
        // FTS5 refuses them too.
        sqlite3* db = nullptr;
        sqlite3_open(":memory:", &db);
        sqlite3_exec(db, "CREATE VIRTUAL TABLE t USING fts5(key, object_path, tokenize='trigram')", nullptr, nullptr, nullptr);
        sqlite3_stmt* st = nullptr;
        sqlite3_prepare_v2(db, "SELECT rowid FROM t WHERE t MATCH ?1", -1, &st, nullptr);
        const std::string text = query.toStdString();
        sqlite3_bind_text(st, 1, text.c_str(), -1, SQLITE_STATIC);
        QCOMPARE(sqlite3_step(st) & 0xff, SQLITE_ERROR);
        sqlite3_finalize(st);
        sqlite3_close(db);
    }
};

QTEST_GUILESS_MAIN(TstSearchQuery)
#include "tst_search_query.moc"
