#include "models/compare_snapshot.h"

#include "ckpt/dtype.h"

namespace ckpt::ui {
namespace {

QString sideTypeText(const DiffSide& side) {
    if (side.dtype == DataType::Invalid) return {};
    return QStringLiteral("%1 %2").arg(QString::fromLatin1(dataTypeShortName(side.dtype)),
                                       QString::fromStdString(side.shape.toString()));
}

}  // namespace

QStringList nodeLocation(const CompareSnapshot& snapshot, int32_t node) {
    QStringList parts;
    for (int32_t n = node; n > 0; n = snapshot.node(n).parent) parts.prepend(QString::fromStdString(snapshot.node(n).name));
    return parts;
}

int32_t findNode(const CompareSnapshot& snapshot, const QStringList& location) {
    if (snapshot.tree.nodes.empty() || location.isEmpty()) return -1;
    int32_t at = 0;
    for (const QString& part : location) {
        const std::string name = part.toStdString();
        int32_t next = -1;
        for (int32_t c : snapshot.node(at).children)
            if (snapshot.node(c).name == name) {
                next = c;
                break;
            }
        if (next < 0) return -1;
        at = next;
    }
    return at;
}

QString entryPathText(const DiffEntry& entry) {
    if (entry.status == DiffStatus::Renamed && entry.a && entry.b)
        return QStringLiteral("%1 \u2192 %2").arg(QString::fromStdString(entry.a->path), QString::fromStdString(entry.b->path));
    return QString::fromStdString(entry.displayPath());
}

QString entryTypeText(const DiffEntry& entry) {
    QString a = entry.a ? sideTypeText(*entry.a) : QString();
    QString b = entry.b ? sideTypeText(*entry.b) : QString();
    if (a.isEmpty()) return b;
    if (b.isEmpty() || a == b) return a;
    return QStringLiteral("%1 \u2192 %2").arg(a, b);
}

}  // namespace ckpt::ui
