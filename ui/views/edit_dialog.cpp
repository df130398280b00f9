#include "views/edit_dialog.h"

#include <QCheckBox>
#include <QFileInfo>
#include <QFont>
#include <QFormLayout>
#include <QGroupBox>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QSplitter>
#include <QTimer>
#include <QTreeView>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include <string_view>
#include <unordered_map>

#include "jobs/job_pool.h"
#include "jobs/when_done.h"
#include "models/entry_overlay.h"
#include "models/object_tree_model.h"
#include "models/tree_filter.h"
#include "views/entry_elide_delegate.h"

namespace ckpt::ui {
namespace {

constexpr int kPreviewDelayMs = 250;
// The list beside the tree names changes one by one up to this many; the
// counts above it cover the rest.
constexpr int kMaxListedChanges = 500;

// Marks the preview's rows whose tensor was renamed, with the old key in
// the tooltip, so the edit is visible where it lands.
class RenamedOverlay : public EntryOverlay {
public:
    explicit RenamedOverlay(std::shared_ptr<const EditPlan> plan) : m_plan(std::move(plan)) {
        for (const KeyChange& k : m_plan->keys)
            if (k.kind == KeyChangeKind::Renamed) m_oldByNew.emplace(k.newKey, k.oldKey);
    }
    QVariant data(const TreeEntry& entry, int32_t, int column, int role) const override {
        if (!entry.tensor || column != ObjectTreeModel::NameColumn) return {};
        const auto it = m_oldByNew.find(entry.tensor->key);
        if (it == m_oldByNew.end()) return {};
        switch (role) {
        case Qt::FontRole: {
            QFont bold;
            bold.setBold(true);
            return bold;
        }
        case Qt::ToolTipRole:
            return QObject::tr("%1\nrenamed from %2")
                .arg(pathText(entry), QString::fromUtf8(it->second.data(), static_cast<qsizetype>(it->second.size())));
        default: return {};
        }
    }

private:
    std::shared_ptr<const EditPlan> m_plan;
    std::unordered_map<std::string_view, std::string_view> m_oldByNew;  // views into m_plan
};

QString titleFor(EditDialog::Kind kind, const QString& source, const QString& path) {
    const QString name = QFileInfo(source).fileName();
    switch (kind) {
    case EditDialog::StripOptimizer: return QObject::tr("Strip Optimizer \u2014 %1").arg(name);
    case EditDialog::Rename: return QObject::tr("Rename %1 \u2014 %2").arg(path, name);
    case EditDialog::Delete: return QObject::tr("Delete %1 \u2014 %2").arg(path, name);
    }
    return {};
}

QString suffixFor(EditDialog::Kind kind) {
    switch (kind) {
    case EditDialog::StripOptimizer: return QStringLiteral("weights");
    case EditDialog::Rename: return QStringLiteral("renamed");
    case EditDialog::Delete: return QStringLiteral("edited");
    }
    return {};
}

QString prefixOf(const std::shared_ptr<const Checkpoint>& c) { return QString::fromStdString(c->prefix()); }

}  // namespace

EditDialog::EditDialog(Kind kind, std::shared_ptr<const CheckpointSnapshot> source, const QString& path, QWidget* parent)
    : SurgeryDialog(titleFor(kind, prefixOf(source->checkpoint), path), {prefixOf(source->checkpoint)},
                    suggestDestination(prefixOf(source->checkpoint), suffixFor(kind)), parent),
      m_kind(kind), m_source(source->checkpoint), m_sourceTree(std::move(source)), m_path(path), m_view(new QTreeView(this)),
      m_model(new ObjectTreeModel(this)), m_changes(new QLabel(this)), m_changeList(new QListWidget(this)),
      m_notes(new QLabel(this)), m_previewDelay(new QTimer(this)) {
    if (kind != StripOptimizer) {
        auto* form = new QFormLayout;
        form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
        auto* object = new QLabel(path, this);
        object->setTextInteractionFlags(Qt::TextSelectableByMouse);
        form->addRow(tr("Object:"), object);
        if (kind == Rename) {
            m_newName = new QLineEdit(path, this);
            m_newName->setAccessibleName(tr("New name"));
            m_newName->setToolTip(tr("The object's new path: change its last part to rename it, its parents to move it"));
            // Like a file rename: the last part is what one usually changes.
            const qsizetype dot = path.lastIndexOf(QLatin1Char('.'));
            m_newName->setSelection(static_cast<int>(dot + 1), static_cast<int>(path.size() - dot - 1));
            form->addRow(tr("&New name:"), m_newName);
            m_newName->setFocus();  // what a rename is for; the destination is suggested
            connect(m_newName, &QLineEdit::textChanged, this, &EditDialog::fieldsEdited);
        } else {
            m_force = new QCheckBox(tr("&Also delete what refers to it (e.g. an optimizer's slots for it)"), this);
            form->addRow(m_force);
            connect(m_force, &QCheckBox::toggled, this, &EditDialog::fieldsEdited);
        }
        content()->addLayout(form);
    }

    m_view->setModel(m_model);
    m_view->setUniformRowHeights(true);
    m_view->setAlternatingRowColors(true);
    m_view->setTextElideMode(Qt::ElideLeft);
    m_view->setItemDelegateForColumn(ObjectTreeModel::NameColumn, new EntryElideDelegate(m_model, m_view));
    m_view->setAccessibleName(tr("Resulting object graph"));
    m_view->header()->setStretchLastSection(false);
    m_view->header()->setSectionResizeMode(ObjectTreeModel::NameColumn, QHeaderView::Stretch);
    m_view->header()->resizeSection(ObjectTreeModel::KindColumn, 100);
    m_view->header()->resizeSection(ObjectTreeModel::DTypeColumn, 60);
    m_view->header()->resizeSection(ObjectTreeModel::ShapeColumn, 80);
    m_view->header()->resizeSection(ObjectTreeModel::SizeColumn, 70);
    auto* treeBox = new QGroupBox(tr("Result (nothing is written yet)"), this);
    auto* treeLayout = new QVBoxLayout(treeBox);
    treeLayout->addWidget(m_view);

    m_changes->setWordWrap(true);
    m_changes->setAccessibleName(tr("Key changes"));
    m_changeList->setAccessibleName(tr("Changed keys"));
    // Keys differ in the middle ("layer_with_weights-0" -> "encoder") and
    // their ends name the tensor: wrapped whole rather than elided.
    m_changeList->setWordWrap(true);
    m_changeList->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_changeList->setAlternatingRowColors(true);
    m_notes->setWordWrap(true);
    m_notes->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_notes->setAccessibleName(tr("Notes"));
    m_notes->setAlignment(Qt::AlignLeft | Qt::AlignTop);
    auto* changesBox = new QGroupBox(tr("Changes"), this);
    auto* changesLayout = new QVBoxLayout(changesBox);
    changesLayout->addWidget(m_changes);
    changesLayout->addWidget(m_changeList, 1);
    changesLayout->addWidget(m_notes);

    auto* split = new QSplitter(this);
    split->addWidget(treeBox);
    split->addWidget(changesBox);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    content()->addWidget(split, 1);

    m_previewDelay->setSingleShot(true);
    m_previewDelay->setInterval(kPreviewDelayMs);
    connect(m_previewDelay, &QTimer::timeout, this, &EditDialog::startPreview);
    ++m_previewGeneration;
    startPreview();  // the first preview without waiting
    resize(1000, 640);
}

EditSpec EditDialog::spec() const {
    EditSpec spec;
    switch (m_kind) {
    case StripOptimizer: spec.stripOptimizer = true; break;
    case Rename: spec.renames.emplace_back(m_path.toStdString(), m_newName->text().trimmed().toStdString()); break;
    case Delete:
        spec.deletes.push_back(m_path.toStdString());
        spec.force = m_force->isChecked();
        break;
    }
    return spec;
}

QString EditDialog::fieldsReason() const {
    if (m_kind == Rename && (m_newName->text().trimmed().isEmpty() || m_newName->text().trimmed() == m_path))
        return tr("Type the new name.");
    if (isPreviewing() || m_previewError.isEmpty()) return {};
    // The usual refusal of a deletion: slots or other objects would point at nothing.
    if (m_kind == Delete && !m_force->isChecked())
        return tr("%1\nCheck \u201cAlso delete what refers to it\u201d to take those along.").arg(m_previewError);
    return m_previewError;
}

void EditDialog::fieldsEdited() {
    ++m_previewGeneration;
    m_plan.reset();
    m_previewDelay->start();
    updateVerdict();
}

void EditDialog::startPreview() {
    const quint64 generation = m_previewGeneration;
    if (m_kind == Rename && !fieldsReason().isEmpty()) {
        // No new name yet: nothing to ask the engine; the tree as it is now.
        m_previewedGeneration = generation;
        m_previewError.clear();
        m_plan.reset();
        m_tree = m_sourceTree;
        m_view->setEnabled(true);
        showTree();
        m_model->setOverlay(nullptr);
        m_changes->setText(tr("Type the new name to see the result."));
        m_changeList->clear();
        m_notes->clear();
        revealResult();
        updateVerdict();
        return;
    }
    whenDone(this, QtConcurrent::run(jobPool(), previewEdit, m_source, spec()), [this, generation](const EditPreview& p) {
        if (generation != m_previewGeneration) return;  // the fields changed; a newer preview follows
        m_previewedGeneration = generation;
        showPreview(p);
        updateVerdict();
        emit previewed(p.plan != nullptr);
    });
}

void EditDialog::showPreview(const EditPreview& preview) {
    m_previewError = preview.error;
    m_plan = preview.plan;
    m_changeList->clear();
    if (!preview.plan) {
        // The last good tree stays, greyed: the refusal says what is wrong with the fields.
        m_view->setEnabled(false);
        m_changes->setText(tr("Not possible as shown."));
        m_notes->clear();
        return;
    }
    m_tree = preview.tree;
    m_view->setEnabled(true);
    showTree();
    m_model->setOverlay(std::make_shared<RenamedOverlay>(m_plan));
    const EditPlan& plan = *m_plan;
    m_changes->setText(tr("%1 renamed, %2 deleted, %3 replaced, %4 kept \u2014 %5 tensors in the result")
                           .arg(plan.count(KeyChangeKind::Renamed))
                           .arg(plan.count(KeyChangeKind::Deleted))
                           .arg(plan.count(KeyChangeKind::Replaced))
                           .arg(plan.count(KeyChangeKind::Kept))
                           .arg(m_tree->tensorCount));
    int listed = 0;
    for (const KeyChange& k : plan.keys) {
        if (k.kind == KeyChangeKind::Kept) continue;
        if (++listed > kMaxListedChanges) break;
        const QString oldKey = QString::fromStdString(k.oldKey);
        switch (k.kind) {
        case KeyChangeKind::Renamed:
            m_changeList->addItem(tr("%1\n\u2192 %2").arg(oldKey, QString::fromStdString(k.newKey)));
            break;
        case KeyChangeKind::Deleted: m_changeList->addItem(tr("deleted: %1").arg(oldKey)); break;
        case KeyChangeKind::Replaced:
            m_changeList->addItem(tr("replaced: %1 from %2").arg(oldKey, QString::fromStdString(k.detail)));
            break;
        case KeyChangeKind::Kept: break;
        }
    }
    QStringList notes;
    for (const std::string& n : plan.notes) notes << QString::fromStdString(n);
    m_notes->setText(notes.join(QLatin1Char('\n')));
    revealResult();
}

void EditDialog::showTree() {
    // As the window's tree shows a checkpoint at first: objects and slots,
    // checkpoint keys hidden (the changes list names them).
    m_model->setSnapshot(m_tree, computeVisibleSet(*m_tree, TreeFilter{}));
}

void EditDialog::revealResult() {
    // The top level open, as the window shows a checkpoint; a rename also
    // shows where the object went.
    for (int r = 0; r < m_model->rowCount(); ++r) m_view->expand(m_model->index(r, 0));
    if (m_kind != Rename) return;
    const QString wanted = m_newName->text().trimmed();
    const auto& entries = m_tree->entries;
    const QString last = wanted.section(QLatin1Char('.'), -1);
    for (size_t i = 1; i < entries.size(); ++i) {
        const auto e = static_cast<int32_t>(i);
        const std::string_view local = entries[i].localName;
        if (QString::fromUtf8(local.data(), static_cast<qsizetype>(local.size())) != last) continue;
        if (editPathOf(*m_tree, e) != wanted) continue;
        const QModelIndex index = m_model->indexForEntry(e);
        if (!index.isValid()) return;
        for (QModelIndex p = index.parent(); p.isValid(); p = p.parent()) m_view->expand(p);
        m_view->expand(index);
        m_view->setCurrentIndex(index);
        m_view->scrollTo(index);
        return;
    }
}

}  // namespace ckpt::ui
