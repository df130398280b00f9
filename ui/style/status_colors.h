#pragma once
// The one home of the colours that carry a status or a kind (diff letters,
// health and kind badges, match overlay, retention verdicts, schedule
// results). Each tone is a hue; the shade shown is derived from the palette
// in use so that text keeps a WCAG contrast ratio of at least 4.5:1 on the
// views' background, light or dark. Colour only helps the eye: every use
// pairs it with a letter or a word.

#include <QColor>
#include <QPalette>
#include <QString>

namespace ckpt::ui {

enum class StatusTone {
    Neutral,  // unknown, unchanged, left alone, disabled
    Info,     // in progress, objects
    Good,     // healthy, matched, added, kept, succeeded
    Warning,  // modified, unused attributes, slots
    Bad,      // damaged, deleted, mismatch, failed
    Special,  // type changed, optimizers
    Moved,    // renamed, replicated
};

// WCAG 2.x: normal text needs 4.5:1 against its background.
constexpr double kMinTextContrast = 4.5;

// WCAG relative luminance, 0 (black) to 1 (white).
double relativeLuminance(const QColor& colour);
// WCAG contrast ratio, 1 to 21.
double contrastRatio(const QColor& a, const QColor& b);
// 'colour' with its hue kept, made darker or lighter (away from
// 'background') until it reaches 'minimum' contrast against it.
QColor withContrast(const QColor& colour, const QColor& background, double minimum = kMinTextContrast);

// The palette the item models use: the application's.
QPalette viewPalette();
// Text in 'tone' on the views' background (Base and AlternateBase rows)
// and on the window's (labels).
QColor statusTextColor(StatusTone tone, const QPalette& palette = viewPalette());
// A row or cell tint for 'tone' over the views' background, and the text
// colour readable on it.
QColor statusBackground(StatusTone tone, const QPalette& palette = viewPalette());
QColor statusBackgroundText(StatusTone tone, const QPalette& palette = viewPalette());
// Style sheets: a label's text in 'tone'; the red border of an input that
// cannot be used (its message says why).
QString statusTextStyle(StatusTone tone, const QPalette& palette = viewPalette());
QString invalidInputStyle(const QPalette& palette = viewPalette());
// The fill of a badge under a white letter, readable whatever the palette
// (badge icons are drawn once and cached).
QColor badgeFill(StatusTone tone);

}  // namespace ckpt::ui
