#include "style/text_format.h"

#include <array>

namespace ckpt::ui {

QString formatBytes(int64_t bytes) {
    // The CLI's rule: divide by 1024 while the value is at least 1024, up to
    // TiB; whole bytes without a decimal. Not QLocale::formattedDataSize,
    // whose units, rounding and "bytes" differ.
    static constexpr std::array<const char*, 5> kUnits = {"B", "KiB", "MiB", "GiB", "TiB"};
    double value = static_cast<double>(bytes < 0 ? 0 : bytes);
    size_t unit = 0;
    while (value >= 1024 && unit + 1 < kUnits.size()) {
        value /= 1024;
        ++unit;
    }
    const QString number = QString::number(value, 'f', unit == 0 ? 0 : 1);
    return number + QLatin1Char(' ') + QLatin1String(kUnits[unit]);
}

QString formatDateTime(const QDateTime& moment) {
    if (!moment.isValid()) return {};
    return moment.toLocalTime().toString(QStringLiteral("yyyy-MM-dd HH:mm"));
}

}  // namespace ckpt::ui
