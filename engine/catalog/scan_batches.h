#pragma once
// The scan's reading side (catalog_scan.cpp): the changed checkpoints of
// every listed directory, in batches, each batch read on other threads
// while the one before it is written. The single writer thread is the
// scan's bottleneck; reading the next indexes beside it hides the reading
// (about 2 s of CPU for a million distinct keys). The reading threads never
// touch the database: what the database knows of a directory is read on
// the caller's thread, between writes. Engine-internal.

#include <cstdint>
#include <future>
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

class ScanBatches {
public:
    ScanBatches(std::vector<DirectoryWork>& work, ScanWriter& writer, const CatalogScanOptions& options)
        : m_work(work), m_writer(writer), m_options(options), m_dirs(work.size()) {}
    ~ScanBatches();  // waits for a read in flight (it stops early when cancelled)
    ScanBatches(const ScanBatches&) = delete;
    ScanBatches& operator=(const ScanBatches&) = delete;

    // The next batch, read (nullptr after the last); the read of the one
    // after it starts before this returns. Cancelled when the options'
    // token is; a batch is valid until the next call.
    Result<std::unique_ptr<ScanBatch>> next();

private:
    struct Directory {
        bool started = false;
        size_t next = 0;  // first entry not yet batched
        std::map<std::string, KnownRow> known;
        std::vector<std::string> vanished;
    };
    Result<std::unique_ptr<ScanBatch>> plan();
    void startRead(ScanBatch& batch);
    Status readBatch(ScanBatch& batch) const;

    std::vector<DirectoryWork>& m_work;
    ScanWriter& m_writer;
    const CatalogScanOptions& m_options;
    std::vector<Directory> m_dirs;
    size_t m_dir = 0;       // the directory plan() batches next
    size_t m_released = 0;  // directories before this one are done
    std::unique_ptr<ScanBatch> m_ahead;
    std::future<Status> m_reading;  // m_ahead's read, when it runs on its own thread
    Status m_readInline;            // m_ahead's read, when no thread could be started
    bool m_planned = false;
};

}  // namespace ckpt::catalog
