#include "compare/renames.h"

#include <algorithm>
#include <map>
#include <unordered_map>

namespace ckpt::compare {
namespace {

// Objects deeper than this are not collapsed (bounds the prefix tries).
constexpr size_t kCollapseDepth = 32;
constexpr size_t kMaxTrieNodes = 1'000'000;

std::string signature(const TensorInfo& t) {
    std::string s = std::to_string(static_cast<int>(t.dtype)) + "|" + t.shape.toString() + "|" + std::to_string(t.region.size) +
                    "|" + std::to_string(t.region.maskedCrc32c);
    return s;
}

// Components shared at the end of two locations.
size_t commonSuffix(const std::vector<std::string>& x, const std::vector<std::string>& y) {
    size_t n = 0;
    while (n < x.size() && n < y.size() && x[x.size() - 1 - n] == y[y.size() - 1 - n]) ++n;
    return n;
}

std::string joined(const std::vector<std::string>& loc, size_t count) {
    std::string s;
    for (size_t i = 0; i < count && i < loc.size(); ++i) {
        s += loc[i];
        s += '\x1f';
    }
    return s;
}

void rename(WorkingEntry& deleted, WorkingEntry& added) {
    deleted.status = DiffStatus::Renamed;
    deleted.valueB = added.valueB;
    deleted.more().locationB = added.more().locationB;
    added.merged = true;
}

const std::vector<std::string>& locationA(WorkingEntry& w, const ComparedSides& sides) {
    WorkingExtra& x = w.more();
    if (x.locationA.empty() && w.valueA) x.locationA = sides.a.location(*w.valueA);
    return x.locationA;
}
const std::vector<std::string>& locationB(WorkingEntry& w, const ComparedSides& sides) {
    WorkingExtra& x = w.more();
    if (x.locationB.empty() && w.valueB) x.locationB = sides.b.location(*w.valueB);
    return x.locationB;
}

// Object prefixes (proper prefixes of value locations, up to kCollapseDepth
// components) as ids, so that counting values below an object is a lookup.
class PrefixTrie {
public:
    // The id of loc[0..depth), created on demand; -1 past the node budget.
    int32_t add(const std::vector<std::string>& loc, size_t depth) {
        int32_t at = -1;
        for (size_t i = 0; i < depth; ++i) {
            auto [it, inserted] = m_nodes.try_emplace(std::to_string(at) + '\x1f' + loc[i], static_cast<int32_t>(m_nodes.size()));
            if (inserted && m_nodes.size() > kMaxTrieNodes) return -1;
            at = it->second;
        }
        return at;
    }
    // Calls fn(id, depth) for each existing prefix of loc, top down.
    template <typename Fn>
    void walk(const std::vector<std::string>& loc, Fn&& fn) const {
        int32_t at = -1;
        for (size_t i = 0; i + 1 < loc.size() && i < kCollapseDepth; ++i) {
            auto it = m_nodes.find(std::to_string(at) + '\x1f' + loc[i]);
            if (it == m_nodes.end()) return;
            at = it->second;
            fn(at, i + 1);
        }
    }
    size_t size() const { return m_nodes.size(); }

private:
    std::unordered_map<std::string, int32_t> m_nodes;
};

std::string objectPath(const std::vector<std::string>& loc, size_t depth, bool byPath) {
    std::string s = byPath ? "(root)" : "";
    for (size_t i = 0; i < depth; ++i) {
        if (byPath || i > 0) s += byPath ? "." : "/";
        s += loc[i];
    }
    return s;
}

}  // namespace

void detectRenames(std::vector<WorkingEntry>& entries, const ComparedSides& sides) {
    struct Group {
        std::vector<size_t> deleted, added;
    };
    std::map<std::string, Group> groups;
    for (size_t i = 0; i < entries.size(); ++i) {
        const WorkingEntry& w = entries[i];
        if (w.status == DiffStatus::Deleted && !w.valueA->tensor->isPartitioned())
            groups[signature(*w.valueA->tensor)].deleted.push_back(i);
        else if (w.status == DiffStatus::Added && !w.valueB->tensor->isPartitioned())
            groups[signature(*w.valueB->tensor)].added.push_back(i);
    }
    // Unique on both sides: a rename, and a hint of how its object moved.
    std::map<std::string, std::vector<std::string>> objectMoves;  // old prefix -> new prefix
    for (auto& [sig, g] : groups) {
        if (g.deleted.size() != 1 || g.added.size() != 1) continue;
        WorkingEntry& d = entries[g.deleted[0]];
        WorkingEntry& a = entries[g.added[0]];
        const auto& locA = locationA(d, sides);
        const auto& locB = locationB(a, sides);
        const size_t s = commonSuffix(locA, locB);
        if (s > 0 && s < locA.size())
            objectMoves.emplace(joined(locA, locA.size() - s),
                                std::vector<std::string>(locB.begin(), locB.end() - static_cast<std::ptrdiff_t>(s)));
        rename(d, a);
        g.deleted.clear();
    }
    // Ambiguous groups: only where a known object move explains the pair.
    for (auto& [sig, g] : groups) {
        for (size_t di : g.deleted) {
            const auto& locA = locationA(entries[di], sides);
            for (size_t depth = locA.size(); depth-- > 1;) {
                auto move = objectMoves.find(joined(locA, depth));
                if (move == objectMoves.end()) continue;
                std::vector<std::string> target = move->second;
                target.insert(target.end(), locA.begin() + static_cast<std::ptrdiff_t>(depth), locA.end());
                for (size_t ai : g.added) {
                    if (!entries[ai].merged && locationB(entries[ai], sides) == target) {
                        rename(entries[di], entries[ai]);
                        break;
                    }
                }
                break;
            }
        }
    }
}

Status collapseSubtrees(std::vector<WorkingEntry>& entries, const ComparedSides& sides) {
    const bool byPath = sides.byPath;
    PrefixTrie trieA, trieB;
    // Candidate objects: prefixes of the values that changed place.
    for (WorkingEntry& w : entries) {
        if (w.merged) continue;
        const DiffStatus st = w.status;
        if (st == DiffStatus::Deleted || st == DiffStatus::Renamed) {
            const auto& loc = locationA(w, sides);
            trieA.add(loc, std::min(loc.size() - 1, kCollapseDepth));
        }
        if (st == DiffStatus::Added || st == DiffStatus::Renamed) {
            const auto& loc = locationB(w, sides);
            trieB.add(loc, std::min(loc.size() - 1, kCollapseDepth));
        }
    }
    if (trieA.size() == 0 && trieB.size() == 0) return okStatus();  // nothing came, went or moved
    if (trieA.size() >= kMaxTrieNodes || trieB.size() >= kMaxTrieNodes)
        return okStatus();  // pathological: report values one by one
    std::vector<int64_t> totalA(trieA.size(), 0), totalB(trieB.size(), 0);
    CKPT_RETURN_IF_ERROR(sides.a.forEachValue([&](const ComparableValue& v) {
        trieA.walk(sides.a.location(v), [&](int32_t id, size_t) { ++totalA[static_cast<size_t>(id)]; });
    }));
    CKPT_RETURN_IF_ERROR(sides.b.forEachValue([&](const ComparableValue& v) {
        trieB.walk(sides.b.location(v), [&](int32_t id, size_t) { ++totalB[static_cast<size_t>(id)]; });
    }));

    std::vector<int64_t> deletedBelow(trieA.size(), 0), addedBelow(trieB.size(), 0);
    std::map<std::pair<int32_t, int32_t>, int64_t> movedBelow;  // (object in A, object in B) -> renamed values
    // For a rename, the object pairs that could explain it: the parents that
    // differ, then each step down the shared suffix.
    auto movePairs = [&](const std::vector<std::string>& la, const std::vector<std::string>& lb, auto&& fn) {
        const size_t s = commonSuffix(la, lb);
        for (size_t k = 0; k < s; ++k) {
            const size_t da = la.size() - s + k, db = lb.size() - s + k;
            if (da == 0 || db == 0 || da > kCollapseDepth || db > kCollapseDepth) continue;
            int32_t ia = -1, ib = -1;
            trieA.walk(la, [&](int32_t id, size_t depth) { ia = depth == da ? id : ia; });
            trieB.walk(lb, [&](int32_t id, size_t depth) { ib = depth == db ? id : ib; });
            if (ia >= 0 && ib >= 0) fn(ia, ib, da, db);
        }
    };
    for (const WorkingEntry& w : entries) {
        if (w.merged) continue;
        if (w.status == DiffStatus::Deleted)
            trieA.walk(w.extra->locationA, [&](int32_t id, size_t) { ++deletedBelow[static_cast<size_t>(id)]; });
        else if (w.status == DiffStatus::Added)
            trieB.walk(w.extra->locationB, [&](int32_t id, size_t) { ++addedBelow[static_cast<size_t>(id)]; });
        else if (w.status == DiffStatus::Renamed)
            movePairs(w.extra->locationA, w.extra->locationB, [&](int32_t ia, int32_t ib, size_t, size_t) {
                ++movedBelow[{ia, ib}];
            });
    }

    std::map<std::pair<int32_t, int32_t>, int32_t> objectRows;  // keyed by (A object, B object); -1 for none
    auto objectRow = [&](int32_t ia, int32_t ib, DiffStatus status, const std::vector<std::string>* la, size_t da,
                         const std::vector<std::string>* lb, size_t db, int64_t members) {
        auto [it, inserted] = objectRows.try_emplace({ia, ib}, static_cast<int32_t>(entries.size()));
        if (!inserted) return it->second;
        DiffEntry row;
        row.status = status;
        row.role = DiffRole::Object;
        row.members = members;
        if (la) row.a = DiffSide{objectPath(*la, da, byPath), "", DataType::Invalid, {}, 0, 0, false};
        if (lb) row.b = DiffSide{objectPath(*lb, db, byPath), "", DataType::Invalid, {}, 0, 0, false};
        row.location = lb ? std::vector<std::string>(lb->begin(), lb->begin() + static_cast<std::ptrdiff_t>(db))
                          : std::vector<std::string>(la->begin(), la->begin() + static_cast<std::ptrdiff_t>(da));
        WorkingEntry object;
        object.status = status;
        object.more().objectRow = std::move(row);
        entries.push_back(std::move(object));
        return it->second;
    };
    const size_t valueRows = entries.size();
    for (size_t i = 0; i < valueRows; ++i) {
        if (entries[i].merged) continue;
        const DiffStatus st = entries[i].status;
        // Copies: objectRow appends to 'entries'.
        if (!entries[i].extra) continue;  // unchanged or modified: stays where it is
        const std::vector<std::string> la = entries[i].extra->locationA, lb = entries[i].extra->locationB;
        int32_t row = -1;
        if (st == DiffStatus::Deleted) {
            trieA.walk(la, [&](int32_t id, size_t depth) {
                const auto n = deletedBelow[static_cast<size_t>(id)];
                if (row < 0 && n >= 2 && n == totalA[static_cast<size_t>(id)])
                    row = objectRow(id, -1, st, &la, depth, nullptr, 0, n);
            });
        } else if (st == DiffStatus::Added) {
            trieB.walk(lb, [&](int32_t id, size_t depth) {
                const auto n = addedBelow[static_cast<size_t>(id)];
                if (row < 0 && n >= 2 && n == totalB[static_cast<size_t>(id)])
                    row = objectRow(-1, id, st, nullptr, 0, &lb, depth, n);
            });
        } else if (st == DiffStatus::Renamed) {
            movePairs(la, lb, [&](int32_t ia, int32_t ib, size_t da, size_t db) {
                const int64_t n = movedBelow[{ia, ib}];
                if (row < 0 && n >= 2 && n == totalA[static_cast<size_t>(ia)] && n == totalB[static_cast<size_t>(ib)])
                    row = objectRow(ia, ib, st, &la, da, &lb, db, n);
            });
        }
        if (row < 0) continue;
        entries[i].object = row;
        DiffEntry& object = *entries[static_cast<size_t>(row)].extra->objectRow;
        if (object.a && entries[i].valueA) object.a->bytes += entries[i].valueA->tensor->storedBytes();
        if (object.b && entries[i].valueB) object.b->bytes += entries[i].valueB->tensor->storedBytes();
    }
    return okStatus();
}

}  // namespace ckpt::compare
