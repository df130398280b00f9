#include "objstore/digest.h"

namespace ckpt::objstore {
namespace {

int hexDigit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

}  // namespace

std::string multipartEtag(const std::vector<std::string>& partEtags) {
    std::string md5s;
    md5s.reserve(partEtags.size() * 16);
    for (const std::string& etag : partEtags) {
        if (etag.size() != 32) return {};
        for (size_t i = 0; i < 32; i += 2) {
            const int hi = hexDigit(etag[i]), lo = hexDigit(etag[i + 1]);
            if (hi < 0 || lo < 0) return {};
            md5s.push_back(static_cast<char>(hi * 16 + lo));
        }
    }
    return md5Hex(md5s) + "-" + std::to_string(partEtags.size());
}

}  // namespace ckpt::objstore
