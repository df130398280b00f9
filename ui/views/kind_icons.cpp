#include "views/kind_icons.h"

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

QIcon kindIcon(EntryKind kind) {
    static QHash<int, QIcon> cache;
    const int k = static_cast<int>(kind);
    if (auto it = cache.constFind(k); it != cache.constEnd()) return *it;
    QIcon icon;
    switch (kind) {
    case EntryKind::Root: icon = makeIcon(QColor(0x60, 0x6c, 0x78), QStringLiteral("R"), false); break;
    case EntryKind::Object: icon = makeIcon(QColor(0x3b, 0x7d, 0xd8), QStringLiteral("O"), false); break;
    case EntryKind::Variable: icon = makeIcon(QColor(0x2e, 0x9d, 0x5b), QStringLiteral("V"), true); break;
    case EntryKind::ReplicatedVariable: icon = makeIcon(QColor(0x13, 0x8d, 0x90), QStringLiteral("RV"), true); break;
    case EntryKind::SlotVariable: icon = makeIcon(QColor(0xd9, 0x82, 0x1e), QStringLiteral("S"), true); break;
    case EntryKind::Optimizer: icon = makeIcon(QColor(0x8e, 0x44, 0xad), QStringLiteral("Op"), false); break;
    case EntryKind::Attribute: icon = makeIcon(QColor(0x7f, 0x8c, 0x8d), QStringLiteral("K"), false); break;
    case EntryKind::Alias: icon = makeIcon(QColor(0x7f, 0x8c, 0x8d), QStringLiteral("\u2192"), false); break;
    case EntryKind::KeyGroup: icon = makeIcon(QColor(0x3b, 0x7d, 0xd8), QStringLiteral("/"), false); break;
    case EntryKind::Key: icon = makeIcon(QColor(0x2e, 0x9d, 0x5b), QStringLiteral("T"), true); break;
    }
    cache.insert(k, icon);
    return icon;
}

QIcon healthIcon(Health health) {
    switch (health) {
    case Health::Unknown: return makeIcon(QColor(0x9a, 0xa0, 0xa6), QStringLiteral("?"), true);
    case Health::Verifying: return makeIcon(QColor(0x3b, 0x7d, 0xd8), QStringLiteral("\u2026"), true);
    case Health::Healthy: return makeIcon(QColor(0x2e, 0x9d, 0x5b), QStringLiteral("\u2713"), true);
    case Health::Damaged: return makeIcon(QColor(0xc0, 0x39, 0x2b), QStringLiteral("!"), true);
    }
    return {};
}

QIcon catalogHealthIcon(CatalogHealth health) {
    switch (health) {
    case CatalogHealth::Missing: return makeIcon(QColor(0x60, 0x6c, 0x78), QStringLiteral("\u2013"), true);
    case CatalogHealth::Unreadable: return makeIcon(QColor(0xc0, 0x39, 0x2b), QStringLiteral("\u00d7"), true);
    case CatalogHealth::Damaged: return healthIcon(Health::Damaged);
    case CatalogHealth::Healthy: return healthIcon(Health::Healthy);
    case CatalogHealth::Unverified: break;
    }
    return healthIcon(Health::Unknown);
}

QColor diffStatusColor(DiffStatus status) {
    switch (status) {
    case DiffStatus::Added: return QColor(0x2e, 0x9d, 0x5b);
    case DiffStatus::Deleted: return QColor(0xc0, 0x39, 0x2b);
    case DiffStatus::Modified: return QColor(0xd9, 0x82, 0x1e);
    case DiffStatus::TypeChanged: return QColor(0x8e, 0x44, 0xad);
    case DiffStatus::Renamed: return QColor(0x13, 0x8d, 0x90);
    case DiffStatus::Unchanged: break;
    }
    return QColor(0x9a, 0xa0, 0xa6);
}

QIcon diffStatusIcon(DiffStatus status) {
    static QHash<int, QIcon> cache;
    const int k = static_cast<int>(status);
    if (auto it = cache.constFind(k); it != cache.constEnd()) return *it;
    const char letter = diffStatusLetter(status);
    const QString text = letter == ' ' ? QStringLiteral("=") : QString(QLatin1Char(letter));
    QIcon icon = makeIcon(diffStatusColor(status), text, false);
    cache.insert(k, icon);
    return icon;
}

}  // namespace ckpt::ui
