#include "convert/output_file.h"

#include <unistd.h>

#include <atomic>

#include "ckpt/bundle_naming.h"
#include "ckpt/surgery.h"
#include "platform/file.h"
#include "storage/dispatch.h"

namespace ckpt::convert {

namespace {

// The prefix itself, its index, and (by name) any of its data files.
bool isBundleFile(const std::string& path, const std::string& prefix) { return path == prefix || bundlePrefixOf(path) == prefix; }

}  // namespace

Status checkExportOutput(const std::string& output, const std::string& sourceArg, const std::string& prefix, bool overwrite) {
    CKPT_RETURN_IF_ERROR(storage::checkLocation(output));
    // The output is built beside its name and renamed into place (libzip
    // writes .npz archives itself): a local file system's capabilities.
    if (!storage::capabilitiesFor(output).rename || !storage::capabilitiesFor(output).localPaths)
        return unimplemented("export writes local files only; " + output + " is not one (export locally, then copy)");
    const std::string out = platform::canonicalPath(output);
    const std::string src = platform::canonicalPath(sourceArg);
    if (out == src || isBundleFile(out, platform::canonicalPath(prefix)))
        return invalidArgument("the output " + output + " is the source checkpoint " + sourceArg + " itself");
    if (storage::isDirectory(src) && platform::isInsideDirectory(out, src))
        return invalidArgument("the output " + output + " is inside the source " + sourceArg + ": write it somewhere else");
    if (storage::isDirectory(output)) return invalidArgument("the output " + output + " is a directory");
    if (storage::exists(output) && !overwrite)
        return {StatusCode::AlreadyExists, "the output " + output + " exists (--overwrite replaces it)"};
    return okStatus();
}

Status checkImportDestination(const std::string& dstPrefix, const std::string& input, bool overwrite) {
    CKPT_RETURN_IF_ERROR(storage::checkLocation(input));
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
