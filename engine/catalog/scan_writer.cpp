// ScanWriter: see catalog/scan_writer.h.

#include "catalog/scan_writer.h"

#include <sqlite3.h>

#include "catalog/search_query.h"
#include "platform/clock.h"

namespace ckpt::catalog {
using sql::Statement;

Result<std::map<std::string, KnownRow>> ScanWriter::known(const std::string& dir) {
    CKPT_ASSIGN_OR_RETURN(
        sqlite3_stmt * stmt,
        m_db.prepare("SELECT prefix, id, index_size, index_mtime_ns, index_crc, bytes, missing, verified_at IS NOT NULL, "
                     "index_generation, shards, step FROM catalog_checkpoints WHERE directory = ?1"));
    Statement st(m_db.handle(), stmt, m_db.path());
    st.bind(1, dir);
    std::map<std::string, KnownRow> rows;
    while (true) {
        CKPT_ASSIGN_OR_RETURN(bool row, st.step());
        if (!row) break;
        KnownRow k;
        k.id = st.integer(1);
        k.stamp = {st.integer(2), st.integer(3), static_cast<uint32_t>(st.integer(4)), st.text(8)};
        k.bytes = st.integer(5);
        k.missing = st.integer(6) != 0;
        k.verified = st.integer(7) != 0;
        k.shards = static_cast<int32_t>(st.integer(9));
        if (!st.isNull(10)) k.step = st.integer(10);
        rows.emplace(st.text(0), k);
    }
    return rows;
}

// One transaction: the batch's rows, then the directory's vanished
// checkpoints when 'vanished' is given (the directory's last batch).
// Foreign keys are not checked inside it: every id it writes was read or
// inserted in the same transaction, and the two lookups per tensor row
// cost about 2.8 us of the 18 each distinct key took to write.
Status ScanWriter::write(int64_t rootId, const std::string& dir, std::vector<Scanned>& batch,
                         const std::vector<std::string>* vanished) {
    const double now = platform::unixSeconds();
    CKPT_RETURN_IF_ERROR(sql::exec(m_db.handle(), m_db.path(), "PRAGMA foreign_keys = OFF"));
    auto done = catalog::writeTransaction(m_db, [&]() -> Result<int64_t> {
        m_keyIds.clear();  // another process may have removed keys since
        m_newWords.clear();
        CKPT_ASSIGN_OR_RETURN(const int64_t lastKey, lastKeyId());
        int64_t rows = 0;
        for (Scanned& s : batch) {
            CKPT_ASSIGN_OR_RETURN(int64_t written, writeOne(rootId, dir, s, now));
            rows += written;
        }
        CKPT_RETURN_IF_ERROR(indexNewKeys(lastKey));
        CKPT_RETURN_IF_ERROR(writeWords());
        if (vanished)
            for (const std::string& prefix : *vanished) CKPT_RETURN_IF_ERROR(markMissing(prefix));
        return rows;
    });
    const Status checksOn = sql::exec(m_db.handle(), m_db.path(), "PRAGMA foreign_keys = ON");
    if (!done.ok()) return done.status();
    CKPT_RETURN_IF_ERROR(checksOn);
    m_summary.tensorRows += *done;
    // Committed: words are never removed, so these need no lookup again.
    m_listedWords.insert(m_newWords.begin(), m_newWords.end());
    m_newWords.clear();
    return okStatus();
}

Status ScanWriter::markDirectoriesMissing(int64_t rootId, const std::set<std::string>& present) {
    CKPT_ASSIGN_OR_RETURN(sqlite3_stmt * stmt,
                          m_db.prepare("SELECT DISTINCT directory FROM catalog_checkpoints WHERE root_id = ?1 AND missing = 0"));
    std::vector<std::string> gone;
    {
        Statement st(m_db.handle(), stmt, m_db.path());
        st.bind(1, rootId);
        while (true) {
            CKPT_ASSIGN_OR_RETURN(bool row, st.step());
            if (!row) break;
            if (!present.count(st.text(0))) gone.push_back(st.text(0));
        }
    }
    if (gone.empty()) return okStatus();
    auto marked = catalog::writeTransaction(m_db, [&]() -> Result<int64_t> {
        CKPT_ASSIGN_OR_RETURN(
            sqlite3_stmt * upd,
            m_db.prepare("UPDATE catalog_checkpoints SET missing = 1 WHERE directory = ?1 AND root_id = ?2 AND missing = 0"));
        int64_t n = 0;
        for (const std::string& dir : gone) {
            Statement st(m_db.handle(), upd, m_db.path());
            CKPT_RETURN_IF_ERROR(st.bind(1, dir).bind(2, rootId).run());
            n += sqlite3_changes(m_db.handle());
        }
        return n;
    });
    if (!marked.ok()) return marked.status();
    m_summary.missing += *marked;
    return okStatus();
}

Status ScanWriter::finishRoot(int64_t rootId, bool missing, const std::string& error) {
    auto done = catalog::writeTransaction(m_db, [&]() -> Result<int64_t> {
        CKPT_ASSIGN_OR_RETURN(sqlite3_stmt * stmt,
                              m_db.prepare("UPDATE catalog_roots SET last_scan_at = ?2, missing = ?3, error = ?4 WHERE id = ?1"));
        Statement st(m_db.handle(), stmt, m_db.path());
        CKPT_RETURN_IF_ERROR(st.bind(1, rootId).bind(2, platform::unixSeconds()).bind(3, int64_t{missing}).bind(4, error).run());
        if (!missing) return int64_t{0};
        CKPT_ASSIGN_OR_RETURN(sqlite3_stmt * upd,
                              m_db.prepare("UPDATE catalog_checkpoints SET missing = 1 WHERE root_id = ?1 AND missing = 0"));
        Statement mark(m_db.handle(), upd, m_db.path());
        CKPT_RETURN_IF_ERROR(mark.bind(1, rootId).run());
        return int64_t{sqlite3_changes(m_db.handle())};
    });
    if (!done.ok()) return done.status();
    m_summary.missing += *done;
    return okStatus();
}

Result<int64_t> ScanWriter::writeOne(int64_t rootId, const std::string& dir, Scanned& s, double now) {
    const CheckpointListEntry& e = s.entry;
    if (!s.changed) {
        // Unchanged files; the state file's view, the step and a new
        // verification may still differ. Nothing is written when none does.
        CKPT_ASSIGN_OR_RETURN(
            sqlite3_stmt * stmt,
            m_db.prepare("UPDATE catalog_checkpoints SET in_state_file = ?2, is_latest = ?3, step = ?4, modified = ?5, "
                         "verified_at = CASE WHEN ?6 THEN ?7 ELSE verified_at END, "
                         "verify_problems = CASE WHEN ?6 THEN ?8 ELSE verify_problems END, "
                         "verify_message = CASE WHEN ?6 THEN ?9 ELSE verify_message END, state_problem = ?10, "
                         "index_generation = ?11 WHERE id = ?1 AND "
                         "(?6 OR in_state_file IS NOT ?2 OR is_latest IS NOT ?3 OR step IS NOT ?4 OR modified IS NOT ?5 OR "
                         "state_problem IS NOT ?10 OR index_generation IS NOT ?11)"));
        Statement st(m_db.handle(), stmt, m_db.path());
        st.bind(1, s.known->id).bind(2, int64_t{e.inStateFile}).bind(3, int64_t{e.isLatest});
        if (e.step.step) st.bind(4, *e.step.step);
        else st.bindNull(4);
        st.bind(5, e.modified).bind(6, int64_t{s.verified}).bind(7, now).bind(8, s.problems).bind(9, s.verifyMessage);
        st.bind(10, s.stateProblem).bind(11, s.stamp.generation);
        CKPT_RETURN_IF_ERROR(st.run());
        return int64_t{0};
    }
    CKPT_ASSIGN_OR_RETURN(
        sqlite3_stmt * up,
        m_db.prepare("INSERT INTO catalog_checkpoints (root_id, directory, prefix, name, step, modified, bytes, shards, tensors, "
                     "objects, in_state_file, is_latest, index_size, index_mtime_ns, index_crc, missing, error, verified_at, "
                     "verify_problems, verify_message, scanned_at, state_problem, index_generation) VALUES "
                     "(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, 0, ?16, ?17, ?18, ?19, ?20, ?21, ?22) "
                     "ON CONFLICT (prefix) DO UPDATE SET root_id = excluded.root_id, directory = excluded.directory, "
                     "name = excluded.name, step = excluded.step, modified = excluded.modified, bytes = excluded.bytes, "
                     "shards = excluded.shards, tensors = excluded.tensors, objects = excluded.objects, "
                     "in_state_file = excluded.in_state_file, is_latest = excluded.is_latest, index_size = excluded.index_size, "
                     "index_mtime_ns = excluded.index_mtime_ns, index_crc = excluded.index_crc, missing = 0, "
                     "error = excluded.error, verified_at = excluded.verified_at, verify_problems = excluded.verify_problems, "
                     "verify_message = excluded.verify_message, scanned_at = excluded.scanned_at, "
                     "state_problem = excluded.state_problem, index_generation = excluded.index_generation RETURNING id"));
    int64_t id = 0;
    {
        Statement st(m_db.handle(), up, m_db.path());
        st.bind(1, rootId).bind(2, dir).bind(3, e.prefix).bind(4, e.name);
        if (e.step.step) st.bind(5, *e.step.step);
        else st.bindNull(5);
        st.bind(6, e.modified)
            .bind(7, static_cast<int64_t>(e.bytes))
            .bind(8, int64_t{e.shards})
            .bind(9, static_cast<int64_t>(s.tensors.size()))
            .bind(10, s.objects)
            .bind(11, int64_t{e.inStateFile})
            .bind(12, int64_t{e.isLatest})
            .bind(13, s.stamp.size)
            .bind(14, s.stamp.mtimeNs)
            .bind(15, int64_t{s.stamp.crc})
            .bind(16, s.error);
        if (s.verified) st.bind(17, now);
        else st.bindNull(17);
        st.bind(18, s.problems).bind(19, s.verifyMessage).bind(20, now).bind(21, s.stateProblem).bind(22, s.stamp.generation);
        CKPT_ASSIGN_OR_RETURN(bool row, st.step());
        if (!row) return internalError(m_db.path() + ": no id for checkpoint " + e.prefix);
        id = st.integer(0);
    }
    CKPT_ASSIGN_OR_RETURN(sqlite3_stmt * del, m_db.prepare("DELETE FROM catalog_tensors WHERE checkpoint_id = ?1"));
    {
        Statement st(m_db.handle(), del, m_db.path());
        CKPT_RETURN_IF_ERROR(st.bind(1, id).run());
    }
    CKPT_ASSIGN_OR_RETURN(
        sqlite3_stmt * ins,
        m_db.prepare("INSERT OR REPLACE INTO catalog_tensors (checkpoint_id, key_id, dtype, shape, bytes, crc32c) "
                     "VALUES (?1, ?2, ?3, ?4, ?5, ?6)"));
    for (const TensorRow& t : s.tensors) {
        CKPT_ASSIGN_OR_RETURN(int64_t keyId, keyIdFor(t));
        Statement st(m_db.handle(), ins, m_db.path());
        CKPT_RETURN_IF_ERROR(st.bind(1, id)
                                 .bind(2, keyId)
                                 .bindStatic(3, t.dtype)
                                 .bindStatic(4, t.shape)
                                 .bind(5, t.bytes)
                                 .bind(6, int64_t{t.crc})
                                 .run());
    }
    return static_cast<int64_t>(s.tensors.size());
}

Result<int64_t> ScanWriter::keyIdFor(const TensorRow& t) {
    std::string lookup = t.key;
    lookup.push_back('\0');
    lookup += t.objectPath;
    if (auto it = m_keyIds.find(lookup); it != m_keyIds.end()) return it->second;
    CKPT_ASSIGN_OR_RETURN(
        sqlite3_stmt * ins,
        m_db.prepare("INSERT INTO catalog_keys (key, object_path) VALUES (?1, ?2) ON CONFLICT (key, object_path) DO NOTHING"));
    {
        Statement st(m_db.handle(), ins, m_db.path());
        CKPT_RETURN_IF_ERROR(st.bindStatic(1, t.key).bindStatic(2, t.objectPath).run());
    }
    int64_t id = 0;
    if (sqlite3_changes(m_db.handle()) > 0) {
        id = sqlite3_last_insert_rowid(m_db.handle());
        // A new key's words join the vocabulary search looks substrings up in
        // (looked up by view: most are listed already).
        for (const std::string* text : {&t.key, &t.objectPath}) {
            const std::string lower = asciiLower(*text);
            for (const PhraseWord& w : phraseWords(lower))
                if (!m_listedWords.contains(w.text) && !m_newWords.contains(w.text)) m_newWords.emplace(w.text);
        }
    } else {
        CKPT_ASSIGN_OR_RETURN(sqlite3_stmt * sel,
                              m_db.prepare("SELECT id FROM catalog_keys WHERE key = ?1 AND object_path = ?2"));
        Statement st(m_db.handle(), sel, m_db.path());
        CKPT_ASSIGN_OR_RETURN(bool row, st.bind(1, t.key).bind(2, t.objectPath).step());
        if (!row) return internalError(m_db.path() + ": key " + t.key + " has no id");
        id = st.integer(0);
    }
    m_keyIds.emplace(std::move(lookup), id);
    return id;
}

Result<int64_t> ScanWriter::lastKeyId() {
    CKPT_ASSIGN_OR_RETURN(sqlite3_stmt * stmt, m_db.prepare("SELECT ifnull(max(id), 0) FROM catalog_keys"));
    Statement st(m_db.handle(), stmt, m_db.path());
    CKPT_ASSIGN_OR_RETURN(bool row, st.step());
    return row ? st.integer(0) : 0;
}

// New keys take ids above every id there was (rowids grow), so one
// statement indexes the batch's: FTS5 keeps their words in memory until the
// commit writes them as one segment. (One insert per key, or a trigger,
// made it write a segment per key.)
Status ScanWriter::indexNewKeys(int64_t lastKey) {
    CKPT_ASSIGN_OR_RETURN(sqlite3_stmt * stmt, m_db.prepare("INSERT INTO catalog_key_words (rowid, key, object_path) "
                                                            "SELECT id, key, object_path FROM catalog_keys WHERE id > ?1"));
    Statement st(m_db.handle(), stmt, m_db.path());
    return st.bind(1, lastKey).run();
}

Status ScanWriter::writeWords() {
    if (m_newWords.empty()) return okStatus();
    CKPT_ASSIGN_OR_RETURN(sqlite3_stmt * ins, m_db.prepare("INSERT OR IGNORE INTO catalog_words (word) VALUES (?1)"));
    for (const std::string& word : m_newWords) {
        Statement st(m_db.handle(), ins, m_db.path());
        CKPT_RETURN_IF_ERROR(st.bind(1, word).run());
    }
    return okStatus();
}

Status ScanWriter::markMissing(const std::string& prefix) {
    CKPT_ASSIGN_OR_RETURN(sqlite3_stmt * stmt,
                          m_db.prepare("UPDATE catalog_checkpoints SET missing = 1 WHERE prefix = ?1 AND missing = 0"));
    Statement st(m_db.handle(), stmt, m_db.path());
    CKPT_RETURN_IF_ERROR(st.bind(1, prefix).run());
    m_summary.missing += sqlite3_changes(m_db.handle());
    return okStatus();
}

}  // namespace ckpt::catalog
