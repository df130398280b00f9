#pragma once
// The times a store states for an object, as nanoseconds since the Unix
// epoch: a listing's LastModified (ISO 8601, "2026-11-27T23:21:07.123Z")
// and a HEAD's or GET's Last-Modified header (RFC 7231's IMF-fixdate,
// "Fri, 27 Nov 2026 23:21:07 GMT"). Retention by age, `ckpt gc --grace` and
// the catalog's times read them through storage::ObjectInfo::modifiedNs.
// Whole seconds: a listing's fraction is dropped, so that what a listing
// and a HEAD say of one object compare equal.

#include <cstdint>
#include <optional>
#include <string_view>

namespace ckpt::objstore {

// nullopt for anything else (an empty header, another format, a field out
// of range): a time a store did not state is unknown, never the epoch.
std::optional<int64_t> parseStoreTimeNs(std::string_view text);

}  // namespace ckpt::objstore
