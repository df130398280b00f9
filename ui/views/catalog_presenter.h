#pragma once
// The catalog as the window shows it (CatalogController holds the catalog
// itself): the Catalog menu, the sidebar's catalogued directories and
// their health, the catalog file handed to the views that cache through
// it, the Search tab, forgetting a directory, and a catalog that cannot be
// used reported in a message box that does not block the explorer.

#include <QList>
#include <QObject>

class QAction;
class QLabel;
class QMenuBar;
class QTabWidget;
class QWidget;

namespace ckpt::ui {

class CatalogController;
class CatalogSearchView;
class CheckpointSidebar;
class CompareView;
class OpenLocationDialog;
class RestoreView;
class TensorInspector;

// The parts that show the catalog; the window owns them.
struct CatalogParts {
    QWidget* window;  // the dialogs' parent
    CatalogController* catalog;
    CatalogSearchView* search;
    QTabWidget* workspace;
    CheckpointSidebar* sidebar;
    TensorInspector* inspector;
    RestoreView* restore;
    CompareView* compare;
    QLabel* status;
};

class CatalogPresenter : public QObject {
    Q_OBJECT
public:
    explicit CatalogPresenter(const CatalogParts& parts, QObject* parent = nullptr);

    void addMenu(QMenuBar* bar);
    // Shows the Search tab with its box focused (Ctrl+Shift+F).
    void showSearch();
    // Catalog ▸ Add Location…: a URL or path to catalogue, then scanned.
    OpenLocationDialog* addLocationDialog();

signals:
    // After the message box: the catalog cannot be used; 'message' names the file and says why.
    void unavailable(const QString& message);

private:
    void onOverview();
    void onUnavailable(const QString& message);
    void forgetDirectory(const QString& dir);

    CatalogParts m_parts;
    QList<QAction*> m_actions;  // enabled while the catalog is usable
};

}  // namespace ckpt::ui
