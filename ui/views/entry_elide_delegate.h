#pragma once
// How a row of an object tree is cut when its column is too narrow. Keys
// are told apart by their end ("…/m/.ATTRIBUTES/VARIABLE_VALUE"), slot
// variables by both ends ("m for lay…/kernel" beside "v for lay…/kernel":
// cut on the left, Adam's m and v read the same). For every view of an
// ObjectTreeModel: the object graph, the restore view and the edit preview.
// GUI thread.

#include <QStyledItemDelegate>

#include "models/object_tree_model.h"

namespace ckpt::ui {

class EntryElideDelegate : public QStyledItemDelegate {
public:
    EntryElideDelegate(const ObjectTreeModel* model, QObject* parent) : QStyledItemDelegate(parent), m_model(model) {}

    Qt::TextElideMode elideMode(const QModelIndex& index) const {
        const TreeEntry* e = m_model->entry(index);
        return e && e->kind == EntryKind::SlotVariable ? Qt::ElideMiddle : Qt::ElideLeft;
    }

protected:
    void initStyleOption(QStyleOptionViewItem* option, const QModelIndex& index) const override {
        QStyledItemDelegate::initStyleOption(option, index);
        option->textElideMode = elideMode(index);
    }

private:
    const ObjectTreeModel* m_model;
};

}  // namespace ckpt::ui
