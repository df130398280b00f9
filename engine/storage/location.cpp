// ckpt/location.h: the storage layer's location rules, for programs above
// the engine's public API.

#include "ckpt/location.h"

#include "storage/dispatch.h"

namespace ckpt {

std::string_view locationScheme(std::string_view location) { return storage::locationScheme(location); }
std::string normalizeLocation(std::string_view location) { return storage::normalizeLocation(location); }
Status checkLocation(std::string_view location) { return storage::checkLocation(location); }

}  // namespace ckpt
