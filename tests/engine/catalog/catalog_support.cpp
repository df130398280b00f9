#include "catalog_support.h"

#include <sqlite3.h>

#include <sys/stat.h>
#include <utime.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "ckpt/bundle_reader.h"
#include "ckpt/bundle_writer.h"
#include "ckpt/object_graph.h"
#include "ckpt/save.h"
#include "ckpt/trackable.h"

namespace ckpt::testing {
namespace {

Tensor floats(const TensorShape& shape, float seed) {
    Tensor t;
    t.dtype = DataType::Float;
    t.shape = shape;
    const int64_t n = shape.numElements().value_or(0);
    t.bytes.resize(static_cast<size_t>(n) * sizeof(float));
    for (int64_t i = 0; i < n; ++i) {
        const float v = seed + static_cast<float>(i) * 0.25f;
        std::memcpy(t.bytes.data() + i * 4, &v, 4);
    }
    return t;
}

std::vector<std::string> split(const std::string& path) {
    std::vector<std::string> out;
    std::stringstream in(path);
    for (std::string part; std::getline(in, part, '/');) out.push_back(part);
    return out;
}

// Finds or creates the child object 'name' of 'parent'.
std::shared_ptr<Trackable> childObject(std::map<std::string, std::shared_ptr<Trackable>>& objects,
                                       const std::shared_ptr<Trackable>& parent, const std::string& pathSoFar,
                                       const std::string& name) {
    auto [it, inserted] = objects.try_emplace(pathSoFar);
    if (inserted) {
        it->second = Trackable::makeObject();
        (void)parent->addChild(name, it->second);
    }
    return it->second;
}

struct Db {
    sqlite3* handle = nullptr;
    explicit Db(const std::string& path, bool readOnly = true) {
        sqlite3_open_v2(path.c_str(), &handle, readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE, nullptr);
        sqlite3_busy_timeout(handle, 10000);
    }
    ~Db() { sqlite3_close(handle); }
    Db(const Db&) = delete;
    Db& operator=(const Db&) = delete;
};

// FNV-1a over a row's columns, each as its type and bytes.
void mix(uint64_t& h, const void* data, size_t n) {
    const auto* p = static_cast<const unsigned char*>(data);
    for (size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 1099511628211ull;
}

}  // namespace

Status writeKeyedCheckpoint(const std::string& prefix, const std::vector<std::string>& keys, float seed) {
    static const TensorShape kShapes[] = {TensorShape{{4}}, TensorShape{{2, 3}}, TensorShape{}, TensorShape{{5, 1}}};
    std::error_code ec;
    std::filesystem::create_directories(std::filesystem::path(prefix).parent_path(), ec);  // the writer wants it
    auto writer = BundleWriter::create(prefix);
    if (!writer.ok()) return writer.status();
    for (size_t i = 0; i < keys.size(); ++i)
        CKPT_RETURN_IF_ERROR((*writer)->add(keys[i], floats(kShapes[i % 4], seed + static_cast<float>(i))));
    return (*writer)->finish();
}

Status writeObjectCheckpoint(const std::string& prefix, const std::vector<std::string>& paths, float seed, int64_t step,
                             int64_t elements) {
    auto root = Trackable::makeObject();
    std::map<std::string, std::shared_ptr<Trackable>> objects;
    for (size_t i = 0; i < paths.size(); ++i) {
        const std::vector<std::string> parts = split(paths[i]);
        std::shared_ptr<Trackable> parent = root;
        std::string soFar;
        for (size_t p = 0; p + 1 < parts.size(); ++p) {
            soFar += parts[p] + "/";
            parent = childObject(objects, parent, soFar, parts[p]);
        }
        CKPT_RETURN_IF_ERROR(
            parent->addChild(parts.back(), Variable::fromTensor(floats(TensorShape{{elements}}, seed + static_cast<float>(i)))));
    }
    Tensor stepValue;
    stepValue.dtype = DataType::Int64;
    stepValue.bytes.resize(8);
    std::memcpy(stepValue.bytes.data(), &step, 8);
    CKPT_RETURN_IF_ERROR(root->addChild("step", Variable::fromTensor(std::move(stepValue))));
    return writeCheckpoint(*root, prefix, SaveOptions{}).status();
}

uint32_t unmaskCrc(uint32_t masked) {
    const uint32_t rot = masked - 0xa282ead8u;
    return (rot >> 17) | (rot << 15);
}

Result<std::vector<CatalogTensor>> expectedTensors(const std::string& prefix) {
    CKPT_ASSIGN_OR_RETURN(auto reader, BundleReader::open(prefix));
    std::map<std::string, std::string> paths;
    if (reader->find(kObjectGraphKey)) {
        CKPT_ASSIGN_OR_RETURN(Tensor serialized, reader->read(kObjectGraphKey));
        if (serialized.strings.size() != 1) return dataLoss(prefix + ": object graph is not a scalar string");
        CKPT_ASSIGN_OR_RETURN(ObjectGraph graph, ObjectGraph::parse(serialized.strings[0], prefix));
        for (const ObjectNode& node : graph.nodes())
            for (const ObjectAttribute& a : node.attributes)
                if (a.name == kVariableValue && node.prettyPath) paths[a.checkpointKey] = *node.prettyPath;
    }
    std::vector<CatalogTensor> out;
    for (const TensorInfo& info : reader->tensors()) {
        CatalogTensor t;
        t.key = info.key;
        t.dtype = std::string(dataTypeShortName(info.dtype));
        t.shape = info.shape.toString();
        t.bytes = static_cast<uint64_t>(info.storedBytes());
        t.crc32c = info.isPartitioned() ? 0 : unmaskCrc(info.region.maskedCrc32c);
        if (auto it = paths.find(info.key); it != paths.end()) t.objectPath = it->second;
        out.push_back(std::move(t));
    }
    std::sort(out.begin(), out.end(), [](const CatalogTensor& a, const CatalogTensor& b) { return a.key < b.key; });
    return out;
}

std::string compareTensors(const std::vector<CatalogTensor>& actual, const std::vector<CatalogTensor>& expected) {
    if (actual.size() != expected.size())
        return std::to_string(actual.size()) + " rows instead of " + std::to_string(expected.size());
    for (size_t i = 0; i < actual.size(); ++i) {
        const CatalogTensor& a = actual[i];
        const CatalogTensor& e = expected[i];
        const std::string at = "row " + std::to_string(i) + " (" + e.key + "): ";
        if (a.key != e.key) return at + "key " + a.key;
        if (a.dtype != e.dtype) return at + "dtype " + a.dtype + " instead of " + e.dtype;
        if (a.shape != e.shape) return at + "shape " + a.shape + " instead of " + e.shape;
        if (a.bytes != e.bytes) return at + "bytes " + std::to_string(a.bytes) + " instead of " + std::to_string(e.bytes);
        if (a.crc32c != e.crc32c) return at + "crc32c " + std::to_string(a.crc32c) + " instead of " + std::to_string(e.crc32c);
        if (!e.objectPath.empty() && a.objectPath != e.objectPath)
            return at + "object path \"" + a.objectPath + "\" instead of \"" + e.objectPath + "\"";
    }
    return {};
}

std::string catalogMatchesIndex(Catalog& catalog) {
    auto all = catalog.checkpoints();
    if (!all.ok()) return all.status().toString();
    for (const CatalogCheckpoint& c : *all) {
        if (c.missing || !c.error.empty()) continue;
        auto rows = catalog.tensors(c.id);
        if (!rows.ok()) return rows.status().toString();
        auto expected = expectedTensors(c.prefix);
        if (!expected.ok()) return expected.status().toString();
        if (std::string d = compareTensors(*rows, *expected); !d.empty()) return c.prefix + ": " + d;
        if (c.tensors != static_cast<int64_t>(expected->size()))
            return c.prefix + ": " + std::to_string(c.tensors) + " tensors recorded, " + std::to_string(expected->size()) +
                   " stored";
    }
    return {};
}

int64_t queryInt(const std::string& db, const std::string& sql) {
    Db d(db);
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v2(d.handle, sql.c_str(), -1, &stmt, nullptr) != SQLITE_OK) return -1;
    const int64_t value = sqlite3_step(stmt) == SQLITE_ROW ? sqlite3_column_int64(stmt, 0) : -1;
    sqlite3_finalize(stmt);
    return value;
}

std::string queryText(const std::string& db, const std::string& sql, bool readOnly) {
    Db d(db, readOnly);
    std::string out;
    char* error = nullptr;
    const int rc = sqlite3_exec(
        d.handle, sql.c_str(),
        [](void* text, int columns, char** values, char**) {
            auto* s = static_cast<std::string*>(text);
            for (int i = 0; i < columns; ++i)
                *s += std::string(i ? "|" : (s->empty() ? "" : "\n")) + (values[i] ? values[i] : "NULL");
            return 0;
        },
        &out, &error);
    if (rc != SQLITE_OK) out = std::string("error: ") + (error ? error : sqlite3_errstr(rc));
    sqlite3_free(error);
    return out;
}

// Read-write: after a writer was killed the first connection recovers the
// WAL index, which a read-only one may not do ("attempt to write a readonly
// database"), as any real opener of the catalog would.
std::string integrityCheck(const std::string& db) { return queryText(db, "PRAGMA integrity_check", false); }

std::string execSql(const std::string& db, const std::string& sql) {
    sqlite3* handle = nullptr;
    if (sqlite3_open(db.c_str(), &handle) != SQLITE_OK) {
        sqlite3_close(handle);
        return "cannot open " + db;
    }
    char* error = nullptr;
    const int rc = sqlite3_exec(handle, sql.c_str(), nullptr, nullptr, &error);
    std::string out = rc == SQLITE_OK ? "" : std::string(error ? error : sqlite3_errstr(rc));
    sqlite3_free(error);
    sqlite3_close(handle);
    return out;
}

std::map<std::string, std::string> tableDigests(const std::string& db) {
    std::map<std::string, std::string> out;
    Db d(db);
    std::vector<std::string> tables;
    sqlite3_stmt* stmt = nullptr;
    sqlite3_prepare_v2(d.handle, "SELECT name FROM sqlite_master WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL%'", -1,
                       &stmt, nullptr);
    while (sqlite3_step(stmt) == SQLITE_ROW) tables.emplace_back(reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0)));
    sqlite3_finalize(stmt);
    for (const std::string& table : tables) {
        uint64_t h = 1469598103934665603ull;
        int64_t rows = 0;
        // WITHOUT ROWID tables have no rowid: ordered by every column instead.
        std::string sql = "SELECT * FROM \"" + table + "\" ORDER BY rowid";
        if (sqlite3_prepare_v2(d.handle, sql.c_str(), -1, &stmt, nullptr) != SQLITE_OK) {
            sql = "SELECT * FROM \"" + table + "\" ORDER BY 1, 2";
            sqlite3_prepare_v2(d.handle, sql.c_str(), -1, &stmt, nullptr);
        }
        while (sqlite3_step(stmt) == SQLITE_ROW) {
            ++rows;
            for (int c = 0; c < sqlite3_column_count(stmt); ++c) {
                const int type = sqlite3_column_type(stmt, c);
                mix(h, &type, sizeof type);
                const void* blob = sqlite3_column_blob(stmt, c);
                mix(h, blob, static_cast<size_t>(sqlite3_column_bytes(stmt, c)));
            }
        }
        sqlite3_finalize(stmt);
        out[table] = std::to_string(rows) + " rows, " + std::to_string(h);
    }
    return out;
}

std::string installWriteProbe(const std::string& db, const std::string& except) {
    const std::string tables = queryText(db,
                                         "SELECT name FROM sqlite_master t WHERE type = 'table' AND name NOT LIKE 'sqlite_%' "
                                         "AND sql NOT LIKE 'CREATE VIRTUAL%' AND NOT EXISTS (SELECT 1 FROM sqlite_master v "
                                         "WHERE v.sql LIKE 'CREATE VIRTUAL%' AND t.name LIKE v.name || '\\_%' ESCAPE '\\')");
    if (tables.rfind("error:", 0) == 0) return tables;
    std::string sql = "CREATE TABLE probe_writes (tbl TEXT NOT NULL);";
    std::istringstream names(tables);
    for (std::string name; std::getline(names, name);) {
        if (name.empty() || name.find(except) != std::string::npos) continue;
        for (const char* op : {"INSERT", "UPDATE", "DELETE"})
            sql += std::string("CREATE TRIGGER \"probe_") + op + "_" + name + "\" AFTER " + op + " ON \"" + name +
                   "\" BEGIN INSERT INTO probe_writes VALUES ('" + name + "'); END;";
    }
    return execSql(db, sql);
}

std::string probedWrites(const std::string& db) {
    return queryText(db, "SELECT tbl || ': ' || count(*) FROM probe_writes GROUP BY tbl ORDER BY tbl");
}

std::string removeWriteProbe(const std::string& db) {
    std::string sql;
    const std::string triggers =
        queryText(db, "SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'probe\\_%' ESCAPE '\\'");
    std::istringstream names(triggers);
    for (std::string name; std::getline(names, name);)
        if (!name.empty()) sql += "DROP TRIGGER \"" + name + "\";";
    return execSql(db, sql + "DROP TABLE probe_writes;");
}

std::string fileBytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return {};
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

bool writeBytes(const std::string& path, const std::string& bytes) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << bytes;
    return static_cast<bool>(out);
}

bool flipByte(const std::string& path, int64_t offset) {
    std::string bytes = fileBytes(path);
    if (offset < 0 || static_cast<size_t>(offset) >= bytes.size()) return false;
    bytes[static_cast<size_t>(offset)] = static_cast<char>(~bytes[static_cast<size_t>(offset)]);
    return writeBytes(path, bytes);
}

}  // namespace ckpt::testing
