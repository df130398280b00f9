#include "views/error_panel.h"

#include <QFontDatabase>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QStyle>
#include <QVBoxLayout>

namespace ckpt::ui {

ErrorPanel::ErrorPanel(QWidget* parent) : QWidget(parent), m_title(new QLabel(this)), m_details(new QPlainTextEdit(this)) {
    auto* layout = new QVBoxLayout(this);
    auto* header = new QHBoxLayout;
    auto* icon = new QLabel(this);
    icon->setPixmap(style()->standardIcon(QStyle::SP_MessageBoxCritical).pixmap(32, 32));
    header->addWidget(icon);
    QFont f = m_title->font();
    f.setPointSizeF(f.pointSizeF() * 1.25);
    f.setBold(true);
    m_title->setFont(f);
    m_title->setWordWrap(true);
    m_title->setTextInteractionFlags(Qt::TextSelectableByMouse);
    header->addWidget(m_title, 1);
    layout->addLayout(header);
    m_details->setReadOnly(true);
    m_details->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_details->setAccessibleName(tr("Error details"));
    layout->addWidget(m_details, 1);
    auto* retry = new QPushButton(tr("&Retry"), this);
    retry->setAccessibleName(tr("Retry opening the checkpoint"));
    connect(retry, &QPushButton::clicked, this, &ErrorPanel::retryRequested);
    auto* buttons = new QHBoxLayout;
    buttons->addStretch();
    buttons->addWidget(retry);
    layout->addLayout(buttons);
    setAccessibleName(tr("Error panel"));
}

void ErrorPanel::showError(const QString& title, const QString& message, const QStringList& problems) {
    m_title->setText(title);
    QString text = message;
    if (!problems.isEmpty()) {
        text += tr("\n\nckpt verify found %n problem(s):\n", nullptr, static_cast<int>(problems.size()));
        text += problems.join(QLatin1Char('\n'));
    }
    m_details->setPlainText(text);
}

QString ErrorPanel::messageText() const { return m_details->toPlainText(); }

}  // namespace ckpt::ui
