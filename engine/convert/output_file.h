#pragma once
// Where export and import may write, and the temp-file-then-rename of an
// export's single output file. Every write-side call goes through the
// storage layer (storage/dispatch.h), so tests can fill the disk at any of
// them. Internal to the engine.

#include <string>

#include "ckpt/status.h"

namespace ckpt::convert {

// An export's output must not be the source checkpoint's prefix or one of
// its files, nor lie inside a source given as a directory; an existing
// output is AlreadyExists unless 'overwrite', and never a directory.
Status checkExportOutput(const std::string& output, const std::string& sourceArg, const std::string& prefix, bool overwrite);
// An import's destination prefix must not name the input file (as the
// prefix, its index or a data file); then checkSurgeryDestination's rule
// (a checkpoint already there is AlreadyExists unless 'overwrite').
Status checkImportDestination(const std::string& dstPrefix, const std::string& input, bool overwrite);

// A temp file beside 'finalPath' (".NAME.tmp-PID-N"), removed again unless
// commit() renamed it into place.
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
