#pragma once
// What the catalog's source files share: the checkpoint row's columns and
// its decoding, path normalization and the batch write with
// retries. Engine-internal.

#include <string>
#include <string_view>

#include "catalog/database.h"
#include "catalog/sql.h"
#include "platform/clock.h"
#include "ckpt/catalog.h"

namespace ckpt::catalog {

// "c." columns in the order checkpointFromRow reads them.
extern const char* const kCheckpointColumns;
CatalogCheckpoint checkpointFromRow(const sql::Statement& row);

// What tells a scan that an index is unchanged.
struct IndexStamp {
    int64_t size = -1;
    int64_t mtimeNs = 0;
    uint32_t crc = 0;
    std::string generation;  // the storage's token; "" when unknown
};
IndexStamp statIndex(const std::string& indexPath);  // size -1 when it cannot be read

// Absolute, lexically normal, no trailing slash; the form roots and
// directories are stored in.
std::string normalizeDirectory(std::string_view directory);
// 'path' is 'dir' or below it.
bool isWithin(std::string_view path, std::string_view dir);

// BEGIN IMMEDIATE .. COMMIT around 'body', tried again (up to a few times)
// when another process kept the database locked past the busy timeout.
template <typename Body>
auto writeTransaction(Database& db, Body&& body) -> decltype(body()) {
    constexpr int kAttempts = 4;
    for (int attempt = 1;; ++attempt) {
        auto result = sql::inTransaction(db.handle(), db.path(), body);
        if (result.ok() || attempt == kAttempts || result.status().code() != StatusCode::FailedPrecondition) return result;
    }
}

}  // namespace ckpt::catalog
