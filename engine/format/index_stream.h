#pragma once
// An index's tensors as a stream in key order, decoded on a worker thread
// by decodeIndexEntries (the one decoder, with all its checks) into a small
// bounded queue: two indexes can be merged in step (`ckpt diff` by key)
// holding a few thousand entries rather than a million. Partitioned
// tensors are not in the stream: their slice entries sort elsewhere, so
// they are complete only at the end, where partitioned() hands them over.
// One consumer thread; the worker stops when the stream is destroyed.
//   auto s = IndexStream::start(indexFileName(prefix), cancel);
//   CKPT_ASSIGN_OR_RETURN(BundleHeader header, s->header());
//   while (TensorInfo* t = s->peek()) { use(std::move(*t)); s->pop(); }
//   CKPT_RETURN_IF_ERROR(s->status());  // what stopped the decode, if anything
//   for (TensorInfo& t : s->partitioned()) ...

#include <memory>
#include <string>
#include <vector>

#include "ckpt/bundle_reader.h"
#include "ckpt/cancellation.h"
#include "ckpt/status.h"
#include "ckpt/tensor_info.h"

namespace ckpt::format {

class IndexStream {
public:
    // Starts decoding 'indexPath' (under 'cancel', which may be null).
    static std::unique_ptr<IndexStream> start(const std::string& indexPath, const CancellationToken* cancel);
    ~IndexStream();
    IndexStream(const IndexStream&) = delete;
    IndexStream& operator=(const IndexStream&) = delete;

    // Waits for the bundle header; the decode's error when it failed first.
    Result<BundleHeader> header();
    // The next tensor that is not partitioned (the caller may move from
    // it), or nullptr at the end of the index or where decoding failed.
    TensorInfo* peek();
    void pop();
    // After peek() returned nullptr: OK at the end, else the decode's error
    // (the message decodeIndexEntries words, as BundleReader::open reports it).
    Status status();
    // After the end (status() OK): the partitioned tensors in key order,
    // slices filled in and checked.
    std::vector<TensorInfo>& partitioned();

private:
    struct Shared;
    IndexStream();
    bool nextBatch();

    std::shared_ptr<Shared> m_shared;
    std::vector<TensorInfo> m_batch;  // the consumer's current batch
    size_t m_next = 0;
};

}  // namespace ckpt::format
