#pragma once
// A word-wrapped QLabel that lays its text out once per width. QLabel lays
// rich text out again for every heightForWidth() a layout asks while it
// settles, and a layout asks often: the compare view's figures table, in a
// scroll area, was laid out dozens of times per resize (100 ms and more of
// the GUI thread on a busy machine). The answers are kept until the text,
// font or style changes. GUI thread.

#include <QHash>
#include <QLabel>

namespace ckpt::ui {

class WrappingLabel : public QLabel {
    Q_OBJECT
public:
    explicit WrappingLabel(QWidget* parent = nullptr);
    // Hides QLabel::setText (not virtual): call it, and clear() through it,
    // on a WrappingLabel pointer.
    void setText(const QString& text);
    void clear() { setText({}); }
    int heightForWidth(int width) const override;
    QSize minimumSizeHint() const override;
    QSize sizeHint() const override;

protected:
    void changeEvent(QEvent* event) override;

private:
    mutable QHash<int, int> m_heights;
    mutable QSize m_minimum, m_hint;
};

}  // namespace ckpt::ui
