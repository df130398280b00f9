// KeySet's SQL functions: see catalog/key_set.h.

#include "catalog/key_set.h"

namespace ckpt::catalog {
namespace {

constexpr const char* kPointerType = "ckpt_key_set";

void addKey(sqlite3_context* ctx, int, sqlite3_value** argv) {
    if (auto* set = static_cast<KeySet*>(sqlite3_value_pointer(argv[0], kPointerType))) set->add(sqlite3_value_int64(argv[1]));
    sqlite3_result_null(ctx);
}

void hasKey(sqlite3_context* ctx, int, sqlite3_value** argv) {
    const auto* set = static_cast<const KeySet*>(sqlite3_value_pointer(argv[0], kPointerType));
    sqlite3_result_int(ctx, set && set->has(sqlite3_value_int64(argv[1])) ? 1 : 0);
}

}  // namespace

Status registerKeySetFunctions(sqlite3* db, const std::string& path) {
    constexpr int kFlags = SQLITE_UTF8 | SQLITE_DIRECTONLY;
    int rc = sqlite3_create_function_v2(db, "ckpt_add_key", 2, kFlags, nullptr, addKey, nullptr, nullptr, nullptr);
    if (rc == SQLITE_OK)
        rc = sqlite3_create_function_v2(db, "ckpt_has_key", 2, kFlags, nullptr, hasKey, nullptr, nullptr, nullptr);
    if (rc != SQLITE_OK) return sql::sqliteStatus(db, rc, path, "cannot register the search functions");
    return okStatus();
}

void bindKeySet(sqlite3_stmt* stmt, int index, const KeySet* set) {
    sqlite3_bind_pointer(stmt, index, const_cast<KeySet*>(set), kPointerType, nullptr);
}

}  // namespace ckpt::catalog
