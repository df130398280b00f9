#pragma once
// Whether a store honours create-only writes, found out before the first
// write that relies on one (docs/remote.md, "Conditional writes"). Every
// commit on a store does: a save's claim, the index (the commit point), the
// state file's compare-and-swap, and the plan, markers and index of a save by
// N writers. Some S3-compatible servers ignore If-None-Match and simply
// overwrite; there two writers could each believe they committed, so such a
// store is refused.
//
// The probe costs 3 requests, once per endpoint and bucket in a process: a
// create-only PUT of a small object next to the write's object (a name of
// its own: ".ckpt-write-probe.tmp-<owner token>-<n>", which `ckpt gc`
// removes once its process is gone), the same create-only PUT
// again, which must be refused with 412, and a DELETE of the probe object.
// A verdict is kept for the process; a probe that failed for another reason
// (the store did not answer) is tried again by the next write.
// Thread-safe: concurrent first writers wait for one probe.
//   CKPT_RETURN_IF_ERROR(requireConditionalWrites(*client, ref));
//   ... client->put(ref, bytes, condition) ...

#include "ckpt/status.h"
#include "objstore/object_client.h"

namespace ckpt::objstore {

// OK when create-only writes on 'near''s bucket at the client's endpoint are
// honoured; Unimplemented naming the endpoint and bucket when they are not
// (the probe object was overwritten); another failure when the probe could
// not run (then nothing is remembered).
Status requireConditionalWrites(ObjectClient& client, const ObjectRef& near);

}  // namespace ckpt::objstore
