#include "views/wrapping_label.h"

#include <QEvent>

namespace ckpt::ui {

WrappingLabel::WrappingLabel(QWidget* parent) : QLabel(parent) { setWordWrap(true); }

void WrappingLabel::setText(const QString& text) {
    if (text == this->text()) return;
    m_heights.clear();
    m_minimum = m_hint = {};
    QLabel::setText(text);
}

int WrappingLabel::heightForWidth(int width) const {
    const auto known = m_heights.constFind(width);
    if (known != m_heights.constEnd()) return *known;
    const int height = QLabel::heightForWidth(width);
    m_heights.insert(width, height);
    return height;
}

QSize WrappingLabel::minimumSizeHint() const {
    if (!m_minimum.isValid()) m_minimum = QLabel::minimumSizeHint();
    return m_minimum;
}

QSize WrappingLabel::sizeHint() const {
    if (!m_hint.isValid()) m_hint = QLabel::sizeHint();
    return m_hint;
}

void WrappingLabel::changeEvent(QEvent* event) {
    // What the text's size depends on besides the text itself.
    if (event->type() == QEvent::FontChange || event->type() == QEvent::StyleChange ||
        event->type() == QEvent::ContentsRectChange) {
        m_heights.clear();
        m_minimum = m_hint = {};
    }
    QLabel::changeEvent(event);
}

}  // namespace ckpt::ui
