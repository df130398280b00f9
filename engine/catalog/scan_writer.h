#pragma once
// The scan's side of the database (catalog_scan.cpp): what is known of a
// directory before the scan, and each batch written in one transaction.
// Engine-internal.

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "catalog/catalog_rows.h"
#include "ckpt/checkpoint_listing.h"

namespace ckpt::catalog {

struct TensorRow {
    std::string key;
    std::string objectPath;
    std::string dtype;
    std::string shape;
    int64_t bytes = 0;
    uint32_t crc = 0;
};

// What the database holds for one checkpoint before this scan.
struct KnownRow {
    int64_t id = 0;
    IndexStamp stamp;
    int64_t bytes = 0;
    int32_t shards = 0;
    std::optional<int64_t> step;
    bool missing = false;
    bool verified = false;
};

struct Scanned {
    CheckpointListEntry entry;
    IndexStamp stamp;
    const KnownRow* known = nullptr;
    bool changed = true;
    std::string error;
    int64_t objects = 0;
    std::vector<TensorRow> tensors;
    bool verified = false;
    int64_t problems = 0;
    std::string verifyMessage;
    std::string stateProblem;
};

class ScanWriter {
public:
    ScanWriter(Database& db, CatalogScanSummary& summary) : m_db(db), m_summary(summary) {}
    Result<std::map<std::string, KnownRow>> known(const std::string& dir);
    Status write(int64_t rootId, const std::string& dir, std::vector<Scanned>& batch, const std::vector<std::string>* vanished);
    Status markDirectoriesMissing(int64_t rootId, const std::set<std::string>& present);
    Status finishRoot(int64_t rootId, bool missing, const std::string& error);

private:
    Result<int64_t> writeOne(int64_t rootId, const std::string& dir, Scanned& s, double now);
    Result<int64_t> keyIdFor(const TensorRow& t);
    Status markMissing(const std::string& prefix);
    Result<int64_t> lastKeyId();
    Status indexNewKeys(int64_t lastKey);
    Status writeWords();
    Database& m_db;
    CatalogScanSummary& m_summary;
    std::unordered_map<std::string, int64_t> m_keyIds;
    // Words of the keys this batch added, and those known to be listed.
    struct WordHash {
        using is_transparent = void;
        size_t operator()(std::string_view w) const { return std::hash<std::string_view>{}(w); }
    };
    std::set<std::string, std::less<>> m_newWords;
    std::unordered_set<std::string, WordHash, std::equal_to<>> m_listedWords;
};

}  // namespace ckpt::catalog
