#pragma once
// The filter boxes' one matching rule: a case-insensitive substring, or a
// regular expression when the box's Regex toggle is on. Shared by the
// object-graph filter (tree_filter.cpp) and the compare view's (diff_filter.cpp).

#include <QRegularExpression>
#include <QString>

namespace ckpt::ui {

class TextMatch {
public:
    TextMatch(const QString& text, bool regex) : m_text(text), m_regex(regex) {
        if (regex) m_re = QRegularExpression(text, QRegularExpression::CaseInsensitiveOption);
    }
    // Empty when usable; else why the expression is not one.
    QString error() const { return m_regex && !m_re.isValid() ? m_re.errorString() : QString(); }
    bool matchesAll() const { return m_text.isEmpty(); }
    bool operator()(const QString& candidate) const {
        return m_regex ? m_re.match(candidate).hasMatch() : candidate.contains(m_text, Qt::CaseInsensitive);
    }

private:
    QString m_text;
    bool m_regex = false;
    QRegularExpression m_re;
};

}  // namespace ckpt::ui
