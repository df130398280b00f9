// Catalog::search: see ckpt/catalog.h. Two steps: the keys that can match
// (catalog/search_candidates.h), then their tensor rows, one of two ways by
// how many there should be. Few are read through the key index and counted
// per checkpoint. Many are found by walking the checkpoints in display
// order, each counted inside SQLite, so that the first hits are reported
// (onHit) long before the exact totals, which need every row.

#include <sqlite3.h>

#include <algorithm>
#include <unordered_map>

#include "catalog/catalog_rows.h"
#include "catalog/catalog_search.h"
#include "catalog/key_set.h"
#include "catalog/search_candidates.h"

namespace ckpt {
using catalog::KeySet;
using catalog::SearchQuery;
using sql::Statement;
namespace {

// Past this many expected rows, reading them through the key index costs
// more than walking every checkpoint; up to this many candidates, checking
// their text once costs less than checking every row's.
constexpr int64_t kKeyPathRows = 64'000;
constexpr int64_t kVerifiedCandidates = 50'000;

bool displayOrder(const CatalogCheckpoint& x, const CatalogCheckpoint& y) {
    if (x.directory != y.directory) return x.directory < y.directory;
    if (x.step.has_value() != y.step.has_value()) return x.step.has_value();
    if (x.step != y.step) return *x.step < *y.step;
    return x.name < y.name;
}

class Searcher {
public:
    Searcher(catalog::Database& db, const SearchQuery& query, const CatalogSearchOptions& options, catalog::SearchPlan plan)
        : m_db(db), m_query(query), m_options(options), m_plan(plan) {}

    Result<CatalogSearchResult> run(CatalogSearchResult result) {
        CKPT_RETURN_IF_ERROR(measure());
        CKPT_RETURN_IF_ERROR(catalog::registerKeySetFunctions(m_db.handle(), m_db.path()));
        CKPT_ASSIGN_OR_RETURN(catalog::Candidates candidates,
                              catalog::candidateKeys(m_db, m_query, m_maxKeyId, kVerifiedCandidates));
        KeySet& keys = candidates.keys;
        result.fullTextQuery = candidates.fullText;
        if (m_plan == catalog::SearchPlan::ByKeys && !keys.exact)
            CKPT_RETURN_IF_ERROR(catalog::verifyKeys(m_db, m_query, m_maxKeyId, keys));
        if (keys.exact && keys.count(m_maxKeyId) == 0) return result;
        const int64_t expectedRows = keys.count(m_maxKeyId) * m_rows / std::max<int64_t>(1, m_maxKeyId);
        const bool fewRows =
            m_plan == catalog::SearchPlan::Auto ? expectedRows <= kKeyPathRows : m_plan == catalog::SearchPlan::ByKeys;
        if (keys.exact && fewRows) CKPT_RETURN_IF_ERROR(byKeys(keys, result));
        else CKPT_RETURN_IF_ERROR(walk(keys, result));
        return result;
    }

private:
    Status stopped() const { return Status(StatusCode::Cancelled, "catalog search cancelled"); }
    bool cancelled() const { return m_options.cancel && m_options.cancel->isCancelled(); }

    Status measure() {
        CKPT_ASSIGN_OR_RETURN(sqlite3_stmt * stmt, m_db.prepare("SELECT (SELECT ifnull(max(id), 0) FROM catalog_keys), "
                                                                "(SELECT ifnull(sum(tensors), 0) FROM catalog_checkpoints)"));
        Statement st(m_db.handle(), stmt, m_db.path());
        CKPT_ASSIGN_OR_RETURN(bool row, st.step());
        if (row) {
            m_maxKeyId = st.integer(0);
            m_rows = st.integer(1);
        }
        return okStatus();
    }

    // A shown checkpoint's first matches, in key order: the best 'limit'
    // kept in a heap, so a row is copied only when it beats them (rows come
    // by key id, which within a checkpoint is mostly key order).
    Result<std::vector<CatalogSearchMatch>> firstMatches(const CatalogCheckpoint& c, const KeySet& keys) {
        CKPT_ASSIGN_OR_RETURN(sqlite3_stmt * stmt,
                              m_db.prepare("SELECT k.key, k.object_path, t.dtype, t.shape FROM catalog_tensors t "
                                           "CROSS JOIN catalog_keys k ON k.id = t.key_id "
                                           "WHERE t.checkpoint_id = ?1 AND ckpt_has_key(?2, t.key_id)"));
        Statement st(m_db.handle(), stmt, m_db.path());
        st.bind(1, c.id);
        catalog::bindKeySet(stmt, 2, &keys);
        const auto limit = static_cast<size_t>(std::max(0, m_options.maxMatchesPerCheckpoint));
        auto before = [](std::string_view keyA, std::string_view pathA, std::string_view keyB, std::string_view pathB) {
            return keyA != keyB ? keyA < keyB : pathA < pathB;
        };
        auto heapOrder = [&](const CatalogSearchMatch& a, const CatalogSearchMatch& b) {
            return before(a.key, a.objectPath, b.key, b.objectPath);
        };
        std::vector<CatalogSearchMatch> best;
        auto view = [&](int col) {
            const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(stmt, col));
            return p ? std::string_view(p, static_cast<size_t>(sqlite3_column_bytes(stmt, col))) : std::string_view();
        };
        while (true) {
            CKPT_ASSIGN_OR_RETURN(bool row, st.step());
            if (!row) break;
            const std::string_view key = view(0), path = view(1);
            if (best.size() == limit && (limit == 0 || !before(key, path, best.front().key, best.front().objectPath))) continue;
            if (!keys.exact && !m_query.matches(key, path)) continue;
            if (best.size() == limit) {
                std::pop_heap(best.begin(), best.end(), heapOrder);
                best.pop_back();
            }
            best.push_back({std::string(key), std::string(path), st.text(2), st.text(3)});
            std::push_heap(best.begin(), best.end(), heapOrder);
        }
        std::sort_heap(best.begin(), best.end(), heapOrder);
        return best;
    }

    Status emit(CatalogSearchHit hit, CatalogSearchResult& result) {
        if (m_options.onHit && !m_options.onHit(hit)) return stopped();
        result.hits.push_back(std::move(hit));
        return okStatus();
    }

    // Few rows: each matching key's rows through the key index, counted per
    // checkpoint; then the shown checkpoints in display order.
    Status byKeys(const KeySet& keys, CatalogSearchResult& result) {
        CKPT_ASSIGN_OR_RETURN(sqlite3_stmt * stmt, m_db.prepare("SELECT key_id, checkpoint_id FROM catalog_tensors "
                                                                "WHERE key_id >= ?1 ORDER BY key_id"));
        std::unordered_map<int64_t, int64_t> perCheckpoint;
        const int64_t rowsPerKey = std::max<int64_t>(1, m_rows / std::max<int64_t>(1, m_maxKeyId));
        CKPT_RETURN_IF_ERROR(catalog::forEachKeyRow(m_db.handle(), stmt, m_db.path(), keys, rowsPerKey,
                                                    [&](const Statement& row) { ++perCheckpoint[row.integer(1)]; }));
        if (cancelled()) return stopped();
        static const std::string byId =
            std::string("SELECT ") + catalog::kCheckpointColumns + " FROM catalog_checkpoints c WHERE c.id = ?1";
        CKPT_ASSIGN_OR_RETURN(sqlite3_stmt * checkpointRow, m_db.prepare(byId.c_str()));
        std::vector<CatalogSearchHit> hits;
        for (const auto& [id, n] : perCheckpoint) {
            Statement st(m_db.handle(), checkpointRow, m_db.path());
            CKPT_ASSIGN_OR_RETURN(bool row, st.bind(1, id).step());
            if (!row) continue;
            CatalogSearchHit hit;
            hit.checkpoint = catalog::checkpointFromRow(st);
            hit.totalMatches = n;
            result.totalMatches += n;
            hits.push_back(std::move(hit));
        }
        std::sort(hits.begin(), hits.end(),
                  [](const CatalogSearchHit& a, const CatalogSearchHit& b) { return displayOrder(a.checkpoint, b.checkpoint); });
        result.totalCheckpoints = static_cast<int64_t>(hits.size());
        result.truncated = result.totalCheckpoints > m_options.maxCheckpoints;
        for (CatalogSearchHit& hit : hits) {
            if (static_cast<int64_t>(result.hits.size()) >= m_options.maxCheckpoints) break;
            if (cancelled()) return stopped();
            CKPT_ASSIGN_OR_RETURN(hit.matches, firstMatches(hit.checkpoint, keys));
            CKPT_RETURN_IF_ERROR(emit(std::move(hit), result));
        }
        return okStatus();
    }

    // Matching rows of one checkpoint: counted inside SQLite for exact keys,
    // checked on their text otherwise.
    Result<int64_t> countIn(int64_t checkpointId, const KeySet& keys) {
        if (keys.exact) {
            CKPT_ASSIGN_OR_RETURN(sqlite3_stmt * stmt, m_db.prepare("SELECT count(*) FROM catalog_tensors "
                                                                    "WHERE checkpoint_id = ?1 AND ckpt_has_key(?2, key_id)"));
            Statement st(m_db.handle(), stmt, m_db.path());
            st.bind(1, checkpointId);
            catalog::bindKeySet(stmt, 2, &keys);
            CKPT_ASSIGN_OR_RETURN(bool row, st.step());
            return row ? st.integer(0) : 0;
        }
        CKPT_ASSIGN_OR_RETURN(sqlite3_stmt * stmt,
                              m_db.prepare("SELECT k.key, k.object_path FROM catalog_tensors t CROSS JOIN catalog_keys k "
                                           "ON k.id = t.key_id WHERE t.checkpoint_id = ?1 AND ckpt_has_key(?2, t.key_id)"));
        Statement st(m_db.handle(), stmt, m_db.path());
        st.bind(1, checkpointId);
        catalog::bindKeySet(stmt, 2, &keys);
        int64_t n = 0;
        while (true) {
            CKPT_ASSIGN_OR_RETURN(bool row, st.step());
            if (!row) break;
            if (m_query.matches(st.text(0), st.text(1))) ++n;
        }
        return n;
    }

    // Many rows: every checkpoint in display order, each reported as soon
    // as it is counted while fewer than maxCheckpoints have been; the
    // others are only counted, or, without exactTotals, counting stops at
    // the first of them (the totals then lower bounds).
    Status walk(const KeySet& keys, CatalogSearchResult& result) {
        static const std::string ordered = std::string("SELECT ") + catalog::kCheckpointColumns +
                                           " FROM catalog_checkpoints c ORDER BY c.directory, c.step IS NULL, c.step, c.name";
        CKPT_ASSIGN_OR_RETURN(sqlite3_stmt * list, m_db.prepare(ordered.c_str()));
        std::vector<CatalogCheckpoint> all;
        {
            Statement st(m_db.handle(), list, m_db.path());
            CKPT_ASSIGN_OR_RETURN(all,
                                  sql::collectRows<CatalogCheckpoint>(
                                      st, m_db.path(), [](const Statement& row, const std::string&) -> Result<CatalogCheckpoint> {
                                          return catalog::checkpointFromRow(row);
                                      }));
        }
        for (CatalogCheckpoint& c : all) {
            if (cancelled()) return stopped();
            CKPT_ASSIGN_OR_RETURN(const int64_t n, countIn(c.id, keys));
            if (n == 0) continue;
            ++result.totalCheckpoints;
            result.totalMatches += n;
            if (static_cast<int64_t>(result.hits.size()) >= m_options.maxCheckpoints) {
                result.truncated = true;
                if (m_options.exactTotals) continue;
                result.totalsExact = false;
                break;
            }
            CatalogSearchHit hit;
            hit.totalMatches = n;
            CKPT_ASSIGN_OR_RETURN(hit.matches, firstMatches(c, keys));
            hit.checkpoint = std::move(c);
            CKPT_RETURN_IF_ERROR(emit(std::move(hit), result));
        }
        return okStatus();
    }

    catalog::Database& m_db;
    const SearchQuery& m_query;
    const CatalogSearchOptions& m_options;
    catalog::SearchPlan m_plan;
    int64_t m_maxKeyId = 0;
    int64_t m_rows = 0;
};

}  // namespace

namespace catalog {

Result<CatalogSearchResult> search(Database& db, std::string_view query, const CatalogSearchOptions& options, SearchPlan plan) {
    CatalogSearchResult result;
    result.query = std::string(query);
    CKPT_ASSIGN_OR_RETURN(const SearchQuery parsed, SearchQuery::parse(query));
    if (parsed.empty()) return result;
    return Searcher(db, parsed, options, plan).run(std::move(result));
}

}  // namespace catalog

Result<CatalogSearchResult> Catalog::search(std::string_view query, const CatalogSearchOptions& options) {
    return catalog::search(*m_db, query, options, catalog::SearchPlan::Auto);
}

}  // namespace ckpt
