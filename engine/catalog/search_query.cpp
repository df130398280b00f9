// SearchQuery: see catalog/search_query.h. FTS5's query grammar
// (https://sqlite.org/fts5.html, "Full-text Query Syntax"), read here so
// that each phrase can be answered from the word index and checked on the
// text: NOT binds tighter than AND (explicit or implied), AND than OR.

#include "catalog/search_query.h"

#include <algorithm>
#include <sstream>

namespace ckpt::catalog {
namespace {

// Only what plain text never holds: a pasted object path such as
// "(root).model.dense" has parentheses and stays a substring search.
bool isFtsSyntax(std::string_view q) {
    if (q.find('"') != std::string_view::npos) return true;
    if (q.find("key:") != std::string_view::npos || q.find("object_path:") != std::string_view::npos) return true;
    std::istringstream words{std::string(q)};
    for (std::string w; words >> w;)
        if (w == "AND" || w == "OR" || w == "NOT" || w.rfind("NEAR", 0) == 0) return true;
    return false;
}

bool isBarewordByte(unsigned char c) { return isWordByte(c) || c == 0x1a; }

struct Token {
    enum class Kind { End, Word, Punct } kind = Kind::End;
    std::string text;     // Word: as written (quotes removed); Punct: the character
    bool quoted = false;  // a "string", never a keyword
};

class Parser {
public:
    explicit Parser(std::string_view query) : m_query(query) {}

    Result<QueryNode> parse() {
        CKPT_RETURN_IF_ERROR(lex());
        if (peek().kind == Token::Kind::End) return syntaxError("empty query");
        CKPT_ASSIGN_OR_RETURN(QueryNode root, parseOr());
        if (peek().kind != Token::Kind::End) return syntaxError("syntax error near \"" + peek().text + "\"");
        return root;
    }

private:
    Status syntaxError(const std::string& what) const {
        return invalidArgument("cannot search the catalog for '" + std::string(m_query) + "': fts5: " + what);
    }

    Status lex() {
        const std::string_view q = m_query;
        for (size_t i = 0; i < q.size();) {
            const auto c = static_cast<unsigned char>(q[i]);
            if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
                ++i;
            } else if (c == '"') {
                Token t{Token::Kind::Word, {}, true};
                size_t j = i + 1;
                for (;; ++j) {
                    if (j >= q.size()) return syntaxError("unterminated string");
                    if (q[j] == '"') {
                        if (j + 1 < q.size() && q[j + 1] == '"') {
                            t.text.push_back('"');
                            ++j;
                            continue;
                        }
                        break;
                    }
                    t.text.push_back(q[j]);
                }
                m_tokens.push_back(std::move(t));
                i = j + 1;
            } else if (isBarewordByte(c)) {
                size_t j = i;
                while (j < q.size() && isBarewordByte(static_cast<unsigned char>(q[j]))) ++j;
                m_tokens.push_back({Token::Kind::Word, std::string(q.substr(i, j - i)), false});
                i = j;
            } else if (std::string_view("(){}:^*+-,").find(static_cast<char>(c)) != std::string_view::npos) {
                m_tokens.push_back({Token::Kind::Punct, std::string(1, static_cast<char>(c)), false});
                ++i;
            } else {
                return syntaxError("syntax error near \"" + std::string(1, static_cast<char>(c)) + "\"");
            }
        }
        m_tokens.push_back({});
        return okStatus();
    }

    const Token& peek(size_t ahead = 0) const { return m_tokens[std::min(m_next + ahead, m_tokens.size() - 1)]; }
    bool isPunct(const Token& t, char c) const { return t.kind == Token::Kind::Punct && t.text[0] == c; }
    bool isKeyword(const Token& t, std::string_view word) const {
        return t.kind == Token::Kind::Word && !t.quoted && t.text == word;
    }
    bool startsPrimary(const Token& t) const {
        if (t.kind == Token::Kind::Word) return !isKeyword(t, "AND") && !isKeyword(t, "OR") && !isKeyword(t, "NOT");
        return isPunct(t, '(') || isPunct(t, '{') || isPunct(t, '-') || isPunct(t, '^');
    }

    static QueryNode combine(QueryNode::Kind kind, QueryNode left, QueryNode right) {
        if (left.kind == kind && kind != QueryNode::Kind::Not) {
            left.children.push_back(std::move(right));
            return left;
        }
        QueryNode n;
        n.kind = kind;
        n.children.push_back(std::move(left));
        n.children.push_back(std::move(right));
        return n;
    }

    Result<QueryNode> parseOr() {
        CKPT_ASSIGN_OR_RETURN(QueryNode left, parseAnd());
        while (isKeyword(peek(), "OR")) {
            ++m_next;
            CKPT_ASSIGN_OR_RETURN(QueryNode right, parseAnd());
            left = combine(QueryNode::Kind::Or, std::move(left), std::move(right));
        }
        return left;
    }

    Result<QueryNode> parseAnd() {
        CKPT_ASSIGN_OR_RETURN(QueryNode left, parseNot());
        while (isKeyword(peek(), "AND") || startsPrimary(peek())) {
            if (isKeyword(peek(), "AND")) ++m_next;
            CKPT_ASSIGN_OR_RETURN(QueryNode right, parseNot());
            left = combine(QueryNode::Kind::And, std::move(left), std::move(right));
        }
        return left;
    }

    Result<QueryNode> parseNot() {
        CKPT_ASSIGN_OR_RETURN(QueryNode left, parsePrimary());
        while (isKeyword(peek(), "NOT")) {
            ++m_next;
            CKPT_ASSIGN_OR_RETURN(QueryNode right, parsePrimary());
            left = combine(QueryNode::Kind::Not, std::move(left), std::move(right));
        }
        return left;
    }

    Result<uint8_t> columnNamed(const Token& t) const {
        const std::string name = asciiLower(t.text);
        if (t.kind == Token::Kind::Word && name == "key") return kKeyColumn;
        if (t.kind == Token::Kind::Word && name == "object_path") return kPathColumn;
        return syntaxError("no such column: " + t.text);
    }

    // [-] name ':' or [-] '{' names '}' ':', when one comes next.
    Result<uint8_t> parseColumns() {
        const bool minus = isPunct(peek(), '-');
        const size_t at = minus ? 1 : 0;
        uint8_t columns = 0;
        if (isPunct(peek(at), '{')) {
            m_next += at + 1;
            while (!isPunct(peek(), '}')) {
                if (peek().kind == Token::Kind::End) return syntaxError("unterminated column list");
                CKPT_ASSIGN_OR_RETURN(uint8_t c, columnNamed(peek()));
                columns |= c;
                ++m_next;
            }
            ++m_next;
        } else if (peek(at).kind == Token::Kind::Word && isPunct(peek(at + 1), ':')) {
            CKPT_ASSIGN_OR_RETURN(columns, columnNamed(peek(at)));
            m_next += at + 1;
        } else if (minus) {
            return syntaxError("syntax error near \"-\"");
        } else {
            return kBothColumns;
        }
        if (!isPunct(peek(), ':')) return syntaxError("syntax error near \"" + peek().text + "\"");
        ++m_next;
        return static_cast<uint8_t>(minus ? kBothColumns & ~columns : columns);
    }

    static void restrict(QueryNode& n, uint8_t columns) {
        n.columns &= columns;
        for (QueryNode& c : n.children) restrict(c, columns);
    }

    // word ['*'] ('+' word ['*'])*: a prefix ('*') is a substring too.
    Result<QueryNode> parsePhrase() {
        QueryNode n;
        for (;;) {
            const Token& t = peek();
            if (t.kind != Token::Kind::Word || isKeyword(t, "AND") || isKeyword(t, "OR") || isKeyword(t, "NOT"))
                return syntaxError("syntax error near \"" + t.text + "\"");
            n.text += asciiLower(t.text);
            ++m_next;
            if (isPunct(peek(), '*')) ++m_next;
            if (!isPunct(peek(), '+')) break;
            ++m_next;
        }
        return n;
    }

    Result<QueryNode> parsePrimary() {
        CKPT_ASSIGN_OR_RETURN(uint8_t columns, parseColumns());
        QueryNode n;
        if (isPunct(peek(), '(')) {
            ++m_next;
            CKPT_ASSIGN_OR_RETURN(n, parseOr());
            if (!isPunct(peek(), ')')) return syntaxError("syntax error near \"" + peek().text + "\"");
            ++m_next;
        } else if (isKeyword(peek(), "NEAR") && isPunct(peek(1), '(')) {
            m_next += 2;
            n.kind = QueryNode::Kind::Near;
            while (peek().kind == Token::Kind::Word) {
                CKPT_ASSIGN_OR_RETURN(QueryNode phrase, parsePhrase());
                n.children.push_back(std::move(phrase));
            }
            if (isPunct(peek(), ',')) {
                ++m_next;
                const Token& d = peek();
                if (d.kind != Token::Kind::Word || d.text.empty() || d.text.size() > 9 ||
                    !std::all_of(d.text.begin(), d.text.end(), [](char c) { return c >= '0' && c <= '9'; }))
                    return syntaxError("expected integer, got \"" + d.text + "\"");
                n.distance = std::stoll(d.text);
                ++m_next;
            }
            if (!isPunct(peek(), ')') || n.children.empty()) return syntaxError("syntax error near \"" + peek().text + "\"");
            ++m_next;
        } else {
            const bool initial = isPunct(peek(), '^');
            if (initial) ++m_next;
            CKPT_ASSIGN_OR_RETURN(n, parsePhrase());
            n.initial = initial;
        }
        restrict(n, columns);
        return n;
    }

    std::string_view m_query;
    std::vector<Token> m_tokens;
    size_t m_next = 0;
};

// Where 'needle' occurs in 'text' (at most 'limit' starts).
std::vector<size_t> occurrences(std::string_view text, std::string_view needle, size_t limit) {
    std::vector<size_t> at;
    for (size_t p = text.find(needle); p != std::string_view::npos && at.size() < limit; p = text.find(needle, p + 1))
        at.push_back(p);
    return at;
}

bool phraseIn(const QueryNode& n, std::string_view text) {
    if (n.text.empty()) return false;
    return n.initial ? text.substr(0, n.text.size()) == n.text : text.find(n.text) != std::string_view::npos;
}

// Every phrase occurs in 'text' and, taking the earliest-starting one as
// first, the last one starts at most 'distance' characters after the
// first one ends.
bool nearIn(const QueryNode& n, std::string_view text) {
    constexpr size_t kLimit = 256;
    std::vector<std::vector<size_t>> at;
    for (const QueryNode& p : n.children) {
        if (p.text.empty()) return false;
        at.push_back(occurrences(text, p.text, kLimit));
        if (at.back().empty()) return false;
    }
    for (size_t first = 0; first < at.size(); ++first) {
        for (size_t start : at[first]) {
            size_t latest = start;
            bool all = true;
            for (size_t other = 0; other < at.size() && all; ++other) {
                if (other == first) continue;
                auto it = std::lower_bound(at[other].begin(), at[other].end(), start);
                if (it == at[other].end()) all = false;
                else latest = std::max(latest, *it);
            }
            const auto end = static_cast<int64_t>(start + n.children[first].text.size());
            if (all && static_cast<int64_t>(latest) - end <= n.distance) return true;
        }
    }
    return false;
}

bool evaluate(const QueryNode& n, std::string_view key, std::string_view path) {
    switch (n.kind) {
    case QueryNode::Kind::Phrase:
        return ((n.columns & kKeyColumn) && phraseIn(n, key)) || ((n.columns & kPathColumn) && phraseIn(n, path));
    case QueryNode::Kind::And:
        return std::all_of(n.children.begin(), n.children.end(), [&](const QueryNode& c) { return evaluate(c, key, path); });
    case QueryNode::Kind::Or:
        return std::any_of(n.children.begin(), n.children.end(), [&](const QueryNode& c) { return evaluate(c, key, path); });
    case QueryNode::Kind::Not: return evaluate(n.children[0], key, path) && !evaluate(n.children[1], key, path);
    case QueryNode::Kind::Near:
        return ((n.columns & kKeyColumn) && nearIn(n, key)) || ((n.columns & kPathColumn) && nearIn(n, path));
    }
    return false;
}

}  // namespace

bool isWordByte(unsigned char c) {
    return c >= 0x80 || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

std::string asciiLower(std::string_view text) {
    std::string out(text);
    for (char& c : out)
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    return out;
}

std::vector<PhraseWord> phraseWords(std::string_view phrase) {
    std::vector<PhraseWord> words;
    for (size_t i = 0; i < phrase.size();) {
        if (!isWordByte(static_cast<unsigned char>(phrase[i]))) {
            ++i;
            continue;
        }
        size_t j = i;
        while (j < phrase.size() && isWordByte(static_cast<unsigned char>(phrase[j]))) ++j;
        words.push_back({phrase.substr(i, j - i), i == 0, j == phrase.size()});
        i = j;
    }
    return words;
}

Result<SearchQuery> SearchQuery::parseFts5(std::string_view query) {
    SearchQuery q;
    CKPT_ASSIGN_OR_RETURN(q.m_root, Parser(query).parse());
    q.m_empty = false;
    return q;
}

Result<SearchQuery> SearchQuery::parse(std::string_view query) {
    if (isFtsSyntax(query)) return parseFts5(query);
    SearchQuery q;
    std::istringstream words{std::string(query)};
    QueryNode all;
    all.kind = QueryNode::Kind::And;
    for (std::string w; words >> w;) {
        QueryNode phrase;
        phrase.text = asciiLower(w);
        all.children.push_back(std::move(phrase));
    }
    q.m_empty = all.children.empty();
    if (all.children.size() == 1) q.m_root = std::move(all.children.front());
    else q.m_root = std::move(all);
    return q;
}

bool SearchQuery::matches(std::string_view key, std::string_view objectPath) const {
    if (m_empty) return false;
    return evaluate(m_root, asciiLower(key), asciiLower(objectPath));
}

}  // namespace ckpt::catalog
