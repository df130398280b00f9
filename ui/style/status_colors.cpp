#include "style/status_colors.h"

#include <QGuiApplication>

#include <algorithm>
#include <cmath>

namespace ckpt::ui {
namespace {

// The hue of each tone; the shade shown is derived from it per palette.
QColor hue(StatusTone tone) {
    switch (tone) {
    case StatusTone::Neutral: return {0x6b, 0x77, 0x85};
    case StatusTone::Info: return {0x2f, 0x6f, 0xd0};
    case StatusTone::Good: return {0x2e, 0x9d, 0x5b};
    case StatusTone::Warning: return {0xd9, 0x82, 0x1e};
    case StatusTone::Bad: return {0xc0, 0x39, 0x2b};
    case StatusTone::Special: return {0x8e, 0x44, 0xad};
    case StatusTone::Moved: return {0x13, 0x8d, 0x90};
    }
    return {0x6b, 0x77, 0x85};
}

double linear(double channel) { return channel <= 0.04045 ? channel / 12.92 : std::pow((channel + 0.055) / 1.055, 2.4); }

bool isDark(const QColor& background) { return relativeLuminance(background) < 0.5; }

QColor mixed(const QColor& under, const QColor& over, double amount) {
    const auto mix = [amount](int a, int b) { return static_cast<int>(std::lround(a + (b - a) * amount)); };
    return {mix(under.red(), over.red()), mix(under.green(), over.green()), mix(under.blue(), over.blue())};
}

}  // namespace

double relativeLuminance(const QColor& colour) {
    const QColor c = colour.toRgb();
    return 0.2126 * linear(c.redF()) + 0.7152 * linear(c.greenF()) + 0.0722 * linear(c.blueF());
}

double contrastRatio(const QColor& a, const QColor& b) {
    const double la = relativeLuminance(a), lb = relativeLuminance(b);
    return (std::max(la, lb) + 0.05) / (std::min(la, lb) + 0.05);
}

QColor withContrast(const QColor& colour, const QColor& background, double minimum) {
    if (contrastRatio(colour, background) >= minimum) return colour.toRgb();
    // Away from the background: darker on light backgrounds, lighter on dark.
    const bool darken = contrastRatio(Qt::black, background) >= contrastRatio(Qt::white, background);
    const QColor hsl = colour.toHsl();
    const float h = std::max(hsl.hslHueF(), 0.0f), s = hsl.hslSaturationF();
    float l = hsl.lightnessF();
    QColor out = colour.toRgb();
    // Small steps keep the shade as close to the hue as the rule allows;
    // 8-bit rounding can only be checked on the rounded colour itself.
    while (contrastRatio(out, background) < minimum) {
        l = darken ? l - 0.01f : l + 0.01f;
        if (l <= 0.0f || l >= 1.0f) return darken ? QColor(Qt::black) : QColor(Qt::white);
        out = QColor::fromHslF(h, s, l).toRgb();
    }
    return out;
}

QPalette viewPalette() { return QGuiApplication::palette(); }

QColor statusTextColor(StatusTone tone, const QPalette& palette) {
    QColor c = hue(tone);
    // Each step only moves further from backgrounds on the same side, so
    // the earlier ones still hold.
    for (QPalette::ColorRole role : {QPalette::Base, QPalette::AlternateBase, QPalette::Window})
        c = withContrast(c, palette.color(role));
    return c;
}

QString statusTextStyle(StatusTone tone, const QPalette& palette) {
    return QStringLiteral("color: %1;").arg(statusTextColor(tone, palette).name());
}

QString invalidInputStyle(const QPalette& palette) {
    return QStringLiteral("QLineEdit { border: 1px solid %1; }").arg(statusTextColor(StatusTone::Bad, palette).name());
}

QColor statusBackground(StatusTone tone, const QPalette& palette) {
    const QColor base = palette.color(QPalette::Base);
    // A dark base needs more of the hue for the tint to show.
    return mixed(base, hue(tone), isDark(base) ? 0.35 : 0.22);
}

QColor statusBackgroundText(StatusTone tone, const QPalette& palette) {
    return withContrast(palette.color(QPalette::Text), statusBackground(tone, palette));
}

QColor badgeFill(StatusTone tone) { return withContrast(hue(tone), Qt::white); }

}  // namespace ckpt::ui
