#pragma once
// The program side of a restore: the objects reachable from the root, named
// the way checkpoint nodes are named.

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "ckpt/match_report.h"
#include "ckpt/trackable.h"

namespace ckpt::restore {

// A program object seen from the root (TensorFlow's list_objects).
struct ProgramObject {
    std::shared_ptr<Trackable> object;
    std::string path;
    ProgramObjectKind kind = ProgramObjectKind::Object;
    bool hasAttributes = false;
};
// 'expected': about how many objects there are (room is made for them up
// front: growing a listing of 150,000 holds two copies at once).
std::vector<ProgramObject> listProgramObjects(const std::shared_ptr<Trackable>& root, bool skipSlots, size_t expected = 0);
// "<ckpt.Variable '(root).x' shape=(3,) dtype=float32>".
std::string describeProgramObject(const ProgramObject& o);

// Objects by address, each with a number (an index into a list): a sorted
// vector, so that a set of 150,000 program objects costs one allocation,
// not one per object as a hash set's nodes do.
class ObjectIndex {
public:
    static constexpr size_t kAbsent = static_cast<size_t>(-1);
    ObjectIndex() = default;
    explicit ObjectIndex(const std::vector<ProgramObject>& objects);  // each object's index in 'objects'
    void add(const Trackable* object, size_t index = 0) { m_items.emplace_back(object, index); }
    // After the adds: sorts; the first index added for an object wins.
    void seal();
    bool contains(const Trackable* object) const { return find(object) != kAbsent; }
    size_t find(const Trackable* object) const;  // kAbsent when absent
    bool empty() const { return m_items.empty(); }

private:
    std::vector<std::pair<const Trackable*, size_t>> m_items;
};

}  // namespace ckpt::restore
