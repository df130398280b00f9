#pragma once
// What every part of one restore shares: the checkpoint, the program root
// (held weakly: a restore never keeps a program alive), the options and the
// errors met so far, in the order they happened.

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ckpt/checkpoint.h"
#include "ckpt/restore.h"
#include "restore/program_objects.h"

namespace ckpt::restore {

struct RestoreContext {
    std::shared_ptr<const Checkpoint> ckpt;  // null: initialization only
    std::weak_ptr<Trackable> root;
    RestoreOptions options;
    std::vector<Status> errors;
    // A message per assignment-map entry that matched nothing.
    std::vector<std::string> unmatchedMappings;
    // Bytes read so far and the total RestoreOptions::progress reports
    // against (every byte the checkpoint stores: an upper bound, since a
    // restore reads only what it matches). Set while restoreCheckpoint()
    // runs; cancel and progress are cleared when it returns.
    std::atomic<int64_t> bytesRead{0};
    int64_t bytesTotal = 0;
    bool cancelled = false;

    // The program's objects as they are now (slots unless skipped). Listing
    // walks the whole program and builds every path, and a report, a verdict
    // or a run of mismatch messages asks for it many times: inside a
    // ListingScope it is listed once. The reference is valid until the next
    // call outside a scope, or until programChanged().
    const std::vector<ProgramObject>& programObjects() const;
    // programObjects() by address, under the same rules: one sort of the
    // listing per scope, however many verdicts and reports look objects up.
    const ObjectIndex& programObjectIndex() const;
    // The object's path from the root, or "(unreachable object)".
    std::string programPathOf(const Trackable* object) const;
    // The restore itself changed the program (created a slot): list again.
    void programChanged() const;

    // While one restore step, verdict or report runs, nothing but the
    // restore changes the program (and it says so by programChanged()).
    class ListingScope {
    public:
        explicit ListingScope(const RestoreContext& context) : m_context(context) { ++m_context.m_listingScopes; }
        ~ListingScope() {
            if (--m_context.m_listingScopes == 0) m_context.programChanged();
        }
        ListingScope(const ListingScope&) = delete;
        ListingScope& operator=(const ListingScope&) = delete;

    private:
        const RestoreContext& m_context;
    };

private:
    mutable int m_listingScopes = 0;
    mutable std::optional<std::vector<ProgramObject>> m_listed;
    mutable ObjectIndex m_listedIndex;  // built on the first programPathOf
};

}  // namespace ckpt::restore
