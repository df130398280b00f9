#include "retention/keep_every_hours.h"

#include <cstddef>

namespace ckpt::schedule {

std::vector<bool> preserveEveryInterval(const std::vector<double>& leaving, double seconds, double& lastPreserved) {
    std::vector<bool> preserved(leaving.size(), false);
    for (std::size_t i = 0; i < leaving.size(); ++i) {
        // TensorFlow compares timestamp - interval with the last preserved
        // one; the same subtraction keeps ties and rounding identical.
        if (leaving[i] - seconds >= lastPreserved) {
            preserved[i] = true;
            lastPreserved = leaving[i];
        }
    }
    return preserved;
}

}  // namespace ckpt::schedule
