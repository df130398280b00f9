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

bool isFtsSyntax(std::string_view q) {
    if (q.find_first_of("\"()*^") != std::string_view::npos) return true;
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

Result<CatalogSearchResult> Catalog::search(std::string_view query, const CatalogSearchOptions& options) {
    CatalogSearchResult result;
    result.query = std::string(query);
    const Plan plan = planFor(query);
    if (plan.match.empty() && plan.like.empty()) return result;
    result.fullTextQuery = plan.match;
    sqlite3* db = m_db->handle();
    const std::string& path = m_db->path();

    // The matching keys, into a temporary table the later queries join.
    CKPT_RETURN_IF_ERROR(sql::exec(db, path, "CREATE TEMP TABLE IF NOT EXISTS search_keys (id INTEGER PRIMARY KEY)"));
    CKPT_RETURN_IF_ERROR(sql::exec(db, path, "DELETE FROM temp.search_keys"));
    std::string keys = "INSERT INTO temp.search_keys SELECT k.id FROM catalog_keys k WHERE 1";
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
            return invalidArgument("cannot search the catalog for '" + result.query + "': " + sqlite3_errmsg(db));
        return sql::sqliteStatus(db, rc, path, "cannot search");
    }

    // Matches per checkpoint, in display order.
    static const std::string perCheckpoint =
        std::string("SELECT ") + catalog::kCheckpointColumns +
        ", m.n FROM (SELECT t.checkpoint_id AS id, count(*) AS n FROM temp.search_keys s "
        "JOIN catalog_tensors t ON t.key_id = s.id GROUP BY t.checkpoint_id) m "
        "JOIN catalog_checkpoints c ON c.id = m.id ORDER BY c.directory, c.step IS NULL, c.step, c.name";
    CKPT_ASSIGN_OR_RETURN(sqlite3_stmt * counts, m_db->prepare(perCheckpoint.c_str()));
    {
        Statement st(db, counts, path);
        while (true) {
            CKPT_ASSIGN_OR_RETURN(bool row, st.step());
            if (!row) break;
            const int64_t n = st.integer(19);
            ++result.totalCheckpoints;
            result.totalMatches += n;
            if (static_cast<int>(result.hits.size()) >= options.maxCheckpoints) continue;
            CatalogSearchHit hit;
            hit.checkpoint = catalog::checkpointFromRow(st);
            hit.totalMatches = n;
            result.hits.push_back(std::move(hit));
        }
    }
    result.truncated = result.totalCheckpoints > static_cast<int64_t>(result.hits.size());

    CKPT_ASSIGN_OR_RETURN(sqlite3_stmt * matches,
                          m_db->prepare("SELECT k.key, k.object_path, t.dtype, t.shape FROM temp.search_keys s "
                                        "JOIN catalog_tensors t ON t.key_id = s.id JOIN catalog_keys k ON k.id = s.id "
                                        "WHERE t.checkpoint_id = ?1 ORDER BY k.key LIMIT ?2"));
    for (CatalogSearchHit& hit : result.hits) {
        Statement st(db, matches, path);
        st.bind(1, hit.checkpoint.id).bind(2, int64_t{options.maxMatchesPerCheckpoint});
        while (true) {
            CKPT_ASSIGN_OR_RETURN(bool row, st.step());
            if (!row) break;
            hit.matches.push_back({st.text(0), st.text(1), st.text(2), st.text(3)});
        }
    }
    return result;
}

}  // namespace ckpt
