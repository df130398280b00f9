#pragma once
// What the Compare tab compares: a pair asked for (the sidebar's drop or
// context menu), the two checkpoints selected in the sidebar (Ctrl+D), a
// checkpoint with the one before it in its directory, and the object tree
// rows' "Show in Compare" (that comparison, the row selected in it). When
// there is nothing to compare the status line says why.

#include <QObject>

class QAction;
class QLabel;
class QTabWidget;

namespace ckpt::ui {

class CheckpointOpener;
class CheckpointSidebar;
class CompareView;
class ObjectTreePane;

// The parts a comparison reads and shows in; the window owns them.
struct CompareParts {
    QTabWidget* workspace;
    CompareView* view;
    CheckpointSidebar* sidebar;
    CheckpointOpener* opener;
    ObjectTreePane* tree;
    QLabel* status;
};

class CompareController : public QObject {
    Q_OBJECT
public:
    explicit CompareController(const CompareParts& parts, QObject* parent = nullptr);

    // Shows the Compare tab comparing A (before) with B (after).
    void compare(const QString& pathA, const QString& pathB);
    // The two checkpoints selected in the sidebar (older as A), or the one
    // selected with the one before it.
    void compareSelected();
    // 'prefix' with the checkpoint before it in its directory.
    void compareWithPrevious(const QString& prefix);
    // For the object tree rows' context menu.
    QAction* showInCompareAction() const { return m_showInCompare; }

private:
    void showCurrentRow();

    CompareParts m_parts;
    QAction* m_showInCompare;
};

}  // namespace ckpt::ui
