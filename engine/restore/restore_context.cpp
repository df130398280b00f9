#include "restore/restore_context.h"

namespace ckpt::restore {

const std::vector<ProgramObject>& RestoreContext::programObjects() const {
    if (!m_listed || m_listingScopes == 0) {
        // A program restored from a checkpoint has about as many objects
        // as its graph has nodes (a guess: the listing grows past it).
        const size_t expected = ckpt && ckpt->objectGraph() ? static_cast<size_t>(ckpt->objectGraph()->size()) : 0;
        m_listed = listProgramObjects(root.lock(), options.skipSlotVariables, expected);
        m_listedIndex = {};
    }
    return *m_listed;
}

const ObjectIndex& RestoreContext::programObjectIndex() const {
    const std::vector<ProgramObject>& objects = programObjects();
    if (m_listedIndex.empty()) m_listedIndex = ObjectIndex(objects);
    return m_listedIndex;
}

std::string RestoreContext::programPathOf(const Trackable* object) const {
    const std::vector<ProgramObject>& objects = programObjects();
    const size_t i = programObjectIndex().find(object);
    return i == ObjectIndex::kAbsent ? "(unreachable object)" : objects[i].path;
}

void RestoreContext::programChanged() const {
    m_listed.reset();
    m_listedIndex = {};
}

}  // namespace ckpt::restore
