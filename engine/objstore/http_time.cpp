#include "objstore/http_time.h"

#include <array>
#include <charconv>

namespace ckpt::objstore {
namespace {

// Days from 1970-01-01 to y-m-d in the proleptic Gregorian calendar
// (Howard Hinnant's days_from_civil).
int64_t daysFromCivil(int64_t y, unsigned m, unsigned d) {
    y -= m <= 2;
    const int64_t era = (y >= 0 ? y : y - 399) / 400;
    const auto yoe = static_cast<unsigned>(y - era * 400);
    const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

// Exactly 'n' digits at s[at...].
std::optional<int> digits(std::string_view s, size_t at, size_t n) {
    if (at + n > s.size()) return std::nullopt;
    int v = 0;
    const auto [end, ec] = std::from_chars(s.data() + at, s.data() + at + n, v);
    if (ec != std::errc() || end != s.data() + at + n) return std::nullopt;
    return v;
}

std::optional<int64_t> toNs(int year, int month, int day, int hour, int minute, int second) {
    if (year < 1970 || year > 9999 || month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 ||
        second > 60)
        return std::nullopt;
    const int64_t days = daysFromCivil(year, static_cast<unsigned>(month), static_cast<unsigned>(day));
    return (((days * 24 + hour) * 60 + minute) * 60 + second) * 1'000'000'000LL;
}

// "2026-11-27T23:21:07Z" with an optional ".fraction" before the Z.
std::optional<int64_t> iso8601(std::string_view s) {
    const auto y = digits(s, 0, 4), mo = digits(s, 5, 2), d = digits(s, 8, 2), h = digits(s, 11, 2), mi = digits(s, 14, 2),
               se = digits(s, 17, 2);
    if (!y || !mo || !d || !h || !mi || !se || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' || s[16] != ':')
        return std::nullopt;
    // A fraction is dropped: a HEAD states whole seconds, and the two must agree.
    size_t at = 19;
    if (at < s.size() && s[at] == '.')
        for (++at; at < s.size() && s[at] >= '0' && s[at] <= '9';) ++at;
    if (at + 1 != s.size() || s[at] != 'Z') return std::nullopt;
    return toNs(*y, *mo, *d, *h, *mi, *se);
}

// "Fri, 27 Nov 2026 23:21:07 GMT".
std::optional<int64_t> imfFixdate(std::string_view s) {
    static constexpr std::array<std::string_view, 12> kMonths = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                                                 "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
    if (s.size() != 29 || s.substr(3, 2) != ", " || s.substr(25) != " GMT") return std::nullopt;
    int month = 0;
    for (size_t i = 0; i < kMonths.size(); ++i)
        if (s.substr(8, 3) == kMonths[i]) month = static_cast<int>(i) + 1;
    const auto d = digits(s, 5, 2), y = digits(s, 12, 4), h = digits(s, 17, 2), mi = digits(s, 20, 2), se = digits(s, 23, 2);
    if (!month || !d || !y || !h || !mi || !se || s[7] != ' ' || s[11] != ' ' || s[16] != ' ' || s[19] != ':' || s[22] != ':')
        return std::nullopt;
    return toNs(*y, month, *d, *h, *mi, *se);
}

}  // namespace

std::optional<int64_t> parseStoreTimeNs(std::string_view text) {
    if (auto t = iso8601(text)) return t;
    return imfFixdate(text);
}

}  // namespace ckpt::objstore
