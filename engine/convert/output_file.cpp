#include "convert/output_file.h"

#include <algorithm>
#include <vector>

#include "pipeline/temp_files.h"
#include "platform/file.h"
#include "storage/dispatch.h"

namespace ckpt::convert {

namespace {

constexpr size_t kUploadChunkBytes = 8u << 20;

bool onStore(const std::string& location) {
    const storage::Capabilities c = storage::capabilitiesFor(location);
    return !c.rename || !c.localPaths;
}

}  // namespace

TempOutput::TempOutput(std::string finalPath, bool replace) : m_final(std::move(finalPath)), m_replace(replace) {
    if (onStore(m_final)) {
        auto dir = storage::makePrivateTempDirectory("ckpt-export");
        if (!dir) {
            m_setup = dir.status().withContext("building " + m_final);
            return;
        }
        m_privateDir = std::move(*dir);
        m_temp = platform::joinPath(m_privateDir, platform::baseName(m_final));
        return;
    }
    const std::string dir = platform::dirName(m_final);
    pipeline::collectGarbageFor(dir.empty() ? "." : dir, platform::baseName(m_final));
    m_temp = platform::joinPath(dir, "." + pipeline::tempName(platform::baseName(m_final), pipeline::kAtomicMarker));
}

TempOutput::~TempOutput() {
    if (!m_privateDir.empty()) {
        (void)storage::removeAll(m_privateDir);
        return;
    }
    if (!m_committed && !m_temp.empty()) (void)storage::remove(m_temp);
}

Status TempOutput::commit(bool sync) {
    CKPT_RETURN_IF_ERROR(m_setup);
    if (!m_privateDir.empty()) return upload();
    if (sync) CKPT_RETURN_IF_ERROR(storage::syncFile(m_temp));
    CKPT_RETURN_IF_ERROR(storage::rename(m_temp, m_final));
    m_committed = true;
    Status synced = storage::syncDirectory(platform::dirName(m_final));
    // A rename that may not survive a crash is no result: take it back, so
    // that the error is all that is left.
    if (!synced.isOk()) (void)storage::remove(m_final);
    return synced;
}

// The built file, already read back and checked, copied to the store.
Status TempOutput::upload() {
    CKPT_ASSIGN_OR_RETURN(auto in, storage::openRandomAccess(m_temp));
    storage::CreateOptions options;
    options.expectedSize = in->size();
    options.condition = m_replace ? storage::WriteCondition::none() : storage::WriteCondition::ifAbsent();
    CKPT_ASSIGN_OR_RETURN(auto out, storage::create(m_final, options));
    std::vector<char> chunk(static_cast<size_t>(std::min<uint64_t>(kUploadChunkBytes, std::max<uint64_t>(in->size(), 1))));
    for (uint64_t at = 0; at < in->size();) {
        const size_t n = static_cast<size_t>(std::min<uint64_t>(chunk.size(), in->size() - at));
        CKPT_RETURN_IF_ERROR(in->read(at, n, chunk.data()));
        CKPT_RETURN_IF_ERROR(out->append(chunk.data(), n));
        at += n;
    }
    return out->close();
}

}  // namespace ckpt::convert
