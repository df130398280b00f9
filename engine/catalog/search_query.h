#pragma once
// A catalog search query (docs/catalog.md, "Search") as a tree of substring
// tests on a key and its object path: plain words (each must occur in one
// of the two) or FTS5 syntax (phrases, *, ^, column filters, AND, OR, NOT,
// NEAR, parentheses), every phrase a substring as FTS5's trigram tokenizer
// made it one. The tree answers the two questions a search asks: which
// whole words a matching key must hold (so the word index finds candidates,
// catalog_search.cpp) and whether a key's text matches (exact).
// Engine-internal.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ckpt/status.h"

namespace ckpt::catalog {

inline constexpr uint8_t kKeyColumn = 1;
inline constexpr uint8_t kPathColumn = 2;
inline constexpr uint8_t kBothColumns = kKeyColumn | kPathColumn;

struct QueryNode {
    enum class Kind { Phrase, And, Or, Not, Near };
    Kind kind = Kind::Phrase;
    std::string text;                 // Phrase: ASCII lower-cased
    bool initial = false;             // Phrase: '^', the column starts with it
    uint8_t columns = kBothColumns;   // Phrase, Near: where it may occur
    int64_t distance = 10;            // Near: characters allowed between the phrases
    std::vector<QueryNode> children;  // And, Or: two or more; Not: a NOT b; Near: phrases
};

// The word index's tokenizer rule (FTS5's "ascii" tokenizer with '_' as a
// token character, schema.cpp): ASCII letters, digits and '_' and every
// byte of a multi-byte character make words; other ASCII characters
// separate them; ASCII upper case folds to lower case.
bool isWordByte(unsigned char c);
std::string asciiLower(std::string_view text);

// A word of a phrase and where the phrase allows it to lie in a key's word.
struct PhraseWord {
    std::string_view text;
    bool mayExtendLeft = false;   // the phrase starts inside this word: the key's word may have more before it
    bool mayExtendRight = false;  // ... ends inside it: more after it
};
// The words of a (lower-cased) phrase; empty when it holds none ("/").
std::vector<PhraseWord> phraseWords(std::string_view phrase);

class SearchQuery {
public:
    // Plain words unless the query has a quote, a column filter or an
    // upper-case AND, OR, NOT or NEAR; InvalidArgument naming the query
    // when its FTS5 syntax is malformed.
    static Result<SearchQuery> parse(std::string_view query);
    // Read as FTS5 syntax whatever it looks like.
    static Result<SearchQuery> parseFts5(std::string_view query);
    const QueryNode& root() const { return m_root; }
    bool empty() const { return m_empty; }
    bool matches(std::string_view key, std::string_view objectPath) const;

private:
    QueryNode m_root;
    bool m_empty = true;
};

}  // namespace ckpt::catalog
