// The database's schema, one migration per version (database.h lists
// them). A migration is never edited once released: version N+1 is a new
// entry, run in order from the file's version, forward only; the tests
// keep a fixture of every earlier version (tests/engine/catalog/fixtures).

#include "catalog/database.h"

namespace ckpt::catalog {
namespace {

constexpr const char* kSchemaV1 = R"sql(
CREATE TABLE schedules (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL UNIQUE,
  source_kind TEXT NOT NULL CHECK (source_kind IN ('directory', 'demo', 'program')),
  source_path TEXT NOT NULL,
  destination TEXT NOT NULL,
  triggers TEXT NOT NULL,
  retention TEXT NOT NULL,
  max_shard_bytes INTEGER,
  shard_count INTEGER,
  async INTEGER NOT NULL,
  enabled INTEGER NOT NULL,
  demo_steps INTEGER NOT NULL,
  created_at REAL NOT NULL
);
CREATE TABLE schedule_runs (
  id INTEGER PRIMARY KEY,
  schedule_id INTEGER NOT NULL REFERENCES schedules(id) ON DELETE CASCADE,
  trigger TEXT NOT NULL CHECK (trigger IN ('due', 'catch-up', 'run-now')),
  started_at REAL NOT NULL,
  ended_at REAL,
  result TEXT NOT NULL CHECK (result IN ('running', 'ok', 'failed', 'interrupted', 'skipped')),
  bytes INTEGER NOT NULL DEFAULT 0,
  checkpoint TEXT NOT NULL DEFAULT '',
  error TEXT NOT NULL DEFAULT '',
  note TEXT NOT NULL DEFAULT '',
  pid INTEGER NOT NULL,
  source_checkpoint TEXT NOT NULL DEFAULT '',
  source_fingerprint TEXT NOT NULL DEFAULT ''
);
CREATE INDEX schedule_runs_by_schedule ON schedule_runs (schedule_id, started_at);
CREATE INDEX schedule_runs_by_result ON schedule_runs (result);
)sql";
// Version 2: run requests and cancel requests from other processes (the
// explorer, `ckpt schedule run-now|cancel` while a service holds the
// lock), and the running run's live progress.
constexpr const char* kSchemaV2 = R"sql(
ALTER TABLE schedule_runs ADD COLUMN progress_done INTEGER NOT NULL DEFAULT 0;
ALTER TABLE schedule_runs ADD COLUMN progress_total INTEGER NOT NULL DEFAULT 0;
ALTER TABLE schedule_runs ADD COLUMN progress_phase TEXT NOT NULL DEFAULT '';
CREATE TABLE schedule_requests (
  id INTEGER PRIMARY KEY,
  schedule_id INTEGER NOT NULL REFERENCES schedules(id) ON DELETE CASCADE,
  kind TEXT NOT NULL CHECK (kind IN ('run', 'cancel')),
  requested_at REAL NOT NULL,
  pid INTEGER NOT NULL,
  run_id INTEGER,
  taken_at REAL,
  taken_by INTEGER NOT NULL DEFAULT 0,
  error TEXT NOT NULL DEFAULT ''
);
CREATE INDEX schedule_requests_pending ON schedule_requests (taken_at, kind);
)sql";
// Version 3: the catalog. Keys are interned (catalog_keys) so that the
// thousand checkpoints of one run share one row per key and the full-text
// index stays the size of the distinct keys; tensor rows are narrow and
// clustered by checkpoint. Trigram tokens make any substring of three or
// more characters an index lookup.
constexpr const char* kSchemaV3 = R"sql(
CREATE TABLE catalog_roots (
  id INTEGER PRIMARY KEY,
  path TEXT NOT NULL UNIQUE,
  added_at REAL NOT NULL,
  last_scan_at REAL,
  missing INTEGER NOT NULL DEFAULT 0,
  error TEXT NOT NULL DEFAULT ''
);
CREATE TABLE catalog_checkpoints (
  id INTEGER PRIMARY KEY,
  root_id INTEGER NOT NULL REFERENCES catalog_roots(id) ON DELETE CASCADE,
  directory TEXT NOT NULL,
  prefix TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL,
  step INTEGER,
  modified REAL NOT NULL,
  bytes INTEGER NOT NULL,
  shards INTEGER NOT NULL,
  tensors INTEGER NOT NULL,
  objects INTEGER NOT NULL,
  in_state_file INTEGER NOT NULL,
  is_latest INTEGER NOT NULL,
  index_size INTEGER NOT NULL,
  index_mtime_ns INTEGER NOT NULL,
  index_crc INTEGER NOT NULL,
  missing INTEGER NOT NULL DEFAULT 0,
  error TEXT NOT NULL DEFAULT '',
  verified_at REAL,
  verify_problems INTEGER NOT NULL DEFAULT 0,
  verify_message TEXT NOT NULL DEFAULT '',
  scanned_at REAL NOT NULL
);
CREATE INDEX catalog_checkpoints_by_directory ON catalog_checkpoints (directory, step);
CREATE INDEX catalog_checkpoints_by_root ON catalog_checkpoints (root_id);
CREATE TABLE catalog_keys (
  id INTEGER PRIMARY KEY,
  key TEXT NOT NULL,
  object_path TEXT NOT NULL,
  UNIQUE (key, object_path)
);
CREATE VIRTUAL TABLE catalog_key_text USING fts5(
  key, object_path, content='catalog_keys', content_rowid='id', tokenize='trigram');
CREATE TRIGGER catalog_keys_insert AFTER INSERT ON catalog_keys BEGIN
  INSERT INTO catalog_key_text (rowid, key, object_path) VALUES (new.id, new.key, new.object_path);
END;
CREATE TRIGGER catalog_keys_delete AFTER DELETE ON catalog_keys BEGIN
  INSERT INTO catalog_key_text (catalog_key_text, rowid, key, object_path)
    VALUES ('delete', old.id, old.key, old.object_path);
END;
CREATE TABLE catalog_tensors (
  checkpoint_id INTEGER NOT NULL REFERENCES catalog_checkpoints(id) ON DELETE CASCADE,
  key_id INTEGER NOT NULL REFERENCES catalog_keys(id),
  dtype TEXT NOT NULL,
  shape TEXT NOT NULL,
  bytes INTEGER NOT NULL,
  crc32c INTEGER NOT NULL,
  PRIMARY KEY (checkpoint_id, key_id)
) WITHOUT ROWID;
CREATE INDEX catalog_tensors_by_key ON catalog_tensors (key_id);
CREATE TABLE catalog_results (
  crc32c INTEGER NOT NULL,
  dtype TEXT NOT NULL,
  shape TEXT NOT NULL,
  bytes INTEGER NOT NULL,
  kind TEXT NOT NULL,
  payload TEXT NOT NULL,
  computed_at REAL NOT NULL,
  PRIMARY KEY (crc32c, dtype, shape, bytes, kind)
) WITHOUT ROWID;
CREATE TABLE catalog_restores (
  id INTEGER PRIMARY KEY,
  at REAL NOT NULL,
  source TEXT NOT NULL,
  target TEXT NOT NULL,
  mapping TEXT NOT NULL,
  verdict TEXT NOT NULL,
  output TEXT NOT NULL,
  ok INTEGER NOT NULL,
  tool TEXT NOT NULL
);
CREATE INDEX catalog_restores_by_time ON catalog_restores (at);
)sql";
// A directory's state-file problem (malformed, or naming checkpoints that
// are gone) on each of its checkpoints: part of their health.
constexpr const char* kSchemaV4 = R"sql(
ALTER TABLE catalog_checkpoints ADD COLUMN state_problem TEXT NOT NULL DEFAULT '';
)sql";
// Version 5: the trigram index cost ~75 us per distinct key to build (80 s
// for a million). Two things made it so: the trigram tokens (about 140 per
// key), and the insert trigger, which made FTS5 flush its pending terms to
// a new segment at every statement (each opened a virtual-table
// savepoint). Keys are now indexed by their whole words (FTS5's ascii
// tokenizer, '_' kept inside words: "layer_3", "kernel"), about a tenth of
// the postings, and the scan adds each batch's new keys to the index in one
// statement (scan_writer.cpp) instead of a trigger per key; deletes keep
// their trigger. The words themselves are listed in catalog_words, so that
// a search finds the words holding a substring there and their keys in the
// index (catalog_search.cpp).
constexpr const char* kSchemaV5 = R"sql(
DROP TRIGGER catalog_keys_insert;
DROP TRIGGER catalog_keys_delete;
DROP TABLE catalog_key_text;
CREATE VIRTUAL TABLE catalog_key_words USING fts5(
  key, object_path, content='catalog_keys', content_rowid='id', tokenize="ascii tokenchars '_'", detail='column');
CREATE TRIGGER catalog_keys_delete AFTER DELETE ON catalog_keys BEGIN
  INSERT INTO catalog_key_words (catalog_key_words, rowid, key, object_path)
    VALUES ('delete', old.id, old.key, old.object_path);
END;
INSERT INTO catalog_key_words (catalog_key_words) VALUES ('rebuild');
CREATE TABLE catalog_words (word TEXT PRIMARY KEY) WITHOUT ROWID;
CREATE VIRTUAL TABLE temp.catalog_vocabulary USING fts5vocab(main, catalog_key_words, row);
INSERT INTO catalog_words (word) SELECT term FROM temp.catalog_vocabulary;
DROP TABLE temp.catalog_vocabulary;
)sql";
// Version 6: the index's generation (storage/generation.h: an object
// store's ETag; locally inode, size and change time). A rescan that finds
// it, the size and the time unchanged skips the checksum of the index,
// which on a store is a GET per checkpoint.
constexpr const char* kSchemaV6 = R"sql(
ALTER TABLE catalog_checkpoints ADD COLUMN index_generation TEXT NOT NULL DEFAULT '';
)sql";
// Version 7: the word index without its per-key column sizes (FTS5's
// columnsize=0). Searches use only MATCH and rowids, never a rank, and
// the sizes table was one more B-tree insert per key: building the index
// of a million distinct keys took 3.0 s of CPU with it, 1.9 s without.
// The index is rebuilt from catalog_keys (one statement; a few seconds for
// a million keys, once); catalog_words is unchanged.
constexpr const char* kSchemaV7 = R"sql(
DROP TRIGGER catalog_keys_delete;
DROP TABLE catalog_key_words;
CREATE VIRTUAL TABLE catalog_key_words USING fts5(
  key, object_path, content='catalog_keys', content_rowid='id', tokenize="ascii tokenchars '_'", detail='column',
  columnsize=0);
CREATE TRIGGER catalog_keys_delete AFTER DELETE ON catalog_keys BEGIN
  INSERT INTO catalog_key_words (catalog_key_words, rowid, key, object_path)
    VALUES ('delete', old.id, old.key, old.object_path);
END;
INSERT INTO catalog_key_words (catalog_key_words) VALUES ('rebuild');
)sql";
constexpr const char* kMigrations[] = {kSchemaV1, kSchemaV2, kSchemaV3, kSchemaV4, kSchemaV5, kSchemaV6, kSchemaV7};
static_assert(sizeof kMigrations / sizeof kMigrations[0] == kSchemaVersion);

}  // namespace

const char* migrationFrom(int version) { return version >= 0 && version < kSchemaVersion ? kMigrations[version] : nullptr; }

}  // namespace ckpt::catalog
