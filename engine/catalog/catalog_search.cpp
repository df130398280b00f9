// Catalog::search: see ckpt/catalog.h. The query becomes an FTS5 expression
// over the distinct keys (catalog_key_text, trigram tokens) plus LIKE
// filters for words too short for trigrams; the matching key ids are then
// joined with the tensor rows, counted per checkpoint, and only the shown
// checkpoints' matches are read.

#include <sqlite3.h>

#include <algorithm>
#include <sstream>
#include <unordered_map>

#include "catalog/catalog_rows.h"

namespace ckpt {
using sql::Statement;
namespace {

struct Plan {
    std::string match;              // FTS5 expression; empty = none
    std::vector<std::string> like;  // LIKE patterns, each on key or object path
};

// Only what plain text never holds: a pasted object path such as
// "(root).model.dense" has parentheses and stays a substring search.
bool isFtsSyntax(std::string_view q) {
    if (q.find('"') != std::string_view::npos) return true;
    if (q.find("key:") != std::string_view::npos || q.find("object_path:") != std::string_view::npos) return true;
    std::istringstream words{std::string(q)};
    for (std::string w; words >> w;)
        if (w == "AND" || w == "OR" || w == "NOT" || w.rfind("NEAR", 0) == 0) return true;
    return false;
}

// Characters, not bytes: trigrams are three characters.
size_t utf8Length(std::string_view s) {
    return static_cast<size_t>(std::count_if(s.begin(), s.end(), [](char c) { return (c & 0xC0) != 0x80; }));
}

std::string likePattern(std::string_view word) {
    std::string p = "%";
    for (char c : word) {
        if (c == '%' || c == '_' || c == '\\') p.push_back('\\');
        p.push_back(c);
    }
    p.push_back('%');
    return p;
}

// Plain words: each must occur somewhere in the key or the object path.
Plan planFor(std::string_view query) {
    Plan plan;
    if (isFtsSyntax(query)) {
        plan.match = std::string(query);
        return plan;
    }
    std::istringstream words{std::string(query)};
    for (std::string w; words >> w;) {
        if (utf8Length(w) < 3) {
            plan.like.push_back(likePattern(w));
            continue;
        }
        if (!plan.match.empty()) plan.match += " AND ";
        plan.match += '"';
        for (char c : w) {
            if (c == '"') plan.match += '"';
            plan.match += c;
        }
        plan.match += '"';
    }
    return plan;
}

}  // namespace

namespace {

// The keys matching 'plan' go into a temporary table the later queries
// join; the number of them. Every join below names its outer loop (CROSS
// JOIN): the planner has no statistics for the temporary table and would
// otherwise start from the million-row tensor table. Few matching keys (the
// usual case) are also put in key order ('ordered'), so each shown
// checkpoint can walk them and stop once it has enough; sorting a few
// hundred thousand would cost more than it saves.
Result<int64_t> collectMatchingKeys(catalog::Database& database, const Plan& plan, const std::string& query, bool& ordered) {
    sqlite3* db = database.handle();
    const std::string& path = database.path();
    CKPT_RETURN_IF_ERROR(sql::exec(db, path,
                                   "CREATE TEMP TABLE IF NOT EXISTS search_keys (id INTEGER PRIMARY KEY);"
                                   "CREATE TEMP TABLE IF NOT EXISTS search_order (ord INTEGER PRIMARY KEY, id INTEGER);"
                                   "DELETE FROM temp.search_keys; DELETE FROM temp.search_order"));
    std::string keys = "INSERT INTO temp.search_keys (id) SELECT k.id FROM catalog_keys k WHERE 1";
    if (!plan.match.empty()) keys += " AND k.id IN (SELECT rowid FROM catalog_key_text WHERE catalog_key_text MATCH ?1)";
    for (size_t i = 0; i < plan.like.size(); ++i) {
        const std::string p = "?" + std::to_string(i + 2);
        keys += " AND (k.key LIKE " + p + " ESCAPE '\\' OR k.object_path LIKE " + p + " ESCAPE '\\')";
    }
    sqlite3_stmt* raw = nullptr;
    int rc = sqlite3_prepare_v2(db, keys.c_str(), -1, &raw, nullptr);
    if (rc != SQLITE_OK) return sql::sqliteStatus(db, rc, path, "cannot search");
    {
        Statement st(db, raw, path);
        if (!plan.match.empty()) st.bind(1, plan.match);
        for (size_t i = 0; i < plan.like.size(); ++i) st.bind(static_cast<int>(i + 2), plan.like[i]);
        rc = sqlite3_step(raw);
    }
    sqlite3_finalize(raw);
    if (rc != SQLITE_DONE) {
        // FTS5 reports a malformed expression when the statement runs.
        if ((rc & 0xff) == SQLITE_ERROR)
            return invalidArgument("cannot search the catalog for '" + query + "': " + sqlite3_errmsg(db));
        return sql::sqliteStatus(db, rc, path, "cannot search");
    }
    const int64_t matchedKeys = sqlite3_changes(db);
    constexpr int64_t kOrderedKeys = 20'000;
    ordered = matchedKeys > 0 && matchedKeys <= kOrderedKeys;
    if (ordered)
        CKPT_RETURN_IF_ERROR(sql::exec(db, path,
                                       "INSERT INTO temp.search_order (id) SELECT s.id FROM temp.search_keys s "
                                       "CROSS JOIN catalog_keys k ON k.id = s.id ORDER BY k.key, k.object_path"));
    return matchedKeys;
}

// The checkpoints holding matching keys, with their match counts, in
// display order: by directory, then step (checkpoints without one last),
// then name. Counted in one pass over the matching rows through the key
// index rather than by a GROUP BY's sorter.
Result<std::vector<CatalogSearchHit>> checkpointsWithMatches(catalog::Database& database, int64_t& totalMatches) {
    sqlite3* db = database.handle();
    const std::string& path = database.path();
    std::unordered_map<int64_t, int64_t> perCheckpoint;
    CKPT_ASSIGN_OR_RETURN(sqlite3_stmt * rows, database.prepare("SELECT t.checkpoint_id FROM temp.search_keys s "
                                                                "CROSS JOIN catalog_tensors t ON t.key_id = s.id"));
    {
        Statement st(db, rows, path);
        while (true) {
            CKPT_ASSIGN_OR_RETURN(bool row, st.step());
            if (!row) break;
            ++perCheckpoint[st.integer(0)];
        }
    }
    static const std::string byId =
        std::string("SELECT ") + catalog::kCheckpointColumns + " FROM catalog_checkpoints c WHERE c.id = ?1";
    CKPT_ASSIGN_OR_RETURN(sqlite3_stmt * checkpointRow, database.prepare(byId.c_str()));
    std::vector<CatalogSearchHit> hits;
    hits.reserve(perCheckpoint.size());
    for (const auto& [id, n] : perCheckpoint) {
        Statement st(db, checkpointRow, path);
        CKPT_ASSIGN_OR_RETURN(bool row, st.bind(1, id).step());
        if (!row) continue;
        CatalogSearchHit hit;
        hit.checkpoint = catalog::checkpointFromRow(st);
        hit.totalMatches = n;
        totalMatches += n;
        hits.push_back(std::move(hit));
    }
    std::sort(hits.begin(), hits.end(), [](const CatalogSearchHit& a, const CatalogSearchHit& b) {
        const CatalogCheckpoint& x = a.checkpoint;
        const CatalogCheckpoint& y = b.checkpoint;
        if (x.directory != y.directory) return x.directory < y.directory;
        if (x.step.has_value() != y.step.has_value()) return x.step.has_value();
        if (x.step != y.step) return *x.step < *y.step;
        return x.name < y.name;
    });
    return hits;
}

// The first matches of each shown checkpoint, in key order, whichever way
// costs fewer lookups: walking the matching keys in order until enough are
// found in this checkpoint (about limit x keys / matches probes), or
// reading the checkpoint's own rows and sorting the matches.
Status fillFirstMatches(catalog::Database& database, std::vector<CatalogSearchHit>& hits, int64_t matchedKeys, bool ordered,
                        int64_t limit) {
    sqlite3* db = database.handle();
    CKPT_ASSIGN_OR_RETURN(sqlite3_stmt * byKeys,
                          database.prepare("SELECT k.key, k.object_path, t.dtype, t.shape FROM temp.search_order s "
                                           "CROSS JOIN catalog_tensors t ON t.checkpoint_id = ?1 AND t.key_id = s.id "
                                           "CROSS JOIN catalog_keys k ON k.id = s.id ORDER BY s.ord LIMIT ?2"));
    CKPT_ASSIGN_OR_RETURN(sqlite3_stmt * byRows,
                          database.prepare("SELECT k.key, k.object_path, t.dtype, t.shape FROM catalog_tensors t "
                                           "CROSS JOIN temp.search_keys s ON s.id = t.key_id "
                                           "CROSS JOIN catalog_keys k ON k.id = t.key_id "
                                           "WHERE t.checkpoint_id = ?1 ORDER BY k.key, k.object_path LIMIT ?2"));
    for (CatalogSearchHit& hit : hits) {
        const int64_t walkCost = std::min(matchedKeys, limit * matchedKeys / std::max<int64_t>(1, hit.totalMatches));
        Statement st(db, ordered && walkCost <= hit.checkpoint.tensors ? byKeys : byRows, database.path());
        st.bind(1, hit.checkpoint.id).bind(2, limit);
        while (true) {
            CKPT_ASSIGN_OR_RETURN(bool row, st.step());
            if (!row) break;
            hit.matches.push_back({st.text(0), st.text(1), st.text(2), st.text(3)});
        }
    }
    return okStatus();
}

}  // namespace

Result<CatalogSearchResult> Catalog::search(std::string_view query, const CatalogSearchOptions& options) {
    CatalogSearchResult result;
    result.query = std::string(query);
    const Plan plan = planFor(query);
    if (plan.match.empty() && plan.like.empty()) return result;
    result.fullTextQuery = plan.match;
    bool ordered = false;
    CKPT_ASSIGN_OR_RETURN(const int64_t matchedKeys, collectMatchingKeys(*m_db, plan, result.query, ordered));
    if (matchedKeys == 0) return result;
    CKPT_ASSIGN_OR_RETURN(std::vector<CatalogSearchHit> hits, checkpointsWithMatches(*m_db, result.totalMatches));
    result.totalCheckpoints = static_cast<int64_t>(hits.size());
    if (static_cast<int64_t>(hits.size()) > options.maxCheckpoints) hits.resize(static_cast<size_t>(options.maxCheckpoints));
    result.truncated = result.totalCheckpoints > static_cast<int64_t>(hits.size());
    CKPT_RETURN_IF_ERROR(
        fillFirstMatches(*m_db, hits, matchedKeys, ordered, static_cast<int64_t>(options.maxMatchesPerCheckpoint)));
    result.hits = std::move(hits);
    return result;
}

}  // namespace ckpt
