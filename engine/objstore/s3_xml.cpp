#include "objstore/s3_xml.h"

#include <expat.h>

#include <charconv>
#include <memory>

#include "objstore/request_target.h"
#include "objstore/timestamps.h"

namespace ckpt::objstore {

namespace {

// Collects the text of leaf elements along a path of element names and
// hands each finished element to a callback; enforces the bounds.
class BoundedXml {
public:
    virtual ~BoundedXml() = default;

    Status parse(std::string_view xml) {
        if (xml.size() > kMaxXmlBytes)
            return dataLoss("XML response of " + std::to_string(xml.size()) + " bytes is over the limit of " +
                            std::to_string(kMaxXmlBytes));
        std::unique_ptr<XML_ParserStruct, decltype(&XML_ParserFree)> parser(XML_ParserCreate("UTF-8"), &XML_ParserFree);
        if (!parser) return {StatusCode::ResourceExhausted, "cannot create an XML parser"};
        m_parser = parser.get();
        XML_SetUserData(m_parser, this);
        XML_SetElementHandler(m_parser, &BoundedXml::onStart, &BoundedXml::onEnd);
        XML_SetCharacterDataHandler(m_parser, &BoundedXml::onText);
        XML_SetStartDoctypeDeclHandler(m_parser, &BoundedXml::onDoctype);
        XML_SetEntityDeclHandler(m_parser, &BoundedXml::onEntity);
        const XML_Status rc = XML_Parse(m_parser, xml.data(), static_cast<int>(xml.size()), XML_TRUE);
        if (!m_error.isOk()) return m_error;
        if (rc != XML_STATUS_OK)
            return dataLoss(std::string("malformed XML response: ") + XML_ErrorString(XML_GetErrorCode(m_parser)) + " at line " +
                            std::to_string(XML_GetCurrentLineNumber(m_parser)));
        return okStatus();
    }

protected:
    // A finished element: its path ("ListBucketResult/Contents/Key") and text.
    virtual void element(const std::string& path, std::string text) = 0;
    virtual void opened(const std::string& path) { (void)path; }

    void fail(Status status) {
        if (m_error.isOk()) m_error = std::move(status);
        XML_StopParser(m_parser, XML_FALSE);
    }

private:
    static void onStart(void* self, const XML_Char* name, const XML_Char** /*attrs*/) {
        auto* me = static_cast<BoundedXml*>(self);
        if (!me->m_error.isOk()) return;
        if (++me->m_depth > kMaxXmlDepth) return me->fail(dataLoss("XML response nests deeper than expected"));
        if (++me->m_elements > 8 * kMaxListEntries + 64)
            return me->fail(dataLoss("XML response has more elements than a list page can"));
        me->m_stack.push_back(me->m_path.size());
        if (!me->m_path.empty()) me->m_path.push_back('/');
        me->m_path += name;
        me->m_text.clear();
        me->opened(me->m_path);
    }
    static void onEnd(void* self, const XML_Char* /*name*/) {
        auto* me = static_cast<BoundedXml*>(self);
        if (!me->m_error.isOk()) return;
        me->element(me->m_path, std::move(me->m_text));
        me->m_text.clear();
        me->m_path.resize(me->m_stack.back());
        me->m_stack.pop_back();
        --me->m_depth;
    }
    static void onText(void* self, const XML_Char* s, int len) {
        auto* me = static_cast<BoundedXml*>(self);
        if (!me->m_error.isOk()) return;
        if (me->m_text.size() + static_cast<size_t>(len) > kMaxXmlTextBytes)
            return me->fail(
                dataLoss("XML response has a text longer than " + std::to_string(kMaxXmlTextBytes) + " bytes in " + me->m_path));
        me->m_text.append(s, static_cast<size_t>(len));
    }
    static void onDoctype(void* self, const XML_Char*, const XML_Char*, const XML_Char*, int) {
        static_cast<BoundedXml*>(self)->fail(dataLoss("XML response has a DOCTYPE, which S3 never sends"));
    }
    static void onEntity(void* self, const XML_Char*, int, const XML_Char*, int, const XML_Char*, const XML_Char*,
                         const XML_Char*, const XML_Char*) {
        static_cast<BoundedXml*>(self)->fail(dataLoss("XML response defines an entity"));
    }

    XML_Parser m_parser = nullptr;
    Status m_error;
    int m_depth = 0;
    size_t m_elements = 0;
    std::string m_path;
    std::vector<size_t> m_stack;
    std::string m_text;
};

class ListParser : public BoundedXml {
public:
    explicit ListParser(bool urlEncoded) : m_urlEncoded(urlEncoded) {}
    ListPage page;

protected:
    void opened(const std::string& path) override {
        if (path == "ListBucketResult/Contents" || path == "ListBucketResult/CommonPrefixes") {
            if (page.objects.size() + page.commonPrefixes.size() >= kMaxListEntries)
                return fail(dataLoss("list response has more than " + std::to_string(kMaxListEntries) + " entries"));
            if (path == "ListBucketResult/Contents") page.objects.emplace_back();
        }
    }
    void element(const std::string& path, std::string text) override {
        if (path.rfind("ListBucketResult", 0) != 0) {
            if (path.find('/') == std::string::npos) fail(dataLoss("expected a ListBucketResult, got <" + path + ">"));
            return;
        }
        if (path == "ListBucketResult") {
            m_sawRoot = true;
        } else if (path == "ListBucketResult/IsTruncated") {
            page.isTruncated = text == "true";
        } else if (path == "ListBucketResult/NextContinuationToken") {
            page.nextContinuationToken = std::move(text);
        } else if (path == "ListBucketResult/CommonPrefixes/Prefix") {
            page.commonPrefixes.push_back(decoded(std::move(text)));
        } else if (path == "ListBucketResult/Contents/Key" && !page.objects.empty()) {
            page.objects.back().key = decoded(std::move(text));
        } else if (path == "ListBucketResult/Contents/Size" && !page.objects.empty()) {
            uint64_t size = 0;
            const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), size);
            if (ec != std::errc() || end != text.data() + text.size())
                return fail(dataLoss("list response has a Size that is not a number"));
            page.objects.back().size = size;
        } else if (path == "ListBucketResult/Contents/ETag" && !page.objects.empty()) {
            page.objects.back().etag = unquotedEtag(text);
        } else if (path == "ListBucketResult/Contents/LastModified" && !page.objects.empty()) {
            page.objects.back().lastModified = std::move(text);
        }
    }

public:
    bool sawRoot() const { return m_sawRoot; }

private:
    std::string decoded(std::string text) {
        if (!m_urlEncoded) return text;
        auto d = uriDecode(text);
        if (!d) {
            fail(dataLoss("list response has a malformed %-encoded key"));
            return {};
        }
        return std::move(*d);
    }
    bool m_urlEncoded;
    bool m_sawRoot = false;
};

class ErrorParser : public BoundedXml {
public:
    ErrorBody body;
    bool sawRoot = false;

protected:
    void element(const std::string& path, std::string text) override {
        if (path == "Error") sawRoot = true;
        else if (path == "Error/Code") body.code = std::move(text);
        else if (path == "Error/Message") body.message = std::move(text);
        else if (path == "Error/Region") body.region = std::move(text);
        else if (path == "Error/Endpoint") body.endpoint = std::move(text);
    }
};

// The text of a few leaf elements under one root, by path.
class LeafParser : public BoundedXml {
public:
    explicit LeafParser(std::string root) : m_root(std::move(root)) {}
    std::vector<std::pair<std::string, std::string>> leaves;
    bool sawRoot = false;

protected:
    void element(const std::string& path, std::string text) override {
        if (path == m_root) sawRoot = true;
        else if (path.rfind(m_root + "/", 0) == 0) leaves.emplace_back(path.substr(m_root.size() + 1), std::move(text));
    }

private:
    std::string m_root;
};

class UploadListParser : public BoundedXml {
public:
    explicit UploadListParser(bool urlEncoded) : m_urlEncoded(urlEncoded) {}
    UploadListPage page;
    bool sawRoot = false;

protected:
    void opened(const std::string& path) override {
        if (path != "ListMultipartUploadsResult/Upload") return;
        if (page.uploads.size() >= kMaxListEntries)
            return fail(dataLoss("upload list has more than " + std::to_string(kMaxListEntries) + " entries"));
        page.uploads.emplace_back();
    }
    void element(const std::string& path, std::string text) override {
        if (path == "ListMultipartUploadsResult") sawRoot = true;
        else if (path == "ListMultipartUploadsResult/IsTruncated") page.isTruncated = text == "true";
        else if (path == "ListMultipartUploadsResult/NextKeyMarker") page.nextKeyMarker = decoded(std::move(text));
        else if (path == "ListMultipartUploadsResult/NextUploadIdMarker") page.nextUploadIdMarker = std::move(text);
        else if (page.uploads.empty()) return;
        else if (path == "ListMultipartUploadsResult/Upload/Key") page.uploads.back().key = decoded(std::move(text));
        else if (path == "ListMultipartUploadsResult/Upload/UploadId") page.uploads.back().uploadId = std::move(text);
        else if (path == "ListMultipartUploadsResult/Upload/Initiated") {
            page.uploads.back().initiatedNs = parseIso8601Ns(text).value_or(0);
            page.uploads.back().initiated = std::move(text);
        }
    }

private:
    std::string decoded(std::string text) {
        if (!m_urlEncoded) return text;
        auto d = uriDecode(text);
        if (!d) {
            fail(dataLoss("upload list has a malformed %-encoded key"));
            return {};
        }
        return std::move(*d);
    }
    bool m_urlEncoded;
};

std::string xmlEscaped(std::string_view text) {
    std::string out;
    for (char c : text) {
        switch (c) {
        case '&': out += "&amp;"; break;
        case '<': out += "&lt;"; break;
        case '>': out += "&gt;"; break;
        case '"': out += "&quot;"; break;
        default: out += c;
        }
    }
    return out;
}

}  // namespace

std::string unquotedEtag(std::string_view etag) {
    if (etag.size() >= 2 && etag.front() == '"' && etag.back() == '"') etag = etag.substr(1, etag.size() - 2);
    return std::string(etag);
}

Result<std::string> parseInitiateMultipartUpload(std::string_view xml) {
    LeafParser parser("InitiateMultipartUploadResult");
    CKPT_RETURN_IF_ERROR(parser.parse(xml));
    if (!parser.sawRoot) return dataLoss("multipart upload answer has no InitiateMultipartUploadResult");
    for (auto& [path, text] : parser.leaves)
        if (path == "UploadId" && !text.empty()) return std::move(text);
    return dataLoss("multipart upload answer has no UploadId");
}

Result<CompletionAnswer> parseCompleteMultipartUpload(std::string_view xml) {
    CompletionAnswer answer;
    if (auto error = parseErrorBody(xml)) {
        answer.error = std::move(error);
        return answer;
    }
    LeafParser parser("CompleteMultipartUploadResult");
    CKPT_RETURN_IF_ERROR(parser.parse(xml));
    if (!parser.sawRoot) return dataLoss("multipart completion answer has no CompleteMultipartUploadResult");
    for (auto& [path, text] : parser.leaves)
        if (path == "ETag") answer.etag = unquotedEtag(text);
    return answer;
}

Result<UploadListPage> parseListMultipartUploads(std::string_view xml, bool urlEncoded) {
    UploadListParser parser(urlEncoded);
    CKPT_RETURN_IF_ERROR(parser.parse(xml));
    if (!parser.sawRoot) return dataLoss("upload list has no ListMultipartUploadsResult");
    for (const PendingUpload& u : parser.page.uploads)
        if (u.key.empty() || u.uploadId.empty()) return dataLoss("upload list has an entry without a Key or UploadId");
    if (parser.page.isTruncated && parser.page.nextKeyMarker.empty() && parser.page.nextUploadIdMarker.empty())
        return dataLoss("upload list is truncated but names no marker to go on from");
    return std::move(parser.page);
}

std::string completeMultipartUploadXml(const std::vector<CompletedPart>& parts) {
    std::string xml = "<CompleteMultipartUpload>";
    for (const CompletedPart& p : parts)
        xml +=
            "<Part><PartNumber>" + std::to_string(p.number) + "</PartNumber><ETag>\"" + xmlEscaped(p.etag) + "\"</ETag></Part>";
    xml += "</CompleteMultipartUpload>";
    return xml;
}

Result<ListPage> parseListObjectsV2(std::string_view xml, bool urlEncoded) {
    ListParser parser(urlEncoded);
    CKPT_RETURN_IF_ERROR(parser.parse(xml));
    if (!parser.sawRoot()) return dataLoss("list response has no ListBucketResult");
    for (const auto& o : parser.page.objects)
        if (o.key.empty()) return dataLoss("list response has an entry without a Key");
    if (parser.page.isTruncated && parser.page.nextContinuationToken.empty())
        return dataLoss("list response is truncated but has no NextContinuationToken");
    return std::move(parser.page);
}

std::optional<ErrorBody> parseErrorBody(std::string_view xml) {
    ErrorParser parser;
    if (!parser.parse(xml).isOk() || !parser.sawRoot || parser.body.code.empty()) return std::nullopt;
    return std::move(parser.body);
}

}  // namespace ckpt::objstore
