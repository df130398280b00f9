#include "convert/output_file.h"

#include <fcntl.h>
#include <unistd.h>

#include "pipeline/file_ops.h"
#include "pipeline/temp_files.h"
#include "pipeline/writable_file.h"
#include "platform/file.h"

namespace ckpt::convert {

TempOutput::TempOutput(std::string finalPath) : m_final(std::move(finalPath)) {
    const std::string dir = platform::dirName(m_final);
    pipeline::collectGarbageFor(dir.empty() ? "." : dir, platform::baseName(m_final));
    m_temp = platform::joinPath(dir, "." + pipeline::tempName(platform::baseName(m_final), pipeline::kAtomicMarker));
}

TempOutput::~TempOutput() {
    if (!m_committed) (void)pipeline::removeFile(m_temp);
}

Status TempOutput::commit(bool sync) {
    if (sync) {
        pipeline::FileOps& ops = pipeline::fileOps();
        const int fd = ops.open(m_temp.c_str(), O_RDONLY | O_CLOEXEC, 0);
        if (fd < 0) return pipeline::ioError("cannot open", m_temp, errno);
        const int rc = ops.fsync(fd);
        const int err = errno;
        ops.close(fd);
        if (rc != 0) return pipeline::ioError("cannot fsync", m_temp, err);
    }
    CKPT_RETURN_IF_ERROR(pipeline::renameFile(m_temp, m_final));
    m_committed = true;
    Status synced = pipeline::fsyncDirectory(platform::dirName(m_final));
    // A rename that may not survive a crash is no result: take it back, so
    // that the error is all that is left.
    if (!synced.isOk()) (void)pipeline::removeFile(m_final);
    return synced;
}

}  // namespace ckpt::convert
