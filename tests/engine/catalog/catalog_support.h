#pragma once
// What the catalog suites share: checkpoints with chosen keys written by the
// engine's own writer, the expected catalog rows computed from the index
// independently of the catalog (BundleReader + ObjectGraph), and direct
// SQLite looks at the file (integrity, per-table digests, counts) through a
// connection of our own, as another process would see it.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "ckpt/catalog.h"
#include "ckpt/status.h"

namespace ckpt::testing {

// A name-based checkpoint (no object graph) at 'prefix': one float32
// tensor per key, shapes cycling through [4], [2, 3], [] and [5, 1],
// values derived from 'seed' so that checkpoints differ in their crc32c.
Status writeKeyedCheckpoint(const std::string& prefix, const std::vector<std::string>& keys, float seed);

// An object-based checkpoint at 'prefix' (tf.train.Checkpoint.write): each
// path "model/dense/kernel" becomes nested objects with a float32 variable
// of 'elements' values; a root int64 `step` variable holds 'step'.
Status writeObjectCheckpoint(const std::string& prefix, const std::vector<std::string>& paths, float seed, int64_t step,
                             int64_t elements = 3);

// The rows the catalog should hold for a checkpoint, from its index: key,
// dtype short name, shape text, stored bytes, unmasked crc32c (0 for
// partitioned tensors) and the object path the object graph gives the
// VARIABLE_VALUE attribute naming the key ("" otherwise), sorted by key.
Result<std::vector<CatalogTensor>> expectedTensors(const std::string& prefix);

// TensorFlow's crc32c mask undone (an implementation of our own, so that a
// shared bug cannot hide).
uint32_t unmaskCrc(uint32_t masked);

// First difference between two row lists ("" when equal), naming the field.
std::string compareTensors(const std::vector<CatalogTensor>& actual, const std::vector<CatalogTensor>& expected);

// "" when every present, readable checkpoint in the catalog has exactly
// the rows expectedTensors() gives; else the first difference.
std::string catalogMatchesIndex(Catalog& catalog);

// SQLite through a connection of our own. queryInt: -1 on any error.
int64_t queryInt(const std::string& db, const std::string& sql);
std::string queryText(const std::string& db, const std::string& sql, bool readOnly = true);
std::string integrityCheck(const std::string& db);                   // "ok" when intact
std::string execSql(const std::string& db, const std::string& sql);  // "" on success, else the error
// Every table's rows (all columns, in rowid order) hashed: a write
// anywhere shows as a changed digest. Virtual tables are skipped (their
// shadow tables carry their content).
std::map<std::string, std::string> tableDigests(const std::string& db);

// Counts every row a statement inserts, updates or deletes in the tables
// whose name does not contain 'except' (virtual tables and their shadow
// tables left out), with triggers written into the file: a write probe
// sees an UPDATE that sets the values a row already has, which a digest
// cannot. installWriteProbe and removeWriteProbe return "" or the error;
// probedWrites "table: rows, ..." written since the install, "" for none.
std::string installWriteProbe(const std::string& db, const std::string& except);
std::string probedWrites(const std::string& db);
std::string removeWriteProbe(const std::string& db);

// Whole-file helpers; an empty string for a file that cannot be read.
std::string fileBytes(const std::string& path);
bool writeBytes(const std::string& path, const std::string& bytes);
// Flips every bit of the byte at 'offset'.
bool flipByte(const std::string& path, int64_t offset);

}  // namespace ckpt::testing
