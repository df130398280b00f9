#pragma once
// The global search (Ctrl+Shift+F): keys and object paths across every
// catalogued checkpoint (Catalog::search). Searches as the user types,
// after a short pause, on jobPool(); one search runs at a time and the
// newest text wins, so typing never waits on the database. Activating a
// key asks the window to open its checkpoint at that key.

#include <QWidget>

#include <functional>
#include <memory>
#include <optional>

#include "style/kind_icons.h"

class QLabel;
class QLineEdit;
class QTimer;
class QTreeView;

namespace ckpt::ui {

class CatalogController;
class CatalogSearchModel;
struct CatalogSearchOutcome;
struct CatalogSearchProgress;

class CatalogSearchView : public QWidget {
    Q_OBJECT
public:
    CatalogSearchView(CatalogController* catalog, QWidget* parent = nullptr);

    void focusSearch();
    // Sets the text and searches at once (no pause).
    void search(const QString& query);
    bool isSearching() const { return m_inFlight || m_pending; }

    QLineEdit* searchEdit() const { return m_edit; }
    QTreeView* view() const { return m_view; }
    CatalogSearchModel* model() const { return m_model; }
    QString summary() const;
    // This session's own verification of a checkpoint (the sidebar's), when
    // it has one: fresher than the catalog's health in the results.
    using HealthLookup = std::function<std::optional<Health>(const QString& prefix)>;
    void setHealthLookup(HealthLookup lookup) { m_healthLookup = std::move(lookup); }

signals:
    // A match row: open 'prefix' and select the tree node holding 'key'
    // (empty for a checkpoint row: just open it).
    void resultActivated(const QString& prefix, const QString& key);
    void searchFinished();

private:
    void startSearch();
    void showFirstPage();
    void showOutcome(const CatalogSearchOutcome& outcome);
    void onActivated(const QModelIndex& index);
    void updateAvailability();

    CatalogController* m_catalog;
    QLineEdit* m_edit;
    QLabel* m_summary;
    QTreeView* m_view;
    CatalogSearchModel* m_model;
    QTimer* m_debounce;
    QTimer* m_firstPagePoll;  // while a search runs: has its first page come?
    HealthLookup m_healthLookup;
    std::shared_ptr<CatalogSearchProgress> m_progress;  // the running search's
    bool m_inFlight = false;
    bool m_pending = false;  // the text changed while a search ran
};

}  // namespace ckpt::ui
