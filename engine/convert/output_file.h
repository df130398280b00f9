#pragma once
// The temp-file-then-rename of an export's single output file (where it
// may be written is ckpt/destination.h's rule). Every write-side call goes
// through the storage layer (storage/dispatch.h), so tests can fill the
// disk at any of them. Internal to the engine.
//
// On an object store, which cannot rename and where libzip cannot write,
// the file is built in a private directory under the system's temporary
// directory and uploaded at commit(): one PUT or multipart upload, so the
// object appears whole or not at all, create-only unless it replaces one.

#include <string>

#include "ckpt/status.h"

namespace ckpt::convert {

// A temp file beside 'finalPath' (".NAME.tmp-<owner token>-N", see
// pipeline/temp_files.h), removed again unless commit() renamed it into
// place. What an earlier writer of the same output left when it died is
// removed first. 'replace': the caller may replace a file already there
// (on a store the upload is otherwise create-only).
class TempOutput {
public:
    TempOutput(std::string finalPath, bool replace);
    ~TempOutput();
    TempOutput(const TempOutput&) = delete;
    TempOutput& operator=(const TempOutput&) = delete;

    // Why no temp file could be made (then path() is empty).
    const Status& status() const { return m_setup; }
    const std::string& path() const { return m_temp; }
    // fsyncs the temp file (when 'sync': a writer that did not), renames it
    // to the final path and fsyncs the directory (when that fails, the
    // renamed file is removed again); on a store, uploads it.
    Status commit(bool sync);

private:
    Status upload();

    std::string m_final;
    std::string m_temp;
    std::string m_privateDir;  // on a store: the local directory holding m_temp
    Status m_setup;
    bool m_replace = false;
    bool m_committed = false;
};

}  // namespace ckpt::convert
