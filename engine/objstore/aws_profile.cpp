#include "objstore/aws_profile.h"

#include "objstore/text.h"
#include "storage/dispatch.h"

namespace ckpt::objstore {

namespace {

constexpr size_t kMaxProfileFileBytes = 1u << 20;

// The profile a section header names, or nullopt when the section is not a
// profile of this kind of file.
std::optional<std::string> sectionProfile(std::string_view header, ProfileFile kind) {
    header = trimWhitespace(header);
    if (kind == ProfileFile::Credentials) return std::string(header);
    if (header == "default") return std::string("default");
    if (header.substr(0, 8) == "profile " || header.substr(0, 8) == "profile\t")
        return std::string(trimWhitespace(header.substr(8)));
    return std::nullopt;  // [sso-session x], [services x]: not profiles
}

}  // namespace

Result<std::optional<ProfileValues>> parseProfile(std::string_view text, const std::string& path, std::string_view profile,
                                                  ProfileFile kind) {
    std::optional<ProfileValues> found;
    bool inProfile = false;
    std::string parentKey;  // "s3" while reading the indented lines under "s3 ="
    size_t lineNo = 0;
    while (!text.empty()) {
        ++lineNo;
        const size_t nl = text.find('\n');
        std::string_view raw = text.substr(0, nl);
        text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
        const bool indented = !raw.empty() && (raw.front() == ' ' || raw.front() == '\t');
        const std::string_view line = trimWhitespace(raw);
        if (line.empty() || line.front() == '#' || line.front() == ';') continue;
        const std::string where = path + " line " + std::to_string(lineNo);
        if (line.front() == '[') {
            if (line.back() != ']') return invalidArgument(where + ": unterminated section header");
            const auto name = sectionProfile(line.substr(1, line.size() - 2), kind);
            inProfile = name && *name == profile;
            parentKey.clear();
            if (inProfile && !found) found.emplace();
            continue;
        }
        const size_t eq = line.find('=');
        if (eq == std::string_view::npos) return invalidArgument(where + ": expected \"key = value\"");
        if (!inProfile) continue;
        const std::string key = lowerAscii(trimWhitespace(line.substr(0, eq)));
        const std::string value(trimWhitespace(line.substr(eq + 1)));
        if (indented && !parentKey.empty()) {
            (*found)[parentKey + "." + key] = value;
            continue;
        }
        parentKey = value.empty() ? key : std::string();
        if (!value.empty()) (*found)[key] = value;
    }
    return found;
}

Result<std::optional<ProfileValues>> readProfile(const std::string& path, std::string_view profile, ProfileFile kind) {
    // Always the local backend: the files are on this machine, whatever
    // AWS_SHARED_CREDENTIALS_FILE looks like ("s3://..." is a local name here).
    auto contents = storage::localStorage()->readObject(path, kMaxProfileFileBytes);
    if (!contents) {
        if (contents.status().code() == StatusCode::NotFound) return std::optional<ProfileValues>();
        return contents.status();
    }
    return parseProfile(contents->bytes, path, profile, kind);
}

}  // namespace ckpt::objstore
