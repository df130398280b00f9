#pragma once
// The WritableFile of the object-store backend, and the one rule for a
// write's condition on a store (docs/remote.md, "Requests").
//
// An object of at most one part is kept in memory and sent as one PUT when
// the file is closed. Once more than a part has been appended the file
// switches to a multipart upload: each full part is sent as it fills, at
// most transfer.maxInFlight parts in flight at once on threads of their
// own, so a file holds at most (maxInFlight + 1) parts in memory (the one
// filling included). close() sends the last part, waits for every part and
// completes the upload under the write's condition (If-None-Match: * for a
// create-only write, If-Match for compare-and-swap), exactly as a single
// PUT would carry it. A failed part, a failed or refused (412) completion,
// or a file destroyed without close() aborts the upload, so nothing is left
// open on the store by this process (a killed process leaves one: `ckpt gc`
// aborts it).
//
// Part sizes: transfer.partBytes (8 MiB unless CKPT_S3_PART_SIZE_MIB says
// otherwise, never under S3's 5 MiB), raised to expectedSize / 10,000 when
// the caller said how much it will write, and doubled every 1,000 parts so
// that an object of unknown size still fits in S3's 10,000 parts.

#include <memory>
#include <string_view>

#include "objstore/object_client.h"
#include "storage/files.h"
#include "storage/generation.h"

namespace ckpt::objstore {

// A store's generation token: GCS's generation number when the response
// gave one, else the ETag (neither: unknown).
storage::Generation generationOf(const ObjectInfo& info);

// The request condition of a storage write condition.
PutCondition putConditionOf(const storage::WriteCondition& condition);
// What a refused write condition means, the same for a PUT and a
// completion: a create-only write over an existing object is AlreadyExists
// naming it; any other failure is returned as it is.
Status conditionFailure(const ObjectClient& client, const ObjectRef& ref, const PutCondition& condition, Status failure);

// One conditional PUT of a whole small object.
Result<storage::Generation> putWithCondition(ObjectClient& client, const ObjectRef& ref, std::string_view bytes,
                                             const storage::WriteCondition& condition);

// The size of part 'partNumber' (1-based) of an upload.
uint64_t uploadPartBytes(uint64_t configuredPartBytes, uint64_t expectedSize, int partNumber);

std::unique_ptr<storage::WritableFile> makeRemoteWritableFile(std::shared_ptr<ObjectClient> client, ObjectRef ref,
                                                              storage::WriteCondition condition, uint64_t expectedSize);

}  // namespace ckpt::objstore
