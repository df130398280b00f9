#pragma once
// The one place that maps a location to its storage backend (Arrow's
// FileSystemFromUri): a plain path is local; "<scheme>://..." goes to the
// backend registered for the scheme (the object-store code registers "s3"
// and "gs"); any other scheme is refused with InvalidArgument naming it,
// so no command ever writes a local directory called "s3:". The free
// functions below dispatch one call each, for callers that hold a
// location rather than a backend. Thread-safe.
//   CKPT_ASSIGN_OR_RETURN(auto file, storage::openRandomAccess(path));
//   registerStorage("s3", [](std::string_view) -> Result<std::shared_ptr<Storage>> { return s3Backend(); });

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "ckpt/status.h"
#include "storage/storage.h"

namespace ckpt::storage {

// "" for a plain path; "s3" for "s3://bucket/key". A scheme is a letter
// followed by letters, digits, '+', '-' or '.', then "://".
std::string_view locationScheme(std::string_view location);

// How locations are compared and stored: a plain path made absolute
// against the working directory, "." and ".." resolved by text alone, no
// trailing slash; a URL with its scheme and bucket kept, its path
// normalised the same way. Touches no storage.
std::string normalizeLocation(std::string_view location);

// Makes (or returns a cached) backend for a location of its scheme. Called
// on first use of each location, from any thread; may fail (credentials,
// configuration) with a Status that names the location.
using StorageFactory = std::function<Result<std::shared_ptr<Storage>>(std::string_view location)>;
// Serves "<scheme>://..." locations with 'factory' from now on (replacing
// an earlier registration). 'scheme' is lower case, without "://".
void registerStorage(std::string scheme, StorageFactory factory);
// Forgets a registration (tests); true if there was one.
bool unregisterStorage(std::string_view scheme);

// The backend for 'location'. InvalidArgument naming the scheme when none
// is registered for it (s3:// and gs:// included until their backend is).
Result<std::shared_ptr<Storage>> storageFor(std::string_view location);
// OK when storageFor() would find a backend: how a command refuses an
// unsupported location before doing anything.
Status checkLocation(std::string_view location);

// The backend for plain paths: LocalStorage, or the wrapper a test
// installed around it.
std::shared_ptr<Storage> localStorage();
// Serves plain paths with 'storage' (nullptr: plain LocalStorage again);
// returns the previous one. For tests: install before the operation
// starts, restore after it ends; files already open keep the backend that
// opened them.
std::shared_ptr<Storage> installLocalStorage(std::shared_ptr<Storage> storage);

// ---- one call, dispatched by location (contracts: storage.h) --------------
Result<std::unique_ptr<RandomAccessFile>> openRandomAccess(const std::string& location);
Result<std::unique_ptr<SequentialFile>> openSequential(const std::string& location);
Result<ObjectContents> readObject(const std::string& location, size_t maxBytes);
// readObject()'s bytes: state files, specs, metadata (64 MiB unless told).
Result<std::string> readSmallFile(const std::string& location, size_t maxBytes = 64u << 20);
Result<std::optional<ObjectInfo>> stat(const std::string& location, bool follow = true);
// stat() as a yes/no; an error counts as no.
bool exists(const std::string& location);
bool isDirectory(const std::string& location);
bool isFile(const std::string& location);
// NotFound when absent.
Result<uint64_t> fileSize(const std::string& location);
Status list(const std::string& directory, const ListOptions& options, const ListVisitor& visit);
Result<std::unique_ptr<WritableFile>> create(const std::string& location, const CreateOptions& options = {});
Result<Generation> writeObject(const std::string& location, std::string_view bytes,
                               const WriteCondition& condition = WriteCondition::none());
Status remove(const std::string& location);
Status removeAll(const std::string& location);
Status syncDirectory(const std::string& directory);
Status syncFile(const std::string& location);
// Both locations on one backend, else InvalidArgument.
Status rename(const std::string& from, const std::string& to, const WriteCondition& condition = WriteCondition::none());
Status createDirectories(const std::string& directory);
Status removeDirectory(const std::string& directory);
Status listPendingWrites(const std::string& directory, const PendingWriteVisitor& visit);
Status abortPendingWrite(const PendingWrite& write);
// A new directory only this user may enter (0700) under the system's
// temporary directory ($TMPDIR, else /tmp), named "<name>-XXXXXX": local
// scratch for work that cannot be done at its destination (an export bound
// for an object store). The caller removes it (removeAll).
Result<std::string> makePrivateTempDirectory(std::string_view name);
// The backend's capabilities for 'location' (none for a refused location).
Capabilities capabilitiesFor(std::string_view location);

}  // namespace ckpt::storage
