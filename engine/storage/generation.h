#pragma once
// An object's version, and the condition a write puts on it (TensorStore's
// StorageGeneration and its if-equal condition). Reads report the
// generation of what they read; a write may require that the object is
// still absent (create-only: a checkpoint's commit point) or still the
// generation the caller read (compare-and-swap: the state file). Locally a
// generation is derived from the file's inode, size and change times; on an
// object store it is the object's ETag or generation number. Tokens are
// opaque: compare them, never parse them. Plain values, any thread.
//   auto state = storage.readObject(path, kMaxStateBytes);      // bytes + generation
//   ... edit ...
//   storage.writeObject(path, edited, WriteCondition::ifMatch(state->generation));

#include <string>
#include <utility>

#include "ckpt/status.h"

namespace ckpt::storage {

class Generation {
public:
    // Unknown: nothing is known about the object (no condition can use it).
    Generation() = default;
    // The object does not exist.
    static Generation absent() { return Generation(Kind::Absent, {}); }
    // An existing object's version, as its backend spells it (never empty).
    static Generation of(std::string token) { return Generation(Kind::Known, std::move(token)); }

    bool isUnknown() const { return m_kind == Kind::Unknown; }
    bool isAbsent() const { return m_kind == Kind::Absent; }
    bool isKnown() const { return m_kind == Kind::Known; }
    // Empty unless isKnown().
    const std::string& token() const { return m_token; }
    // For messages: "absent", "unknown" or the token.
    std::string toString() const { return isKnown() ? m_token : isAbsent() ? "absent" : "unknown"; }

    friend bool operator==(const Generation& a, const Generation& b) { return a.m_kind == b.m_kind && a.m_token == b.m_token; }

private:
    enum class Kind { Unknown, Absent, Known };
    Generation(Kind kind, std::string token) : m_kind(kind), m_token(std::move(token)) {}
    Kind m_kind = Kind::Unknown;
    std::string m_token;
};

// What a write requires of the object already at its location. A write
// whose condition does not hold changes nothing and fails: AlreadyExists
// for IfAbsent, FailedPrecondition for IfMatch (the message names the
// location and both generations).
struct WriteCondition {
    enum class Kind {
        None,      // create or replace, whatever is there
        IfAbsent,  // only if nothing is there (HTTP If-None-Match: *)
        IfMatch,   // only if the object is there with 'generation' (HTTP If-Match)
    };
    Kind kind = Kind::None;
    Generation generation;  // IfMatch only; IfMatch(absent()) means IfAbsent

    static WriteCondition none() { return {}; }
    static WriteCondition ifAbsent() { return {Kind::IfAbsent, Generation::absent()}; }
    // 'read' as returned by a read of the object; absent() becomes IfAbsent,
    // unknown() becomes None (nothing to compare with).
    static WriteCondition ifMatch(Generation read) {
        if (read.isAbsent()) return ifAbsent();
        if (read.isUnknown()) return none();
        return {Kind::IfMatch, std::move(read)};
    }
    // Whether an object whose current generation is 'current' may be written.
    bool allows(const Generation& current) const {
        switch (kind) {
        case Kind::None: return true;
        case Kind::IfAbsent: return current.isAbsent();
        case Kind::IfMatch: return current == generation;
        }
        return false;
    }
};

// Whether a conditional write failed because another writer got there
// first (its condition did not hold: AlreadyExists, or FailedPrecondition
// for a stale generation, which a store's 412 may be for either), so the
// caller may read again and retry or judge the winner. Any other failure,
// a store that cannot do conditional writes (Unimplemented) included, is
// not a lost race.
inline bool isWriteConflict(const Status& s) {
    return s.code() == StatusCode::AlreadyExists || s.code() == StatusCode::FailedPrecondition;
}

}  // namespace ckpt::storage
