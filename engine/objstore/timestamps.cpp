#include "objstore/timestamps.h"

#include <array>
#include <charconv>

namespace ckpt::objstore {

namespace {

std::optional<int> digitsAt(std::string_view text, size_t at, size_t len) {
    if (at + len > text.size()) return std::nullopt;
    int v = 0;
    const auto [end, ec] = std::from_chars(text.data() + at, text.data() + at + len, v);
    if (ec != std::errc() || end != text.data() + at + len) return std::nullopt;
    return v;
}

bool validTime(int month, int day, int hour, int minute, int second) {
    return month >= 1 && month <= 12 && day >= 1 && day <= 31 && hour <= 23 && minute <= 59 && second <= 60;
}

// ns since the epoch of a UTC civil time (Howard Hinnant's days-from-civil),
// no time zone or locale involved.
int64_t utcNs(int year, int month, int day, int hour, int minute, int second) {
    const int y = year - (month <= 2 ? 1 : 0);
    const int era = (y >= 0 ? y : y - 399) / 400;
    const int yoe = y - era * 400;
    const int doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1;
    const int doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    const int64_t days = int64_t(era) * 146097 + doe - 719468;
    return (days * 86400 + int64_t(hour) * 3600 + int64_t(minute) * 60 + second) * 1000000000;
}

}  // namespace

std::optional<int64_t> parseIso8601Ns(std::string_view text) {
    // YYYY-MM-DDTHH:MM:SS[.fraction]Z
    auto number = [&](size_t at, size_t len) { return digitsAt(text, at, len); };
    if (text.size() < 20 || text[4] != '-' || text[7] != '-' || text[10] != 'T' || text[13] != ':' || text[16] != ':' ||
        text.back() != 'Z')
        return std::nullopt;
    const auto year = number(0, 4), month = number(5, 2), day = number(8, 2);
    const auto hour = number(11, 2), minute = number(14, 2), second = number(17, 2);
    if (!year || !month || !day || !hour || !minute || !second || !validTime(*month, *day, *hour, *minute, *second))
        return std::nullopt;
    int64_t fractionNs = 0;
    if (text.size() > 20) {
        if (text[19] != '.' || text.size() > 31) return std::nullopt;
        int64_t scale = 100000000;
        for (size_t i = 20; i + 1 < text.size(); ++i, scale /= 10) {
            if (text[i] < '0' || text[i] > '9') return std::nullopt;
            fractionNs += (text[i] - '0') * scale;
        }
    }
    return utcNs(*year, *month, *day, *hour, *minute, *second) + fractionNs;
}

std::optional<int64_t> parseHttpDateNs(std::string_view text) {
    // "Fri, 27 Nov 2026 23:30:00 GMT" (RFC 9110's IMF-fixdate)
    static constexpr std::array<std::string_view, 12> kMonths = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                                                 "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
    if (text.size() != 29 || text.substr(3, 2) != ", " || text.substr(25) != " GMT" || text[7] != ' ' || text[11] != ' ' ||
        text[16] != ' ' || text[19] != ':' || text[22] != ':')
        return std::nullopt;
    int month = 0;
    for (size_t i = 0; i < kMonths.size(); ++i)
        if (text.substr(8, 3) == kMonths[i]) month = static_cast<int>(i) + 1;
    const auto day = digitsAt(text, 5, 2), year = digitsAt(text, 12, 4);
    const auto hour = digitsAt(text, 17, 2), minute = digitsAt(text, 20, 2), second = digitsAt(text, 23, 2);
    if (!day || !year || !hour || !minute || !second || !validTime(month, *day, *hour, *minute, *second)) return std::nullopt;
    return utcNs(*year, month, *day, *hour, *minute, *second);
}

std::optional<int64_t> parseStoreTimeNs(std::string_view text) {
    if (auto iso = parseIso8601Ns(text)) return iso;
    return parseHttpDateNs(text);
}

}  // namespace ckpt::objstore
