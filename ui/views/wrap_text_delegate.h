#pragma once
// Whether one column of an item view wraps its text onto more lines of its
// row, whatever the view's wordWrap says for every column. QTableView sizes
// rows for wrapped text only with wordWrap on, so a table that wraps a
// column of prose turns it on and keeps a path-like column on one line
// (elided) with WrapTextDelegate(false): a path breaks anywhere. GUI thread.
//   table->setWordWrap(true);
//   table->setItemDelegateForColumn(OwnerColumn, new WrapTextDelegate(false, table));

#include <QStyledItemDelegate>

namespace ckpt::ui {

class WrapTextDelegate : public QStyledItemDelegate {
public:
    WrapTextDelegate(bool wrap, QObject* parent) : QStyledItemDelegate(parent), m_wrap(wrap) {}

protected:
    void initStyleOption(QStyleOptionViewItem* option, const QModelIndex& index) const override {
        QStyledItemDelegate::initStyleOption(option, index);
        option->features.setFlag(QStyleOptionViewItem::WrapText, m_wrap);
    }

private:
    bool m_wrap;
};

}  // namespace ckpt::ui
