#pragma once
// The keys a search query can match (catalog_search.cpp's first step): each
// phrase's words are looked up in the vocabulary (catalog_words: every
// whole word of a key or object path), the query becomes one FTS5
// expression over the word index (catalog_key_words), and its keys are
// collected inside SQLite. Where words alone cannot decide (a phrase of
// several words, '^', NEAR, NOT of such), the candidates are checked on
// their text when there are few; else the caller checks each row's.
// Engine-internal.

#include <cstdint>
#include <string>

#include "catalog/database.h"
#include "catalog/key_set.h"
#include "catalog/search_query.h"

namespace ckpt::catalog {

struct Candidates {
    KeySet keys;
    std::string fullText;  // the FTS5 expression run ("" when none was)
};

// 'maxKeyId' bounds the bitmap; 'verifyUpTo' candidates or fewer are
// checked on their text, leaving an exact set.
Result<Candidates> candidateKeys(Database& db, const SearchQuery& query, int64_t maxKeyId, int64_t verifyUpTo);

// The keys among 'keys' whose text matches: one pass over their rows (all
// keys for KeySet::every()).
Status verifyKeys(Database& db, const SearchQuery& query, int64_t maxKeyId, KeySet& keys);

}  // namespace ckpt::catalog
