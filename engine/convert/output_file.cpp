#include "convert/output_file.h"

#include <unistd.h>

#include "pipeline/temp_files.h"
#include "platform/file.h"
#include "storage/dispatch.h"

namespace ckpt::convert {

TempOutput::TempOutput(std::string finalPath) : m_final(std::move(finalPath)) {
    const std::string dir = platform::dirName(m_final);
    pipeline::collectGarbageFor(dir.empty() ? "." : dir, platform::baseName(m_final));
    m_temp = platform::joinPath(dir, "." + pipeline::tempName(platform::baseName(m_final), pipeline::kAtomicMarker));
}

TempOutput::~TempOutput() {
    if (!m_committed) (void)storage::remove(m_temp);
}

Status TempOutput::commit(bool sync) {
    if (sync) CKPT_RETURN_IF_ERROR(storage::syncFile(m_temp));
    CKPT_RETURN_IF_ERROR(storage::rename(m_temp, m_final));
    m_committed = true;
    Status synced = storage::syncDirectory(platform::dirName(m_final));
    // A rename that may not survive a crash is no result: take it back, so
    // that the error is all that is left.
    if (!synced.isOk()) (void)storage::remove(m_final);
    return synced;
}

}  // namespace ckpt::convert
