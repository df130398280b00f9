#include "style/kind_icons.h"

#include <QHash>
#include <QPainter>
#include <QPixmap>

namespace ckpt::ui {
namespace {

QPixmap badge(int size, qreal dpr, const QColor& fill, const QString& letter, bool round) {
    QPixmap pm(QSize(size, size) * dpr);
    pm.setDevicePixelRatio(dpr);
    pm.fill(Qt::transparent);
    QPainter p(&pm);
    p.setRenderHint(QPainter::Antialiasing);
    p.setPen(Qt::NoPen);
    p.setBrush(fill);
    const QRectF r(0.5, 0.5, size - 1.0, size - 1.0);
    if (round) p.drawEllipse(r);
    else p.drawRoundedRect(r, size * 0.22, size * 0.22);
    QFont f;
    f.setBold(true);
    f.setPixelSize(qRound(size * (letter.size() > 1 ? 0.5 : 0.68)));
    p.setFont(f);
    p.setPen(Qt::white);
    p.drawText(r, Qt::AlignCenter, letter);
    return pm;
}

QIcon makeIcon(const QColor& fill, const QString& letter, bool round) {
    QIcon icon;
    for (int size : {16, 22, 32})
        for (qreal dpr : {1.0, 2.0}) icon.addPixmap(badge(size, dpr, fill, letter, round));
    return icon;
}

}  // namespace

QIcon letterBadge(StatusTone tone, const QString& letter) {
    static QHash<QString, QIcon> cache;
    const QString key = QString::number(static_cast<int>(tone)) + letter;
    if (auto it = cache.constFind(key); it != cache.constEnd()) return *it;
    QIcon icon = makeIcon(badgeFill(tone), letter, true);
    cache.insert(key, icon);
    return icon;
}

QIcon kindIcon(DisplayKind kind) {
    static QHash<int, QIcon> cache;
    const int k = static_cast<int>(kind);
    if (auto it = cache.constFind(k); it != cache.constEnd()) return *it;
    QIcon icon;
    switch (kind) {
    case DisplayKind::Root: icon = makeIcon(badgeFill(StatusTone::Neutral), QStringLiteral("R"), false); break;
    case DisplayKind::Object: icon = makeIcon(badgeFill(StatusTone::Info), QStringLiteral("O"), false); break;
    case DisplayKind::Variable: icon = makeIcon(badgeFill(StatusTone::Good), QStringLiteral("V"), true); break;
    case DisplayKind::ReplicatedVariable: icon = makeIcon(badgeFill(StatusTone::Moved), QStringLiteral("RV"), true); break;
    case DisplayKind::SlotVariable: icon = makeIcon(badgeFill(StatusTone::Warning), QStringLiteral("S"), true); break;
    case DisplayKind::Optimizer: icon = makeIcon(badgeFill(StatusTone::Special), QStringLiteral("Op"), false); break;
    case DisplayKind::Attribute: icon = makeIcon(badgeFill(StatusTone::Neutral), QStringLiteral("K"), false); break;
    case DisplayKind::Alias: icon = makeIcon(badgeFill(StatusTone::Neutral), QStringLiteral("\u2192"), false); break;
    case DisplayKind::KeyGroup: icon = makeIcon(badgeFill(StatusTone::Info), QStringLiteral("/"), false); break;
    case DisplayKind::Key: icon = makeIcon(badgeFill(StatusTone::Good), QStringLiteral("T"), true); break;
    }
    cache.insert(k, icon);
    return icon;
}

QIcon healthIcon(Health health) {
    switch (health) {
    case Health::Unknown: return makeIcon(badgeFill(StatusTone::Neutral), QStringLiteral("?"), true);
    case Health::Verifying: return makeIcon(badgeFill(StatusTone::Info), QStringLiteral("\u2026"), true);
    case Health::Healthy: return makeIcon(badgeFill(StatusTone::Good), QStringLiteral("\u2713"), true);
    case Health::Damaged: return makeIcon(badgeFill(StatusTone::Bad), QStringLiteral("!"), true);
    }
    return {};
}

QIcon catalogHealthIcon(CatalogHealth health) {
    switch (health) {
    case CatalogHealth::Missing: return makeIcon(badgeFill(StatusTone::Neutral), QStringLiteral("\u2013"), true);
    case CatalogHealth::Unreadable: return makeIcon(badgeFill(StatusTone::Bad), QStringLiteral("\u00d7"), true);
    case CatalogHealth::Damaged: return healthIcon(Health::Damaged);
    case CatalogHealth::Healthy: return healthIcon(Health::Healthy);
    case CatalogHealth::Unverified: break;
    }
    return healthIcon(Health::Unknown);
}

StatusTone diffStatusTone(DiffStatus status) {
    switch (status) {
    case DiffStatus::Added: return StatusTone::Good;
    case DiffStatus::Deleted: return StatusTone::Bad;
    case DiffStatus::Modified: return StatusTone::Warning;
    case DiffStatus::TypeChanged: return StatusTone::Special;
    case DiffStatus::Renamed: return StatusTone::Moved;
    case DiffStatus::Unchanged: break;
    }
    return StatusTone::Neutral;
}

QIcon diffStatusIcon(DiffStatus status) {
    static QHash<int, QIcon> cache;
    const int k = static_cast<int>(status);
    if (auto it = cache.constFind(k); it != cache.constEnd()) return *it;
    const char letter = diffStatusLetter(status);
    const QString text = letter == ' ' ? QStringLiteral("=") : QString(QLatin1Char(letter));
    QIcon icon = makeIcon(badgeFill(diffStatusTone(status)), text, false);
    cache.insert(k, icon);
    return icon;
}

}  // namespace ckpt::ui
