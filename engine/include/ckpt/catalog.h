#pragma once
// The catalog: one local SQLite file that remembers every checkpoint under
// the directories a user added (its "roots"), each tensor's key, object
// path, dtype, shape, size and crc32c, the restores done from them, and
// figures already computed (catalog_cache.h). The same file holds the
// schedules and their runs (schedule_store.h): one database per user,
// default $XDG_DATA_HOME/ckpt-explorer/catalog.db.
//
// A scan walks each root (subdirectories included), lists every directory
// holding checkpoints and records what changed since the last scan: a
// checkpoint whose index size, mtime, crc32c and data bytes are unchanged
// is skipped. Changes are written in one transaction per directory (per
// batch of checkpoints in very large directories), so a scan killed at any
// point leaves the database as it was before that batch. A directory that
// vanished is marked missing, not forgotten; an unreadable checkpoint is
// recorded with its error.
//
// Search: a plain query matches substrings ("layer_3/kernel") of the key or
// the object path, several words must all match, and FTS5 syntax (AND, OR,
// NOT, "phrases", key:..., object_path:..., NEAR) combines substrings. Keys
// are indexed by their whole words (FTS5), the words themselves listed, so
// a substring is found through the words that hold it. Hits are reported
// in display order as they are found (CatalogSearchOptions::onHit): with
// many matching rows, the first long before the exact totals.
//
// One Catalog object is for one thread at a time; several processes may
// use one file at once (WAL, busy timeout, whole-batch retries).
//   auto catalog = Catalog::open(Catalog::defaultPath().value(), {.createDirectory = true});
//   (*catalog)->addRoot("/runs");
//   (*catalog)->scan({});
//   for (const CatalogSearchHit& hit : (*catalog)->search("encoder/layer_3")->hits) show(hit);

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ckpt/cancellation.h"
#include "ckpt/status.h"

namespace ckpt {

struct VerifyReport;

namespace catalog {
class Database;
}  // namespace catalog

struct CatalogOptions {
    // Create the file's directory when missing (the default path's
    // ~/.local/share/ckpt-explorer); otherwise NotFound naming it.
    bool createDirectory = false;
    int busyTimeoutMs = 5000;
};

// A directory the user added; scans walk it and its subdirectories.
struct CatalogRoot {
    int64_t id = 0;
    std::string path;  // absolute, normalized
    double addedAt = 0;
    std::optional<double> lastScanAt;
    bool missing = false;  // not a directory at the last scan
    std::string error;     // why the last scan could not read it
    int64_t checkpoints = 0;
};

// What the catalog knows of one checkpoint's health, most serious first.
enum class CatalogHealth {
    Missing,     // its files vanished since it was scanned
    Unreadable,  // the index cannot be read (error says why)
    Damaged,     // the last verification found problems, or its directory's state file is wrong
    Healthy,     // the last verification found none
    Unverified,  // readable; never verified since it last changed
};
std::string_view catalogHealthName(CatalogHealth health);  // "missing", "unreadable", ...

struct CatalogCheckpoint {
    int64_t id = 0;
    int64_t rootId = 0;
    std::string directory;
    std::string prefix;
    std::string name;  // "ckpt-3"
    std::optional<int64_t> step;
    double modified = 0;  // of the .index, seconds since the Unix epoch
    uint64_t bytes = 0;   // index plus data files
    int32_t shards = 0;
    int64_t tensors = 0;
    int64_t objects = 0;  // object graph nodes; 0 for name-based checkpoints
    bool inStateFile = false;
    bool isLatest = false;
    bool missing = false;
    std::string error;  // unreadable: the reader's message
    std::optional<double> verifiedAt;
    int64_t verifyProblems = 0;
    std::string verifyMessage;  // the first problem
    // Its directory's `checkpoint` state file at the last scan: why it cannot
    // be parsed, or the entries it names that have no index; empty when fine.
    std::string stateProblem;
    double scannedAt = 0;
    // Missing and unreadable first; a damaged checkpoint or a state file that
    // is malformed or lies about its directory is Damaged.
    CatalogHealth health() const;
    // What makes it Damaged (the first verification problem, else the state
    // file's); empty otherwise.
    std::string problem() const;
};

struct CatalogTensor {
    std::string key;
    std::string objectPath;  // "(root).model.dense.kernel"; "" for name-based keys
    std::string dtype;       // "float32"
    std::string shape;       // "[3, 4]"
    uint64_t bytes = 0;
    uint32_t crc32c = 0;  // unmasked, of the stored bytes; 0 for partitioned tensors
};

struct CatalogScanOptions {
    // Only these roots (as added, or any directory below one); empty = all.
    std::vector<std::string> roots;
    // Verify (verify.h) each checkpoint not verified since it last changed.
    bool verify = false;
    int maxDepth = 8;  // directory levels below a root
    // Scan only the directories named in 'roots', none below them, and
    // leave other directories' rows alone (how recordWrite rescans one).
    bool onlyNamed = false;
    // Directory entries read per root before the walk stops (its
    // directories not reached keep what the catalog knew of them).
    int64_t maxEntries = 1'000'000;
    // Symbolic links (to directories, or a checkpoint's files) are followed
    // only when they resolve inside the root, unless this is set
    // (docs/catalog.md, "What a scan reads").
    bool followOutsideLinks = false;
    // (checkpoints done, checkpoints found so far, "directory ...").
    ProgressSink progress;
    const CancellationToken* cancel = nullptr;
};

struct CatalogScanSummary {
    int64_t directories = 0;  // directories holding checkpoints
    int64_t checkpoints = 0;  // seen on disk
    int64_t added = 0;
    int64_t updated = 0;
    int64_t unchanged = 0;
    int64_t missing = 0;     // newly marked missing
    int64_t unreadable = 0;  // recorded with an error
    int64_t verified = 0;
    int64_t damaged = 0;
    int64_t tensorRows = 0;           // written
    std::vector<std::string> errors;  // roots or directories that could not be read
    // What the walk left out on purpose, "PATH: why": symlinks leading
    // outside their root, a directory reached a second time (symlink
    // loops), subdirectories below maxDepth, the rest after maxEntries.
    // The first 100 are listed; skippedCount counts them all.
    std::vector<std::string> skipped;
    int64_t skippedCount = 0;
    double seconds = 0;
};

struct CatalogSearchHit;

struct CatalogSearchOptions {
    int maxCheckpoints = 200;
    int maxMatchesPerCheckpoint = 50;
    // Each shown hit, complete (its first matches and its own total), in
    // display order as soon as it is known, on the calling thread, before
    // search() returns; false stops the search (Cancelled).
    std::function<bool(const CatalogSearchHit&)> onHit = {};  // (= {}: designated initializers may leave it out)
    const CancellationToken* cancel = nullptr;                // polled between checkpoints (Cancelled)
    // False: once more checkpoints match than are shown, counting stops and
    // the totals are lower bounds (CatalogSearchResult::totalsExact). With
    // many matching rows the exact totals cost a pass over every checkpoint
    // (hundreds of ms at a million rows), the first page a few tens.
    bool exactTotals = true;
};

struct CatalogSearchMatch {
    std::string key;
    std::string objectPath;
    std::string dtype;
    std::string shape;
};

struct CatalogSearchHit {
    CatalogCheckpoint checkpoint;
    std::vector<CatalogSearchMatch> matches;  // at most maxMatchesPerCheckpoint
    int64_t totalMatches = 0;
};

struct CatalogSearchResult {
    std::string query;
    std::string fullTextQuery;           // the word-index expressions run, "; "-separated ("" when none was)
    std::vector<CatalogSearchHit> hits;  // by directory, then step
    int64_t totalCheckpoints = 0;
    int64_t totalMatches = 0;
    bool truncated = false;  // more checkpoints than maxCheckpoints matched
    // False when counting stopped early (CatalogSearchOptions::exactTotals
    // false): the two totals are then "at least", never shown as exact.
    bool totalsExact = true;
};

// One restore, as the CLI and the explorer record it.
struct RestoreRecord {
    int64_t id = 0;
    double at = 0;
    std::string source;   // checkpoint prefix
    std::string target;   // model spec or program restored into
    std::string mapping;  // how objects were matched ("object graph", "names")
    std::string verdict;  // "consumed", "matched", "failed: ..."
    std::string output;   // checkpoint written, if any
    bool ok = false;
    std::string tool;  // "ckpt", "ckpt-explorer"
};

class Catalog {
public:
    // 3: the catalog's tables; 1 and 2 are the schedule store's; 4: the
    // state-file problem of each checkpoint's directory; 5: the word index;
    // 6: the index generation; 7: the word index without column sizes.
    static constexpr int kSchemaVersion = 7;

    // $XDG_DATA_HOME/ckpt-explorer/catalog.db, else
    // $HOME/.local/share/ckpt-explorer/catalog.db; FailedPrecondition when
    // neither variable is set.
    static Result<std::string> defaultPath();

    // Opens or creates the file and migrates an older schema forward.
    // FailedPrecondition naming the file for a newer schema; DataLoss for a
    // file that is not a SQLite database or is damaged. A refused file is
    // left byte for byte unchanged.
    static Result<std::unique_ptr<Catalog>> open(std::string_view path, const CatalogOptions& options = {});
    ~Catalog();
    Catalog(const Catalog&) = delete;
    Catalog& operator=(const Catalog&) = delete;

    const std::string& path() const;

    // Adds a directory (made absolute); NotFound when it is not one. Adding
    // it again returns the existing root.
    Result<CatalogRoot> addRoot(std::string_view directory);
    // Removes the root and everything recorded under it; NotFound naming it.
    Status forgetRoot(std::string_view directory);
    Result<std::vector<CatalogRoot>> roots();  // by path

    Result<CatalogScanSummary> scan(const CatalogScanOptions& options = {});

    // Checkpoints under 'directory' (a root or any directory below one;
    // empty = all), by directory then step.
    Result<std::vector<CatalogCheckpoint>> checkpoints(std::string_view directory = {});
    Result<CatalogCheckpoint> checkpoint(std::string_view prefix);     // NotFound naming it
    Result<std::vector<CatalogTensor>> tensors(int64_t checkpointId);  // by key

    // InvalidArgument naming the query when its FTS5 syntax is wrong;
    // Cancelled when options.cancel or onHit stopped it.
    Result<CatalogSearchResult> search(std::string_view query, const CatalogSearchOptions& options = {});

    // A verification done outside a scan (the explorer's sidebar, `ckpt
    // verify`) recorded for a catalogued checkpoint whose index is still the
    // one scanned (same size and mtime). False, writing nothing, when the
    // catalog does not hold it or it changed since.
    Result<bool> recordVerification(const VerifyReport& report);

    // A checkpoint this tool has just written or replaced: its directory is
    // rescanned, so the row describes the files now on disk rather than
    // what was there before, and 'verified' (the write's own read-back) is
    // recorded. False, writing nothing, when no root holds the directory.
    Result<bool> recordWrite(std::string_view prefix, const VerifyReport* verified = nullptr);

    Result<int64_t> recordRestore(const RestoreRecord& record);
    Result<std::vector<RestoreRecord>> restores(int limit = 100);  // newest first

private:
    // The results cache keeps its rows in the same database.
    friend class ResultsCache;
    explicit Catalog(std::unique_ptr<catalog::Database> db);
    std::unique_ptr<catalog::Database> m_db;
};

struct MatchReport;

// A restore's record as the CLI and the explorer store it: the report's
// style and counts as the mapping ("object-based, 12 matched, map a=b"),
// its verdicts ("assert_consumed passed, assert_existing_objects_matched
// passed, ...").
RestoreRecord restoreRecordFor(const MatchReport& report, std::string_view target, std::string_view assignmentMap,
                               std::string_view output, bool ok, std::string_view tool);

// Records a restore in the catalog at 'catalogPath' (created when missing).
// Callers treat a failure as a warning: the restore itself happened.
Status recordRestore(const std::string& catalogPath, const RestoreRecord& record);

}  // namespace ckpt
