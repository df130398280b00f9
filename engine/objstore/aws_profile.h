#pragma once
// One named profile of the AWS shared files, ~/.aws/credentials and
// ~/.aws/config: INI sections of "key = value" lines, where a key with an
// empty value opens indented sub-keys ("s3 =" then "  addressing_style =
// path", read as "s3.addressing_style"). Comments start with '#' or ';'.

#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "ckpt/status.h"

namespace ckpt::objstore {

using ProfileValues = std::map<std::string, std::string>;

enum class ProfileFile {
    Credentials,  // sections are "[name]"
    Config,       // sections are "[profile name]", and "[default]"
};

// The profile's keys (lower-cased) and values; nullopt when the file does
// not exist or has no such section. Files over 1 MiB, lines without '=' and
// unterminated section headers fail with InvalidArgument naming the file
// and line number, never the line (it may hold a secret).
Result<std::optional<ProfileValues>> readProfile(const std::string& path, std::string_view profile, ProfileFile kind);
// The same, from text already read (tests, fuzzing).
Result<std::optional<ProfileValues>> parseProfile(std::string_view text, const std::string& path, std::string_view profile,
                                                  ProfileFile kind);

}  // namespace ckpt::objstore
