#include "models/catalog_search_model.h"

#include <QDir>
#include <QFont>
#include <QLocale>

#include "style/kind_icons.h"

namespace ckpt::ui {
namespace {

QString qs(const std::string& s) { return QString::fromStdString(s); }

QStandardItem* cell(const QString& text) {
    auto* c = new QStandardItem(text);
    c->setEditable(false);
    return c;
}

// A row whose one text spans the view (the view sets the span).
QList<QStandardItem*> noteRow(const QString& text, CatalogSearchModel::RowKind kind, const QString& prefix) {
    QStandardItem* first = cell(text);
    first->setData(kind, CatalogSearchModel::RowKindRole);
    first->setData(prefix, CatalogSearchModel::PrefixRole);
    QFont italic = first->font();
    italic.setItalic(true);
    first->setFont(italic);
    return {first, cell({}), cell({}), cell({})};
}

}  // namespace

CatalogSearchModel::CatalogSearchModel(QObject* parent) : QStandardItemModel(parent) {
    setHorizontalHeaderLabels({tr("Checkpoint / key"), tr("Object path"), tr("Dtype"), tr("Shape")});
}

void CatalogSearchModel::setResult(std::shared_ptr<const CatalogSearchResult> result) {
    m_result = std::move(result);
    removeRows(0, rowCount());
    if (!m_result) return;
    for (const CatalogSearchHit& hit : m_result->hits) {
        const CatalogCheckpoint& c = hit.checkpoint;
        const QString prefix = qs(c.prefix);
        QString text = tr("%1 \u2014 %2").arg(qs(c.name), QDir::toNativeSeparators(qs(c.directory)));
        if (c.step) text += tr(" \u00b7 step %1").arg(*c.step);
        text += tr(" \u00b7 %n match(es)", nullptr, static_cast<int>(hit.totalMatches));
        QStandardItem* top = cell(text);
        QFont bold = top->font();
        bold.setBold(true);
        top->setFont(bold);
        top->setData(CheckpointRow, RowKindRole);
        top->setData(prefix, PrefixRole);
        // The catalog's health in letters and colour: a missing or damaged
        // checkpoint is worth knowing before opening it.
        top->setIcon(catalogHealthIcon(c.health()));
        const std::string_view health = catalogHealthName(c.health());
        QString tip = tr("%1\nCatalog: %2").arg(prefix, QString::fromUtf8(health.data(), static_cast<qsizetype>(health.size())));
        if (!c.error.empty()) tip += QLatin1Char('\n') + qs(c.error);
        else if (!c.problem().empty()) tip += QLatin1Char('\n') + qs(c.problem());
        top->setToolTip(tip);
        for (const CatalogSearchMatch& m : hit.matches) {
            QStandardItem* key = cell(qs(m.key));
            key->setData(MatchRow, RowKindRole);
            key->setData(prefix, PrefixRole);
            key->setData(qs(m.key), KeyRole);
            key->setToolTip(qs(m.key));
            QStandardItem* path = cell(qs(m.objectPath));
            path->setToolTip(qs(m.objectPath));
            top->appendRow({key, path, cell(qs(m.dtype)), cell(qs(m.shape))});
        }
        if (const int64_t more = hit.totalMatches - static_cast<int64_t>(hit.matches.size()); more > 0)
            top->appendRow(noteRow(tr("%n more match(es) in this checkpoint\u2026", nullptr, static_cast<int>(more)),
                                   MoreMatchesRow, prefix));
        appendRow({top, cell({}), cell({}), cell({})});
    }
    if (m_result->truncated) {
        const auto shown = static_cast<qlonglong>(m_result->hits.size());
        appendRow(
            noteRow((m_result->totalsExact
                         ? tr("More\u2026 %1 of %2 matching checkpoints shown; narrow the search to see the others")
                         : tr("More\u2026 %1 of at least %2 matching checkpoints shown; narrow the search to see the others"))
                        .arg(QLocale().toString(shown), QLocale().toString(static_cast<qlonglong>(m_result->totalCheckpoints))),
                    MoreCheckpointsRow, {}));
    }
}

QModelIndex CatalogSearchModel::indexForMatch(const QString& prefix, const QString& key) const {
    for (int r = 0; r < rowCount(); ++r) {
        QStandardItem* top = item(r);
        if (top->data(PrefixRole).toString() != prefix) continue;
        for (int c = 0; c < top->rowCount(); ++c)
            if (top->child(c)->data(KeyRole).toString() == key) return top->child(c)->index();
    }
    return {};
}

}  // namespace ckpt::ui
