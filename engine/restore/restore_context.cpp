#include "restore/restore_context.h"

namespace ckpt::restore {

const std::vector<ProgramObject>& RestoreContext::programObjects() const {
    if (!m_listed || m_listingScopes == 0) {
        m_listed = listProgramObjects(root.lock(), options.skipSlotVariables);
        m_listedIndex = {};
    }
    return *m_listed;
}

std::string RestoreContext::programPathOf(const Trackable* object) const {
    const std::vector<ProgramObject>& objects = programObjects();
    if (m_listedIndex.empty()) m_listedIndex = ObjectIndex(objects);
    const size_t i = m_listedIndex.find(object);
    return i == ObjectIndex::kAbsent ? "(unreachable object)" : objects[i].path;
}

void RestoreContext::programChanged() const {
    m_listed.reset();
    m_listedIndex = {};
}

}  // namespace ckpt::restore
