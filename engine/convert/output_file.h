#pragma once
// The temp-file-then-rename of an export's single output file (where it
// may be written is ckpt/destination.h's rule). Every write-side call goes
// through the storage layer (storage/dispatch.h), so tests can fill the
// disk at any of them. Internal to the engine.

#include <string>

#include "ckpt/status.h"

namespace ckpt::convert {

// A temp file beside 'finalPath' (".NAME.tmp-<owner token>-N", see
// pipeline/temp_files.h), removed again unless commit() renamed it into
// place. What an earlier writer of the same output left when it died is
// removed first.
class TempOutput {
public:
    explicit TempOutput(std::string finalPath);
    ~TempOutput();
    TempOutput(const TempOutput&) = delete;
    TempOutput& operator=(const TempOutput&) = delete;

    const std::string& path() const { return m_temp; }
    // fsyncs the temp file (when 'sync': a writer that did not), renames it
    // to the final path and fsyncs the directory (when that fails, the
    // renamed file is removed again).
    Status commit(bool sync);

private:
    std::string m_final;
    std::string m_temp;
    bool m_committed = false;
};

}  // namespace ckpt::convert
