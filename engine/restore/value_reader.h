#pragma once
// Values for matched variables: each assignment is checked against the index
// at once (dtype, shape), and its read queued; queued reads run together when
// the outermost restore step ends, several tensors at a time, each
// checksummed (format/region_scan.h). BundleReader is thread-safe.

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "restore/restore_context.h"

namespace ckpt::restore {

class ValueReader {
public:
    struct Read {
        std::shared_ptr<Trackable> variable;
        const TensorInfo* tensor = nullptr;
        std::vector<int> replicas;
        // Where the queuing matcher keeps the outcome: object-based
        // matching's node and index of the attribute; -1 for name-based.
        int32_t node = -1;
        size_t attribute = 0;
    };
    // Called for each read that failed, after its error joined the context's.
    using FailureHandler = std::function<void(const Read& read, const Status& failure)>;
    // (checkpoint side, program side) of an assignment, for messages.
    using NamesFn = std::function<std::pair<std::string, std::string>()>;

    ValueReader(RestoreContext& context, FailureHandler onFailure) : m_context(context), m_onFailure(std::move(onFailure)) {}

    // Checks that 'tensor' fits v and, when reading values, queues its read
    // into 'replicas' of v. A mismatch is InvalidArgument, also added to the
    // context's errors; 'names' is called only then (naming the program
    // object walks the program).
    Status assign(Variable& v, const TensorInfo& tensor, std::vector<int> replicas, const NamesFn& names, int32_t node = -1,
                  size_t attribute = 0);

    // Scope of one restore step; reads queued inside run when the outermost
    // batch ends.
    class Batch {
    public:
        explicit Batch(ValueReader& reader) : m_reader(reader) { ++m_reader.m_depth; }
        ~Batch() {
            if (--m_reader.m_depth == 0) m_reader.flush();
        }
        Batch(const Batch&) = delete;
        Batch& operator=(const Batch&) = delete;

    private:
        ValueReader& m_reader;
    };

private:
    void flush();

    RestoreContext& m_context;
    FailureHandler m_onFailure;
    std::vector<Read> m_reads;
    int m_depth = 0;
};

}  // namespace ckpt::restore
