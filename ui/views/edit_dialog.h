#pragma once
// An edit of the open checkpoint (strip the optimizer, rename or delete an
// object) with a preview of the resulting tree before anything is written:
// the engine's planEdit runs on jobPool() as the fields change, and the
// plan's tree is shown with the object tree's own model, renamed rows
// marked, beside what changes (keys renamed, deleted, kept) and the plan's
// notes. planEdit's refusals (an unknown path, a name taken, a deletion
// that would leave references dangling) show as the dialog's reason; for a
// deletion, "also delete what refers to it" asks the engine to take those
// along (EditSpec::force). Write runs applyEdit on the shown plan.

#include <memory>

#include "views/surgery_dialog.h"

class QCheckBox;
class QListWidget;
class QTreeView;

namespace ckpt::ui {

class ObjectTreeModel;

class EditDialog : public SurgeryDialog {
    Q_OBJECT
public:
    enum Kind { StripOptimizer, Rename, Delete };
    // 'path' names the object to rename or delete (editPathOf); unused when stripping.
    // 'source' is the open checkpoint as the window shows it.
    EditDialog(Kind kind, std::shared_ptr<const CheckpointSnapshot> source, const QString& path, QWidget* parent = nullptr);

    Kind kind() const { return m_kind; }
    EditSpec spec() const;
    // The plan of the fields as shown; null while it is computed or refused.
    const std::shared_ptr<const EditPlan>& plan() const { return m_plan; }
    const std::shared_ptr<const CheckpointSnapshot>& previewTree() const { return m_tree; }
    bool isPreviewing() const { return m_previewedGeneration != m_previewGeneration; }

    QLineEdit* newNameEdit() const { return m_newName; }  // Rename only
    QCheckBox* forceBox() const { return m_force; }       // Delete only
    QTreeView* previewView() const { return m_view; }
    ObjectTreeModel* previewModel() const { return m_model; }
    QLabel* changesLabel() const { return m_changes; }
    QListWidget* changesList() const { return m_changeList; }
    QLabel* notesLabel() const { return m_notes; }

signals:
    // A preview arrived for the fields as shown: a plan, or a refusal.
    void previewed(bool ok);

protected:
    QString fieldsReason() const override;
    bool fieldsPending() const override { return isPreviewing(); }

private:
    void fieldsEdited();
    void startPreview();
    void showPreview(const EditPreview& preview);
    void showTree();
    void revealResult();

    Kind m_kind;
    std::shared_ptr<const Checkpoint> m_source;
    std::shared_ptr<const CheckpointSnapshot> m_sourceTree;  // shown until a rename has a new name
    QString m_path;
    QLineEdit* m_newName = nullptr;
    QCheckBox* m_force = nullptr;
    QTreeView* m_view;
    ObjectTreeModel* m_model;
    QLabel* m_changes;
    QListWidget* m_changeList;
    QLabel* m_notes;
    QTimer* m_previewDelay;
    std::shared_ptr<const EditPlan> m_plan;
    std::shared_ptr<const CheckpointSnapshot> m_tree;
    QString m_previewError;
    quint64 m_previewGeneration = 0;
    quint64 m_previewedGeneration = 0;
};

}  // namespace ckpt::ui
