#pragma once
// Sets of catalog key ids for a search (catalog_search.cpp): a bitmap over
// the ids, filled and tested inside SQLite by two functions bound to it, so
// that hundreds of thousands of matching keys or rows never step out to
// C++ one at a time. Engine-internal.

#include <sqlite3.h>

#include <bit>
#include <cstdint>
#include <string>
#include <vector>

#include "catalog/sql.h"
#include "ckpt/status.h"

namespace ckpt::catalog {

// Key ids as bits, or every key ('all'), with whether membership alone
// decides a match ('exact') or the text must still be checked.
struct KeySet {
    bool all = false;
    bool exact = true;
    std::vector<uint64_t> bits;

    static KeySet none(int64_t maxId) {
        KeySet s;
        s.bits.assign(static_cast<size_t>(maxId / 64 + 1), 0);
        return s;
    }
    static KeySet every() {
        KeySet s;
        s.all = true;
        s.exact = false;
        return s;
    }
    void add(int64_t id) {
        if (id >= 0 && static_cast<size_t>(id / 64) < bits.size()) bits[static_cast<size_t>(id / 64)] |= uint64_t{1} << (id % 64);
    }
    bool has(int64_t id) const {
        if (all) return true;
        return id >= 0 && static_cast<size_t>(id / 64) < bits.size() && (bits[static_cast<size_t>(id / 64)] >> (id % 64)) & 1;
    }
    int64_t count(int64_t maxId) const {
        if (all) return maxId;
        int64_t n = 0;
        for (uint64_t w : bits) n += std::popcount(w);
        return n;
    }
    // Calls fn(id) for every id in the set, ascending (not for 'all').
    template <typename Fn>
    void forEach(Fn&& fn) const {
        for (size_t w = 0; w < bits.size(); ++w)
            for (uint64_t b = bits[w]; b; b &= b - 1) fn(static_cast<int64_t>(w * 64 + static_cast<size_t>(std::countr_zero(b))));
    }
};

// ckpt_add_key(set, id) adds id to the set bound as a pointer and returns
// NULL; ckpt_has_key(set, id) is 1 when id is in it. Direct-only (no
// trigger or view may call them); a value that is not a bound set is NULL.
Status registerKeySetFunctions(sqlite3* db, const std::string& path);
// Binds 'set' as parameter 'index' of 'stmt' for those functions.
void bindKeySet(sqlite3_stmt* stmt, int index, const KeySet* set);

// Calls fn(row) for each row of 'stmt' (its first column a key id, rows in
// key id order from parameter 1 on) whose id is in 'keys'. One cursor steps
// through short gaps between the ids and seeks past long ones ('rowsPerKey'
// rows per id on average), instead of one lookup per id.
template <typename Fn>
Status forEachKeyRow(sqlite3* db, sqlite3_stmt* stmt, const std::string& path, const KeySet& keys, int64_t rowsPerKey, Fn&& fn) {
    constexpr int64_t kSeekRows = 24;  // a seek costs about as much as stepping over this many rows
    sql::Statement st(db, stmt, path);
    bool row = false, open = false, ended = false;
    int64_t at = -1;  // the key id of the cursor's row
    Status status;
    auto step = [&] {
        auto r = st.step();
        if (!r.ok()) status = r.status();
        row = r.ok() && *r;
        at = row ? st.integer(0) : -1;
    };
    keys.forEach([&](int64_t id) {
        if (!status.isOk() || ended) return;
        if (!open || !row || (id - at) * rowsPerKey > kSeekRows) {
            sqlite3_reset(stmt);
            st.bind(1, id);
            open = true;
            step();
            ended = !row;  // nothing at or after id: nothing for any later id either
        }
        while (row && status.isOk() && at <= id) {
            if (at == id) fn(st);
            step();
        }
    });
    return status;
}

}  // namespace ckpt::catalog
