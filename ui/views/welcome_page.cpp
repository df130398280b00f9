#include "views/welcome_page.h"

#include <QDir>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

#include "jobs/demo_jobs.h"
#include "views/recent_files.h"

namespace ckpt::ui {
namespace {

// The demo folder as the user would type it: under the home folder, "~/…".
QString shownDemoDirectory() {
    QString demoDir = QDir::toNativeSeparators(defaultDemoDirectory());
    if (const QString home = QDir::toNativeSeparators(QDir::homePath()); demoDir.startsWith(home + QDir::separator()))
        demoDir.replace(0, home.size(), QStringLiteral("~"));
    return demoDir;
}

QLabel* centredText(const QString& html, QWidget* parent) {
    auto* label = new QLabel(html, parent);
    label->setAlignment(Qt::AlignCenter);
    label->setWordWrap(true);
    return label;
}

}  // namespace

WelcomePage::WelcomePage(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    layout->addStretch();
    layout->addWidget(centredText(tr("<h2>No checkpoint open</h2><p>Open a TensorFlow checkpoint prefix, directory or SavedModel "
                                     "with <b>File \u25b8 Open</b> (Ctrl+O), or drop one onto this window. One on S3 or "
                                     "Google Cloud Storage opens with <b>File \u25b8 Open Location</b> (Ctrl+L).</p>"),
                                  this));
    auto* openButton = new QPushButton(tr("Open Checkpoint\u2026"), this);
    openButton->setAccessibleName(tr("Open checkpoint"));
    connect(openButton, &QPushButton::clicked, this, &WelcomePage::openRequested);
    layout->addWidget(openButton, 0, Qt::AlignCenter);
    // A newcomer without a checkpoint at hand gets a real one: a short Adam
    // training run whose graph has layers, optimizer state and slots.
    layout->addSpacing(16);
    layout->addWidget(centredText(tr("<p>No checkpoint at hand? Train a small model (two dense layers, Adam, 200 steps) "
                                     "and explore its checkpoints, optimizer slots included.</p>"),
                                  this));
    const QString demoDir = shownDemoDirectory();
    m_demoButton = new QPushButton(tr("Generate Demo Checkpoints"), this);
    m_demoButton->setObjectName(QStringLiteral("generateDemo"));
    m_demoButton->setAccessibleName(tr("Generate demo checkpoints"));
    m_demoButton->setToolTip(tr("Writes them to %1 and opens them").arg(demoDir));
    connect(m_demoButton, &QPushButton::clicked, this, &WelcomePage::demoRequested);
    auto* demoElsewhere = new QPushButton(tr("Generate Into Folder\u2026"), this);
    connect(demoElsewhere, &QPushButton::clicked, this, &WelcomePage::demoIntoFolderRequested);
    auto* demoRow = new QHBoxLayout;
    demoRow->addStretch();
    demoRow->addWidget(m_demoButton);
    demoRow->addWidget(demoElsewhere);
    demoRow->addStretch();
    layout->addLayout(demoRow);
    auto* demoHint = new QLabel(tr("Saved to %1").arg(demoDir), this);
    demoHint->setAlignment(Qt::AlignCenter);
    demoHint->setTextInteractionFlags(Qt::TextSelectableByMouse);
    demoHint->setEnabled(false);  // greyed: a detail, not an instruction
    layout->addWidget(demoHint);
    m_recentBox = new QWidget(this);
    m_recentBox->setLayout(new QVBoxLayout);
    layout->addWidget(m_recentBox, 0, Qt::AlignCenter);
    layout->addStretch();
}

void WelcomePage::setDemoRunning(bool running) { m_demoButton->setEnabled(!running); }

void WelcomePage::showRecent(const QStringList& paths) {
    QLayout* box = m_recentBox->layout();
    while (QLayoutItem* item = box->takeAt(0)) {
        delete item->widget();
        delete item;
    }
    if (paths.isEmpty()) return;
    box->addWidget(new QLabel(tr("<b>Recent</b>"), m_recentBox));
    for (const QString& path : paths.mid(0, 5)) {
        auto* b = new QPushButton(RecentFiles::isMissing(path) ? tr("%1 (missing)").arg(path) : path, m_recentBox);
        b->setFlat(true);
        b->setAccessibleName(tr("Open recent %1").arg(path));
        b->setCursor(Qt::PointingHandCursor);
        connect(b, &QPushButton::clicked, this, [this, path] { emit recentRequested(path); });
        box->addWidget(b);
    }
}

}  // namespace ckpt::ui
