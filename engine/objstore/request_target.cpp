#include "objstore/request_target.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <tuple>

#include "objstore/text.h"

namespace ckpt::objstore {

namespace {

bool isUnreserved(unsigned char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_' ||
           c == '~';
}

int defaultPort(std::string_view scheme) { return scheme == "https" ? 443 : 80; }

bool isHostChar(unsigned char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_'; }

}  // namespace

std::string Endpoint::authority() const {
    if (port == 0 || port == defaultPort(scheme)) return host;
    return host + ":" + std::to_string(port);
}

Result<Endpoint> parseEndpoint(std::string_view url, std::string_view what) {
    // The URL is the user's own setting, but it may carry user info: never
    // echo it whole; name the part that is wrong.
    const std::string where(what);
    const size_t sep = url.find("://");
    if (sep == std::string_view::npos) return invalidArgument(where + ": expected http://host[:port] or https://host[:port]");
    Endpoint ep;
    ep.scheme = lowerAscii(url.substr(0, sep));
    if (ep.scheme != "http" && ep.scheme != "https")
        return invalidArgument(where + ": scheme \"" + ep.scheme + "\" is not http or https");
    std::string_view rest = url.substr(sep + 3);
    if (!rest.empty() && rest.back() == '/') rest.remove_suffix(1);
    if (rest.find('@') != std::string_view::npos)
        return invalidArgument(where + ": credentials in the URL are not accepted (use AWS_ACCESS_KEY_ID)");
    if (rest.find_first_of("/?#") != std::string_view::npos)
        return invalidArgument(where + ": only scheme, host and port are allowed (no path, query or fragment)");
    std::string_view host = rest;
    std::string_view port;
    if (!rest.empty() && rest.front() == '[') {
        const size_t close = rest.find(']');
        if (close == std::string_view::npos) return invalidArgument(where + ": unterminated IPv6 address");
        host = rest.substr(0, close + 1);
        const std::string_view tail = rest.substr(close + 1);
        if (!tail.empty()) {
            if (tail.front() != ':') return invalidArgument(where + ": unexpected text after the IPv6 address");
            port = tail.substr(1);
        }
        for (char c : host.substr(1, host.size() - 2))
            if (!std::isxdigit(static_cast<unsigned char>(c)) && c != ':' && c != '.')
                return invalidArgument(where + ": malformed IPv6 address");
    } else {
        const size_t colon = rest.rfind(':');
        if (colon != std::string_view::npos) {
            host = rest.substr(0, colon);
            port = rest.substr(colon + 1);
        }
        for (char c : lowerAscii(host))
            if (!isHostChar(static_cast<unsigned char>(c)))
                return invalidArgument(where + ": the host name has a character that is not allowed");
    }
    if (host.empty() || host == "[]") return invalidArgument(where + ": no host");
    ep.host = lowerAscii(host);
    if (!port.empty() || rest.back() == ':') {
        int value = 0;
        const auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
        if (ec != std::errc() || end != port.data() + port.size() || value < 1 || value > 65535)
            return invalidArgument(where + ": port must be a number from 1 to 65535");
        ep.port = value;
    }
    return ep;
}

bool isLoopback(const Endpoint& endpoint) {
    const std::string& h = endpoint.host;
    if (h == "localhost" || h == "[::1]") return true;
    // 127.a.b.c, digits and dots only.
    if (h.rfind("127.", 0) != 0) return false;
    int dots = 0;
    for (char c : h) {
        if (c == '.') {
            ++dots;
        } else if (c < '0' || c > '9') {
            return false;
        }
    }
    return dots == 3;
}

bool isValidBucketName(std::string_view bucket) {
    if (bucket.size() < 3 || bucket.size() > 222) return false;
    auto alnum = [](unsigned char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
    if (!alnum(static_cast<unsigned char>(bucket.front())) || !alnum(static_cast<unsigned char>(bucket.back()))) return false;
    return std::all_of(bucket.begin(), bucket.end(),
                       [&](char c) { return alnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '_'; });
}

bool bucketFitsVirtualHost(std::string_view bucket) {
    return bucket.size() <= 63 && bucket.find_first_of("._") == std::string_view::npos;
}

std::string uriEncode(std::string_view text, bool encodeSlash) {
    static constexpr char kHex[] = "0123456789ABCDEF";
    std::string out;
    out.reserve(text.size());
    for (char ch : text) {
        const auto c = static_cast<unsigned char>(ch);
        if (isUnreserved(c) || (c == '/' && !encodeSlash)) {
            out.push_back(ch);
        } else {
            out.push_back('%');
            out.push_back(kHex[c >> 4]);
            out.push_back(kHex[c & 0xf]);
        }
    }
    return out;
}

Result<std::string> uriDecode(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    auto hexValue = [](char c) -> int {
        if (c >= '0' && c <= '9') return c - '0';
        if (c >= 'a' && c <= 'f') return c - 'a' + 10;
        if (c >= 'A' && c <= 'F') return c - 'A' + 10;
        return -1;
    };
    for (size_t i = 0; i < text.size(); ++i) {
        if (text[i] != '%') {
            out.push_back(text[i]);
            continue;
        }
        if (i + 2 >= text.size()) return invalidArgument("truncated %-escape");
        const int hi = hexValue(text[i + 1]);
        const int lo = hexValue(text[i + 2]);
        if (hi < 0 || lo < 0) return invalidArgument("malformed %-escape");
        out.push_back(static_cast<char>(hi * 16 + lo));
        i += 2;
    }
    return out;
}

std::string canonicalQueryString(std::vector<QueryParam> query) {
    for (auto& p : query) {
        p.name = uriEncode(p.name, true);
        p.value = uriEncode(p.value, true);
    }
    std::sort(query.begin(), query.end(),
              [](const QueryParam& a, const QueryParam& b) { return std::tie(a.name, a.value) < std::tie(b.name, b.value); });
    std::string out;
    for (const auto& p : query) {
        if (!out.empty()) out.push_back('&');
        out += p.name;
        out.push_back('=');
        out += p.value;
    }
    return out;
}

RequestTarget requestTarget(const Endpoint& endpoint, Addressing addressing, std::string_view bucket, std::string_view key,
                            std::vector<QueryParam> query) {
    RequestTarget t;
    // An IP address cannot take a bucket label in front of it.
    const bool ipHost = endpoint.host.front() == '[' || endpoint.host.find_first_not_of("0123456789.") == std::string::npos;
    const bool virtualHost = addressing == Addressing::VirtualHost && bucketFitsVirtualHost(bucket) && !ipHost;
    std::string path;
    if (virtualHost) {
        t.host = std::string(bucket) + "." + endpoint.authority();
        path = "/" + uriEncode(key, false);
    } else {
        t.host = endpoint.authority();
        path = "/" + std::string(bucket);
        if (!key.empty()) path += "/" + uriEncode(key, false);
    }
    t.canonicalUri = path;
    t.canonicalQuery = canonicalQueryString(std::move(query));
    t.url = endpoint.scheme + "://" + t.host + t.canonicalUri;
    if (!t.canonicalQuery.empty()) t.url += "?" + t.canonicalQuery;
    return t;
}

}  // namespace ckpt::objstore
