#include "restore/restore_context.h"

namespace ckpt::restore {

std::vector<ProgramObject> RestoreContext::programObjects() const {
    return listProgramObjects(root.lock(), options.skipSlotVariables);
}

std::string RestoreContext::programPathOf(const Trackable* object) const {
    for (const ProgramObject& o : programObjects())
        if (o.object.get() == object) return o.path;
    return "(unreachable object)";
}

}  // namespace ckpt::restore
