#include "views/opening_panel.h"

#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QVBoxLayout>

namespace ckpt::ui {

OpeningPanel::OpeningPanel(QWidget* parent)
    : QWidget(parent), m_title(new QLabel(this)), m_cancel(new QPushButton(tr("&Cancel"), this)) {
    auto* layout = new QVBoxLayout(this);
    layout->addStretch(1);
    m_title->setAlignment(Qt::AlignCenter);
    m_title->setWordWrap(true);
    m_title->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_title);
    // The engine reports no progress for an open: a busy bar, not a fake percentage.
    auto* bar = new QProgressBar(this);
    bar->setRange(0, 0);
    bar->setTextVisible(false);
    bar->setMaximumWidth(360);
    bar->setAccessibleName(tr("Opening"));
    layout->addWidget(bar, 0, Qt::AlignHCenter);
    m_cancel->setObjectName(QStringLiteral("cancelOpen"));
    m_cancel->setAccessibleName(tr("Cancel opening"));
    connect(m_cancel, &QPushButton::clicked, this, &OpeningPanel::cancelRequested);
    layout->addWidget(m_cancel, 0, Qt::AlignHCenter);
    layout->addStretch(2);
    setAccessibleName(tr("Opening panel"));
}

void OpeningPanel::showLocation(const QString& location) { m_title->setText(tr("Opening %1\u2026").arg(location)); }

QString OpeningPanel::text() const { return m_title->text(); }

}  // namespace ckpt::ui
