#include "objstore/remote_writable_file.h"

#include <algorithm>
#include <deque>
#include <future>
#include <memory>
#include <system_error>

namespace ckpt::objstore {

namespace {

constexpr int kPartsPerDoubling = 1000;

// One part on its way: its number and the answer to come (its ETag).
struct PartInFlight {
    int number = 0;
    std::future<Result<std::string>> etag;
};

// Appends to memory; one PUT at close() for an object of one part, else a
// multipart upload whose parts go out as they fill (remote_writable_file.h).
class RemoteWritableFile final : public storage::WritableFile {
public:
    RemoteWritableFile(std::shared_ptr<ObjectClient> client, ObjectRef ref, storage::WriteCondition condition,
                       uint64_t expectedSize)
        : m_client(std::move(client)), m_ref(std::move(ref)), m_location(m_client->urlOf(m_ref)),
          m_condition(std::move(condition)), m_expectedSize(expectedSize),
          m_maxInFlight(static_cast<size_t>(std::max(1, m_client->transport().options().maxInFlight))) {}

    ~RemoteWritableFile() override {
        // Abandoned without close() (an error upstream, an exception): the
        // parts sent so far must not stay on the store.
        if (!m_uploadId.empty()) abandonUpload();
    }

    const std::string& location() const override { return m_location; }
    uint64_t position() const override { return m_position; }
    storage::Generation generation() const override { return m_generation; }
    using WritableFile::append;

    Status append(const void* data, size_t n) override {
        if (m_closed) return failedPrecondition(m_location + ": append after close");
        CKPT_RETURN_IF_ERROR(m_failure);
        if (n > kMaxObjectBytes - m_position) return invalidArgument(m_location + ": an object holds at most 5 TiB (S3's limit)");
        const auto* p = static_cast<const char*>(data);
        while (n > 0) {
            // A full part is sent only once more bytes come: an object of
            // exactly one part is still a single PUT.
            if (m_part.size() == currentPartBytes()) CKPT_RETURN_IF_ERROR(sendPart());
            const size_t take = static_cast<size_t>(std::min<uint64_t>(n, currentPartBytes() - m_part.size()));
            // Once uploading, each part is one allocation of its size; the
            // first grows as written (most objects are small).
            if (m_part.empty() && !m_uploadId.empty()) m_part.reserve(static_cast<size_t>(currentPartBytes()));
            m_part.append(p, take);
            m_position += take;
            p += take;
            n -= take;
        }
        return okStatus();
    }

    Status close() override {
        if (m_closed) return okStatus();
        m_closed = true;
        if (m_uploadId.empty()) {
            CKPT_RETURN_IF_ERROR(m_failure);
            CKPT_ASSIGN_OR_RETURN(m_generation, putWithCondition(*m_client, m_ref, m_part, m_condition));
            std::string().swap(m_part);
            return okStatus();
        }
        Status s = m_failure;
        if (s.isOk()) s = sendPart();  // the last part, shorter than the others as S3 allows
        if (s.isOk()) s = collect(0);
        if (s.isOk()) {
            std::sort(m_done.begin(), m_done.end(),
                      [](const CompletedPart& a, const CompletedPart& b) { return a.number < b.number; });
            const PutCondition condition = putConditionOf(m_condition);
            auto done = m_client->completeMultipartUpload(m_ref, m_uploadId, m_done, condition, m_position);
            if (done) {
                m_uploadId.clear();  // committed: nothing to abort
                m_generation = generationOf(*done);
                return okStatus();
            }
            s = conditionFailure(*m_client, m_ref, condition, done.status());
        }
        abandonUpload();
        return s;
    }

private:
    uint64_t currentPartBytes() const {
        return uploadPartBytes(m_client->settings().transfer.partBytes, m_expectedSize, m_nextPart);
    }

    // Sends the filled part (starting the upload with the first one),
    // waiting first while maxInFlight parts are still on their way.
    Status sendPart() {
        if (m_uploadId.empty()) {
            auto id = m_client->createMultipartUpload(m_ref);
            if (!id) return fail(id.status());
            m_uploadId = std::move(*id);
        }
        if (m_nextPart > kMaxUploadParts)
            return fail(invalidArgument(m_location + ": more than " + std::to_string(kMaxUploadParts) + " parts"));
        CKPT_RETURN_IF_ERROR(collect(m_maxInFlight - 1));
        PartInFlight part;
        part.number = m_nextPart++;
        auto body = std::make_shared<const std::string>(std::move(m_part));
        m_part = std::string();
        auto upload = [client = m_client, ref = m_ref, id = m_uploadId, number = part.number, body] {
            return client->uploadPart(ref, id, number, *body);
        };
        try {
            part.etag = std::async(std::launch::async, upload);
        } catch (const std::system_error&) {
            // No thread to be had: this part goes in line.
            std::promise<Result<std::string>> now;
            now.set_value(upload());
            part.etag = now.get_future();
        }
        m_inFlight.push_back(std::move(part));
        return okStatus();
    }

    // Waits for the oldest parts until at most 'keep' are in flight.
    Status collect(size_t keep) {
        while (m_inFlight.size() > keep) {
            PartInFlight part = std::move(m_inFlight.front());
            m_inFlight.pop_front();
            Result<std::string> etag = part.etag.get();
            if (!etag) return fail(etag.status());
            m_done.push_back({part.number, std::move(*etag)});
        }
        return okStatus();
    }

    Status fail(Status status) {
        if (m_failure.isOk()) m_failure = status;
        return status;
    }

    // Waits for the parts still on their way, then aborts the upload (an
    // abort while a part is being sent could let that part outlive it).
    void abandonUpload() {
        for (PartInFlight& part : m_inFlight)
            if (part.etag.valid()) part.etag.wait();
        m_inFlight.clear();
        (void)m_client->abortMultipartUpload(m_ref, m_uploadId);
        m_uploadId.clear();
        std::string().swap(m_part);
    }

    std::shared_ptr<ObjectClient> m_client;
    ObjectRef m_ref;
    std::string m_location;
    storage::WriteCondition m_condition;
    uint64_t m_expectedSize;
    size_t m_maxInFlight;
    uint64_t m_position = 0;
    std::string m_part;  // the part being filled (the whole object while it fits in one)
    std::string m_uploadId;
    int m_nextPart = 1;
    std::deque<PartInFlight> m_inFlight;
    std::vector<CompletedPart> m_done;
    Status m_failure;
    bool m_closed = false;
    storage::Generation m_generation;
};

}  // namespace

storage::Generation generationOf(const ObjectInfo& info) {
    if (!info.generation.empty()) return storage::Generation::of(info.generation);
    return info.etag.empty() ? storage::Generation() : storage::Generation::of(info.etag);
}

PutCondition putConditionOf(const storage::WriteCondition& condition) {
    PutCondition c;
    if (condition.kind == storage::WriteCondition::Kind::IfAbsent) c.ifNoneMatch = true;
    if (condition.kind == storage::WriteCondition::Kind::IfMatch) c.ifMatch = condition.generation.token();
    return c;
}

Status conditionFailure(const ObjectClient& client, const ObjectRef& ref, const PutCondition& condition, Status failure) {
    if (failure.code() == StatusCode::FailedPrecondition && condition.ifNoneMatch)
        return Status(StatusCode::AlreadyExists, client.urlOf(ref) + " already exists");
    return failure;
}

Result<storage::Generation> putWithCondition(ObjectClient& client, const ObjectRef& ref, std::string_view bytes,
                                             const storage::WriteCondition& condition) {
    const PutCondition c = putConditionOf(condition);
    auto put = client.put(ref, bytes, c);
    if (!put) return conditionFailure(client, ref, c, put.status());
    return generationOf(*put);
}

uint64_t uploadPartBytes(uint64_t configuredPartBytes, uint64_t expectedSize, int partNumber) {
    uint64_t base = std::max(configuredPartBytes, kMinPartBytes);
    // Enough for the announced size in 10,000 parts, in whole MiB.
    const uint64_t forExpected = (expectedSize + kMaxUploadParts - 1) / kMaxUploadParts;
    base = std::max(base, (forExpected + (1u << 20) - 1) / (1u << 20) * (1u << 20));
    const int doublings = std::clamp((partNumber - 1) / kPartsPerDoubling, 0, 10);
    return std::min(kMaxPartBytes, base << doublings);
}

std::unique_ptr<storage::WritableFile> makeRemoteWritableFile(std::shared_ptr<ObjectClient> client, ObjectRef ref,
                                                              storage::WriteCondition condition, uint64_t expectedSize) {
    return std::make_unique<RemoteWritableFile>(std::move(client), std::move(ref), std::move(condition), expectedSize);
}

}  // namespace ckpt::objstore
