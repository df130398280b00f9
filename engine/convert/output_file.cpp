#include "convert/output_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>

#include "ckpt/surgery.h"
#include "pipeline/file_ops.h"
#include "pipeline/writable_file.h"
#include "platform/file.h"

namespace fs = std::filesystem;

namespace ckpt::convert {

namespace {

// The prefix itself, its index, and (by name) any of its data files.
bool isBundleFile(const std::string& path, const std::string& prefix) {
    if (path == prefix || path == prefix + ".index") return true;
    const std::string data = prefix + ".data-";
    return path.size() > data.size() && path.compare(0, data.size(), data) == 0;
}

}  // namespace

Status checkExportOutput(const std::string& output, const std::string& sourceArg, const std::string& prefix, bool overwrite) {
    const std::string out = platform::canonicalPath(output);
    const std::string src = platform::canonicalPath(sourceArg);
    if (out == src || isBundleFile(out, platform::canonicalPath(prefix)))
        return invalidArgument("the output " + output + " is the source checkpoint " + sourceArg + " itself");
    if (platform::isDirectory(src) && platform::isInsideDirectory(out, src))
        return invalidArgument("the output " + output + " is inside the source " + sourceArg + ": write it somewhere else");
    if (platform::isDirectory(output)) return invalidArgument("the output " + output + " is a directory");
    if (platform::pathExists(output) && !overwrite)
        return {StatusCode::AlreadyExists, "the output " + output + " exists (--overwrite replaces it)"};
    return okStatus();
}

Status checkImportDestination(const std::string& dstPrefix, const std::string& input, bool overwrite) {
    if (isBundleFile(platform::canonicalPath(input), platform::canonicalPath(dstPrefix)))
        return invalidArgument("the destination " + dstPrefix + " would overwrite the input " + input);
    // The rest is the rule every checkpoint-writing operation shares (a
    // prefix, not a directory; an existing checkpoint only with overwrite).
    return checkSurgeryDestination(dstPrefix, {}, overwrite);
}

TempOutput::TempOutput(std::string finalPath) : m_final(std::move(finalPath)) {
    static std::atomic<int> counter{0};
    m_temp = platform::joinPath(platform::dirName(m_final), "." + platform::baseName(m_final) + ".tmp-" +
                                                                std::to_string(::getpid()) + "-" + std::to_string(counter++));
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
