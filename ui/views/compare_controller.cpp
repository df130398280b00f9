#include "views/compare_controller.h"

#include <QAction>
#include <QFileInfo>
#include <QLabel>
#include <QTabWidget>

#include <string_view>

#include "models/directory_model.h"
#include "views/checkpoint_opener.h"
#include "views/checkpoint_sidebar.h"
#include "views/compare_view.h"
#include "views/object_tree_pane.h"

namespace ckpt::ui {

CompareController::CompareController(const CompareParts& parts, QObject* parent)
    : QObject(parent), m_parts(parts), m_showInCompare(new QAction(tr("Show in Co&mpare"), this)) {
    // The comparison's ◀ ▶ step through the sidebar's listing.
    m_parts.view->setNeighbourLookup([sidebar = m_parts.sidebar](const QString& prefix, int delta) {
        return sidebar->directories()->neighbour(prefix, delta);
    });
    m_showInCompare->setToolTip(tr("Compare this checkpoint with the one before it, this row selected"));
    connect(m_showInCompare, &QAction::triggered, this, &CompareController::showCurrentRow);
}

void CompareController::compare(const QString& pathA, const QString& pathB) {
    m_parts.workspace->setCurrentWidget(m_parts.view);
    m_parts.view->compare(pathA, pathB);
}

void CompareController::compareSelected() {
    const QStringList selected = m_parts.sidebar->selectedPrefixes();
    if (selected.size() == 2) return compare(selected[0], selected[1]);
    if (selected.size() == 1) return compareWithPrevious(selected[0]);
    m_parts.status->setText(tr("Select two checkpoints in the sidebar to compare (Ctrl+click the second)."));
}

void CompareController::compareWithPrevious(const QString& prefix) {
    const QString previous = m_parts.sidebar->previousCheckpoint(prefix);
    if (previous.isEmpty()) {
        m_parts.status->setText(tr("%1 is the first checkpoint of its directory: nothing before it to compare with.")
                                    .arg(QFileInfo(prefix).fileName()));
        return;
    }
    compare(previous, prefix);
}

void CompareController::showCurrentRow() {
    const std::shared_ptr<const CheckpointSnapshot>& snapshot = m_parts.opener->snapshot();
    const int32_t e = m_parts.tree->currentEntry();
    if (!snapshot || e < 0) return;
    // The comparison's rows are found by their edge names from the root.
    QStringList location;
    for (int32_t i = e; i > 0; i = snapshot->entries[static_cast<size_t>(i)].parent) {
        const std::string_view name = snapshot->entries[static_cast<size_t>(i)].localName;
        location.prepend(QString::fromUtf8(name.data(), static_cast<qsizetype>(name.size())));
    }
    m_parts.view->selectLocation(location);
    compareWithPrevious(QString::fromStdString(snapshot->checkpoint->prefix()));
}

}  // namespace ckpt::ui
