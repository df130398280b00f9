#pragma once
// The times a store's answers carry, as ns since the Unix epoch (UTC), parsed
// by hand so no locale or time zone of the machine is involved: listings
// and upload lists write ISO 8601 ("2026-11-27T23:30:00.000Z"), a HEAD's
// Last-Modified an HTTP date ("Fri, 27 Nov 2026 23:30:00 GMT"). nullopt for
// anything else. What the garbage collector judges an object's age by.

#include <cstdint>
#include <optional>
#include <string_view>

namespace ckpt::objstore {

std::optional<int64_t> parseIso8601Ns(std::string_view text);
std::optional<int64_t> parseHttpDateNs(std::string_view text);
// Either form.
std::optional<int64_t> parseStoreTimeNs(std::string_view text);

}  // namespace ckpt::objstore
