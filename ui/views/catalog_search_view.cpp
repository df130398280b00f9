#include "views/catalog_search_view.h"

#include <QHeaderView>
#include <QLabel>
#include <QStandardItem>
#include <QLineEdit>
#include <QLocale>
#include <QTimer>
#include <QTreeView>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include "jobs/catalog_jobs.h"
#include "jobs/job_pool.h"
#include "jobs/when_done.h"
#include "models/catalog_search_model.h"
#include "views/catalog_controller.h"
#include "style/status_colors.h"

namespace ckpt::ui {

CatalogSearchView::CatalogSearchView(CatalogController* catalog, QWidget* parent)
    : QWidget(parent), m_catalog(catalog), m_edit(new QLineEdit(this)), m_summary(new QLabel(this)), m_view(new QTreeView(this)),
      m_model(new CatalogSearchModel(this)), m_debounce(new QTimer(this)), m_firstPagePoll(new QTimer(this)) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_edit->setPlaceholderText(tr("Search keys and object paths in every catalogued checkpoint (Ctrl+Shift+F)"));
    m_edit->setClearButtonEnabled(true);
    m_edit->setAccessibleName(tr("Search the catalog"));
    m_edit->setToolTip(
        tr("Words must all match, as substrings; FTS5 syntax (OR, NOT, \"phrases\", key:\u2026, "
           "object_path:\u2026) is passed through"));
    layout->addWidget(m_edit);
    m_view->setModel(m_model);
    m_view->setUniformRowHeights(true);
    m_view->setAlternatingRowColors(true);
    // Keys differ at their end, slots' object paths at their start ("m for …").
    m_view->setTextElideMode(Qt::ElideMiddle);
    m_view->setAccessibleName(tr("Search results"));
    m_view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_view->header()->setStretchLastSection(false);
    m_view->header()->setSectionResizeMode(CatalogSearchModel::NameColumn, QHeaderView::Stretch);
    m_view->header()->resizeSection(CatalogSearchModel::ObjectPathColumn, 260);
    m_view->header()->resizeSection(CatalogSearchModel::DTypeColumn, 70);
    m_view->header()->resizeSection(CatalogSearchModel::ShapeColumn, 90);
    layout->addWidget(m_view, 1);
    m_summary->setAccessibleName(tr("Search summary"));
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_summary->setWordWrap(true);
    layout->addWidget(m_summary);

    // Short enough to feel live, long enough not to query every keystroke.
    m_debounce->setSingleShot(true);
    m_debounce->setInterval(200);
    connect(m_debounce, &QTimer::timeout, this, &CatalogSearchView::startSearch);
    m_firstPagePoll->setInterval(25);
    connect(m_firstPagePoll, &QTimer::timeout, this, &CatalogSearchView::showFirstPage);
    connect(m_edit, &QLineEdit::textChanged, m_debounce, qOverload<>(&QTimer::start));
    connect(m_edit, &QLineEdit::returnPressed, this, &CatalogSearchView::startSearch);
    connect(m_view, &QTreeView::activated, this, &CatalogSearchView::onActivated);
    connect(m_catalog, &CatalogController::overviewChanged, this, &CatalogSearchView::updateAvailability);
    connect(m_catalog, &CatalogController::unavailable, this, &CatalogSearchView::updateAvailability);
    // A scan may have added or removed what the shown results name.
    connect(m_catalog, &CatalogController::scanFinished, this, [this] {
        if (!m_edit->text().trimmed().isEmpty()) startSearch();
    });
    updateAvailability();
}

void CatalogSearchView::updateAvailability() {
    m_edit->setEnabled(m_catalog->isEnabled());
    if (m_catalog->path().isEmpty()) m_summary->setText(tr("No catalog in use."));
    else if (!m_catalog->error().isEmpty()) m_summary->setText(tr("The catalog cannot be used: %1").arg(m_catalog->error()));
    else if (m_edit->text().trimmed().isEmpty())
        m_summary->setText(tr("Directories in the catalog: %1. Type to search their checkpoints' keys.")
                               .arg(m_catalog->overview().directories.size()));
}

QString CatalogSearchView::summary() const { return m_summary->text(); }

void CatalogSearchView::focusSearch() {
    m_edit->setFocus(Qt::ShortcutFocusReason);
    m_edit->selectAll();
}

void CatalogSearchView::search(const QString& query) {
    m_edit->setText(query);
    startSearch();
}

void CatalogSearchView::startSearch() {
    m_debounce->stop();
    if (!m_catalog->isEnabled()) return;
    // One query at a time: the newest text goes when the running one is
    // back, which it is soon: it is told to stop.
    if (m_inFlight) {
        m_pending = true;
        if (m_progress) m_progress->cancel.cancel();
        return;
    }
    m_pending = false;
    const QString query = m_edit->text().trimmed();
    if (query.isEmpty()) {
        m_model->setResult(nullptr);
        updateAvailability();
        emit searchFinished();
        return;
    }
    m_inFlight = true;
    m_summary->setText(tr("Searching\u2026"));
    m_progress = std::make_shared<CatalogSearchProgress>();
    m_firstPagePoll->start();
    // Totals past the shown checkpoints are lower bounds: exact ones would
    // cost a pass over every row when much matches.
    whenDone(this,
             QtConcurrent::run(jobPool(), searchCatalog, m_catalog->path(), query, CatalogSearchOptions{.exactTotals = false},
                               m_progress),
             [this](const CatalogSearchOutcome& outcome) {
                 m_inFlight = false;
                 m_firstPagePoll->stop();
                 m_progress.reset();
                 if (m_pending) return startSearch();  // the text moved on; this answer is stale
                 showOutcome(outcome);
                 emit searchFinished();
             });
}

// Many matching rows: the first hits are shown while the rest are counted.
void CatalogSearchView::showFirstPage() {
    if (!m_progress || m_pending) return;
    std::shared_ptr<const CatalogSearchResult> page;
    {
        std::lock_guard lock(m_progress->mutex);
        page = m_progress->firstPage;
    }
    if (!page) return;
    m_firstPagePoll->stop();
    showOutcome({QString::fromStdString(page->query), page, {}, true});
}

void CatalogSearchView::showOutcome(const CatalogSearchOutcome& outcome) {
    if (!outcome.result) {
        m_model->setResult(nullptr);
        m_edit->setStyleSheet(invalidInputStyle());
        m_summary->setText(outcome.error);
        return;
    }
    m_edit->setStyleSheet({});
    m_model->setResult(outcome.result);
    for (int r = 0; r < m_model->rowCount(); ++r) {
        const QModelIndex top = m_model->index(r, 0);
        m_view->setFirstColumnSpanned(r, {}, true);
        const QString prefix = top.data(CatalogSearchModel::PrefixRole).toString();
        if (const std::optional<Health> own = m_healthLookup ? m_healthLookup(prefix) : std::nullopt;
            own == Health::Healthy || own == Health::Damaged) {
            QStandardItem* item = m_model->itemFromIndex(top);
            item->setIcon(healthIcon(*own));
            item->setToolTip(
                item->toolTip() +
                tr("\nVerified in this session: %1").arg(*own == Health::Healthy ? tr("every checksum matches") : tr("damaged")));
        }
        for (int c = 0; c < m_model->rowCount(top); ++c)
            if (m_model->index(c, 0, top).data(CatalogSearchModel::RowKindRole).toInt() == CatalogSearchModel::MoreMatchesRow)
                m_view->setFirstColumnSpanned(c, top, true);
    }
    // Few checkpoints: show their keys; many: the list of checkpoints first.
    if (m_model->rowCount() <= 10) m_view->expandAll();
    // Object paths as wide as they need, but the key keeps most of the room.
    m_view->resizeColumnToContents(CatalogSearchModel::ObjectPathColumn);
    const int widest = m_view->viewport()->width() * 2 / 5;
    if (m_view->columnWidth(CatalogSearchModel::ObjectPathColumn) > widest)
        m_view->setColumnWidth(CatalogSearchModel::ObjectPathColumn, widest);
    const CatalogSearchResult& r = *outcome.result;
    const QLocale locale;
    const QString counted = r.totalsExact ? tr("%1 matching key(s) in %2 checkpoint(s)")
                                          : tr("At least %1 matching key(s) in at least %2 checkpoint(s)");
    QString text = r.totalMatches == 0 ? tr("No key or object path matches \u201c%1\u201d.").arg(outcome.query)
                                       : counted.arg(locale.toString(static_cast<qlonglong>(r.totalMatches)),
                                                     locale.toString(static_cast<qlonglong>(r.totalCheckpoints)));
    if (r.truncated) text += tr("; the first %n checkpoint(s) are shown", nullptr, static_cast<int>(r.hits.size()));
    if (outcome.firstPage)
        text = tr("The first %n matching checkpoint(s); counting the others\u2026", nullptr, static_cast<int>(r.hits.size()));
    m_summary->setText(text);
}

void CatalogSearchView::onActivated(const QModelIndex& index) {
    const QModelIndex first = index.siblingAtColumn(0);
    const QString prefix = first.data(CatalogSearchModel::PrefixRole).toString();
    if (prefix.isEmpty()) return;
    emit resultActivated(prefix, first.data(CatalogSearchModel::KeyRole).toString());
}

}  // namespace ckpt::ui
