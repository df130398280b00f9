// candidateKeys: see catalog/search_candidates.h.

#include "catalog/search_candidates.h"

#include <vector>

namespace ckpt::catalog {
namespace {

using sql::Statement;

// A word matching more vocabulary words than this is not looked up: its
// phrase's keys are found by their text.
constexpr size_t kMaxWords = 4'096;

std::string ftsString(std::string_view word) {
    std::string s = "\"";
    for (char c : word) {
        if (c == '"') s.push_back('"');
        s.push_back(c);
    }
    return s + "\"";
}

// A node's candidates as an FTS5 expression over the word index.
// 'alternatives', when set, are expressions whose keys together are the
// expression's (it is their OR): each is looked up alone, because FTS5
// steps every term of an OR at every row it yields. The 178 words holding
// "_7" in a million distinct keys took 70 ms of CPU as one OR, 18 ms one
// word at a time.
struct Plan {
    enum class Kind { Expression, None, All } kind = Kind::None;
    std::string expression;
    bool exact = true;
    std::vector<std::string> alternatives;
};

Plan none() { return {}; }
Plan all() { return {Plan::Kind::All, {}, false, {}}; }

class Planner {
public:
    Planner(Database& db) : m_db(db) {}

    Result<Plan> plan(const QueryNode& n) {
        switch (n.kind) {
        case QueryNode::Kind::Phrase: return phrase(n);
        case QueryNode::Kind::And:
        case QueryNode::Kind::Near: return conjunction(n);
        case QueryNode::Kind::Or: return disjunction(n);
        case QueryNode::Kind::Not: return difference(n);
        }
        return none();
    }

private:
    // Vocabulary words where 'w' may lie, as FTS5 strings; tooMany past kMaxWords.
    Result<std::vector<std::string>> vocabulary(const PhraseWord& w, bool& tooMany) {
        const char* sql = nullptr;
        if (!w.mayExtendLeft && !w.mayExtendRight) sql = "SELECT word FROM catalog_words WHERE word = ?1";
        else if (!w.mayExtendLeft) sql = "SELECT word FROM catalog_words WHERE word >= ?1 AND word < ?1 || x'ff'";
        else if (!w.mayExtendRight) sql = "SELECT word FROM catalog_words WHERE substr(word, -length(?1)) = ?1";
        else sql = "SELECT word FROM catalog_words WHERE instr(word, ?1) > 0";
        CKPT_ASSIGN_OR_RETURN(sqlite3_stmt * stmt, m_db.prepare(sql));
        Statement st(m_db.handle(), stmt, m_db.path());
        st.bind(1, w.text);
        std::vector<std::string> words;
        while (true) {
            CKPT_ASSIGN_OR_RETURN(bool row, st.step());
            if (!row) break;
            if (words.size() == kMaxWords) {
                tooMany = true;
                break;
            }
            words.push_back(ftsString(st.text(0)));
        }
        return words;
    }

    // Every word of the phrase in the given columns; exact when the phrase
    // is one word that may lie anywhere in a key's word.
    Result<Plan> phrase(const QueryNode& n) {
        if (n.text.empty() || n.columns == 0) return none();
        const std::vector<PhraseWord> words = phraseWords(n.text);
        Plan p{
            Plan::Kind::Expression, {}, words.size() == 1 && words[0].mayExtendLeft && words[0].mayExtendRight && !n.initial, {}};
        std::vector<std::string> lastTerms;
        for (const PhraseWord& w : words) {
            bool tooMany = false;
            CKPT_ASSIGN_OR_RETURN(std::vector<std::string> terms, vocabulary(w, tooMany));
            if (tooMany) {  // left to the text check
                p.exact = false;
                continue;
            }
            if (terms.empty()) return none();
            std::string group;
            for (const std::string& t : terms) group += (group.empty() ? "" : " OR ") + t;
            p.expression += (p.expression.empty() ? "(" : " AND (") + group + ")";
            lastTerms = std::move(terms);
        }
        if (p.expression.empty()) return all();  // only separators, or too common
        const auto inColumns = [&](const std::string& e) {
            if (n.columns == kKeyColumn) return "key : (" + e + ")";
            if (n.columns == kPathColumn) return "object_path : (" + e + ")";
            return "(" + e + ")";
        };
        p.expression = inColumns(p.expression);
        if (words.size() == 1)  // one group: an OR of its vocabulary words
            for (const std::string& t : lastTerms) p.alternatives.push_back(inColumns(t));
        return p;
    }

    Result<Plan> conjunction(const QueryNode& n) {
        Plan p{Plan::Kind::Expression, {}, n.kind == QueryNode::Kind::And, {}};
        for (const QueryNode& child : n.children) {
            CKPT_ASSIGN_OR_RETURN(Plan c, plan(child));
            if (c.kind == Plan::Kind::None) return none();
            p.exact = p.exact && c.exact;
            if (c.kind == Plan::Kind::All) continue;
            p.expression += (p.expression.empty() ? "" : " AND ") + c.expression;
        }
        if (p.expression.empty()) return all();
        p.expression = "(" + p.expression + ")";
        return p;
    }

    Result<Plan> disjunction(const QueryNode& n) {
        Plan p{Plan::Kind::Expression, {}, true, {}};
        bool split = true;  // every child's expression is an OR of alternatives
        for (const QueryNode& child : n.children) {
            CKPT_ASSIGN_OR_RETURN(Plan c, plan(child));
            if (c.kind == Plan::Kind::All) return all();
            if (c.kind == Plan::Kind::None) continue;
            p.exact = p.exact && c.exact;
            p.expression += (p.expression.empty() ? "" : " OR ") + c.expression;
            split = split && !c.alternatives.empty();
            for (std::string& a : c.alternatives) p.alternatives.push_back(std::move(a));
        }
        if (!split) p.alternatives.clear();
        if (p.expression.empty()) return none();
        p.expression = "(" + p.expression + ")";
        return p;
    }

    // a NOT b: b's keys leave a's only when they are exactly b's matches.
    Result<Plan> difference(const QueryNode& n) {
        CKPT_ASSIGN_OR_RETURN(Plan a, plan(n.children[0]));
        CKPT_ASSIGN_OR_RETURN(Plan b, plan(n.children[1]));
        if (a.kind != Plan::Kind::Expression || b.kind == Plan::Kind::None) return a;
        if (b.kind == Plan::Kind::All || !b.exact) {
            a.exact = false;
            return a;
        }
        a.expression = "(" + a.expression + " NOT " + b.expression + ")";
        a.alternatives.clear();
        return a;
    }

    Database& m_db;
};

}  // namespace

Status verifyKeys(Database& db, const SearchQuery& query, int64_t maxKeyId, KeySet& keys) {
    KeySet matching = KeySet::none(maxKeyId);
    auto check = [&](const Statement& row) {
        if (query.matches(row.text(1), row.text(2))) matching.add(row.integer(0));
    };
    if (keys.all) {
        CKPT_ASSIGN_OR_RETURN(sqlite3_stmt * stmt, db.prepare("SELECT id, key, object_path FROM catalog_keys"));
        Statement st(db.handle(), stmt, db.path());
        while (true) {
            CKPT_ASSIGN_OR_RETURN(bool row, st.step());
            if (!row) break;
            check(st);
        }
    } else {
        CKPT_ASSIGN_OR_RETURN(sqlite3_stmt * stmt,
                              db.prepare("SELECT id, key, object_path FROM catalog_keys WHERE id >= ?1 ORDER BY id"));
        CKPT_RETURN_IF_ERROR(forEachKeyRow(db.handle(), stmt, db.path(), keys, 1, check));
    }
    keys = std::move(matching);
    return okStatus();
}

Result<Candidates> candidateKeys(Database& db, const SearchQuery& query, int64_t maxKeyId, int64_t verifyUpTo) {
    Candidates out;
    CKPT_ASSIGN_OR_RETURN(const Plan plan, Planner(db).plan(query.root()));
    if (plan.kind == Plan::Kind::None) {
        out.keys = KeySet::none(maxKeyId);
    } else if (plan.kind == Plan::Kind::All) {
        out.keys = KeySet::every();
    } else {
        out.fullText = plan.expression;
        out.keys = KeySet::none(maxKeyId);
        out.keys.exact = plan.exact;
        CKPT_RETURN_IF_ERROR(registerKeySetFunctions(db.handle(), db.path()));
        CKPT_ASSIGN_OR_RETURN(sqlite3_stmt * stmt, db.prepare("SELECT count(ckpt_add_key(?2, rowid)) FROM catalog_key_words "
                                                              "WHERE catalog_key_words MATCH ?1"));
        const auto collect = [&](const std::string& expression) {
            Statement st(db.handle(), stmt, db.path());
            st.bind(1, expression);
            bindKeySet(stmt, 2, &out.keys);
            return st.run();
        };
        if (plan.alternatives.size() > 1) {
            for (const std::string& a : plan.alternatives) CKPT_RETURN_IF_ERROR(collect(a));
        } else {
            CKPT_RETURN_IF_ERROR(collect(plan.expression));
        }
    }
    if (!out.keys.exact && out.keys.count(maxKeyId) <= verifyUpTo)
        CKPT_RETURN_IF_ERROR(verifyKeys(db, query, maxKeyId, out.keys));
    return out;
}

}  // namespace ckpt::catalog
