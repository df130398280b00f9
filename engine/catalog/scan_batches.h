#pragma once
// The scan's reading side (catalog_scan.cpp): the changed checkpoints of
// every listed directory, in batches, each batch read on other threads
// while the one before it is written. The single writer thread is the
// scan's bottleneck; reading the next indexes beside it hides the reading
// (about 2 s of CPU for a million distinct keys). The reading threads never
// touch the database: what the database knows of a directory is read on
// the writing thread, before its first batch. Engine-internal.

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "catalog/scan_writer.h"
#include "ckpt/catalog.h"
#include "ckpt/checkpoint_listing.h"

namespace ckpt::catalog {

// One listed directory of a scan.
struct DirectoryWork {
    int64_t rootId = 0;
    std::string dir;
    CheckpointListing listing;
    std::string stateProblem;  // every checkpoint's in the directory (CatalogCheckpoint::stateProblem)
};

// Checkpoints of one directory, read, to be written in one transaction;
// 'vanished' (the directory's checkpoints gone from disk) on its last.
struct ScanBatch {
    size_t directory = 0;  // index into the work list
    std::vector<Scanned> rows;
    const std::vector<std::string>* vanished = nullptr;
};

// Plans the batches in order and reads them; the caller writes each while
// the next is read (catalog_scan.cpp, one fork-join of platform::runWorkers
// per batch).
class ScanBatches {
public:
    ScanBatches(std::vector<DirectoryWork>& work, ScanWriter& writer, const CatalogScanOptions& options)
        : m_work(work), m_writer(writer), m_options(options), m_dirs(work.size()) {}

    // The next batch's checkpoints, unread; nullptr after the last. Reads
    // the database (what it knows of a directory, at its first batch), so
    // only on the thread that writes.
    Result<std::unique_ptr<ScanBatch>> plan();
    // What changed of each checkpoint, and its rows, on all cores; touches
    // no database. Checkpoints left once the options' token is cancelled
    // are skipped (the caller then writes nothing more).
    Status read(ScanBatch& batch) const;
    // What was known of the directories before 'directory' is dropped.
    void release(size_t directory);

private:
    struct Directory {
        bool started = false;
        size_t next = 0;  // first entry not yet batched
        std::map<std::string, KnownRow> known;
        std::vector<std::string> vanished;
    };

    std::vector<DirectoryWork>& m_work;
    ScanWriter& m_writer;
    const CatalogScanOptions& m_options;
    std::vector<Directory> m_dirs;
    size_t m_dir = 0;       // the directory plan() batches next
    size_t m_released = 0;  // directories before this one are done
};

}  // namespace ckpt::catalog
