#include "restore/verdicts.h"

namespace ckpt::restore {

AssertionVerdict passed(Assertion a) { return {a, true, okStatus(), {}}; }

AssertionVerdict failed(Assertion a, std::string message, std::vector<std::string> paths) {
    return {a, false, failedPrecondition(std::move(message)), std::move(paths)};
}

std::string pythonList(const std::vector<std::string>& items) {
    std::string out = "[";
    for (size_t i = 0; i < items.size(); ++i) {
        if (i) out += ", ";
        out += "'" + items[i] + "'";
    }
    return out + "]";
}

}  // namespace ckpt::restore
