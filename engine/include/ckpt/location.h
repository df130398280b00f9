#pragma once
// Where checkpoints live: a plain path, or "<scheme>://bucket/key" for a
// store that a backend is registered for (docs/architecture.md, "Storage").
// For programs that hold a location before handing it to the engine: the
// CLI keeps a URL as it is rather than prefixing the working directory.
//   normalizeLocation("runs/a/../b")       -> "/home/me/runs/b"
//   normalizeLocation("s3://bucket/run/")  -> "s3://bucket/run"

#include <string>
#include <string_view>

#include "ckpt/status.h"

namespace ckpt {

// "" for a plain path; "s3" for "s3://bucket/key".
std::string_view locationScheme(std::string_view location);
// How locations are compared and stored: a plain path made absolute
// against the working directory with "." and ".." resolved by text alone,
// no trailing slash; a URL keeps its scheme and bucket, its path
// normalised the same way. Touches no storage.
std::string normalizeLocation(std::string_view location);
// OK when the engine can reach 'location'; InvalidArgument naming the
// scheme when no storage serves it.
Status checkLocation(std::string_view location);

}  // namespace ckpt
