#include "views/about_dialog.h"

#include <QApplication>
#include <QDialogButtonBox>
#include <QHeaderView>
#include <QLabel>
#include <QTableWidget>
#include <QVBoxLayout>

#include "ckpt/build_info.h"

namespace ckpt::ui {

QList<QPair<QString, QString>> runtimeVersions() {
    QList<QPair<QString, QString>> out;
    // The Qt loaded at run time can be newer than the one built against.
    QString qt = QString::fromLatin1(qVersion());
    if (qt != QLatin1String(QT_VERSION_STR)) qt += QObject::tr(" (built with %1)").arg(QLatin1String(QT_VERSION_STR));
    out.append({QStringLiteral("Qt"), qt});
    for (const LibraryVersion& v : libraryVersions())
        out.append({QString::fromStdString(v.name), QString::fromStdString(v.version)});
    return out;
}

AboutDialog::AboutDialog(QWidget* parent) : QDialog(parent), m_versions(new QTableWidget(this)) {
    setWindowTitle(tr("About Checkpoint Explorer"));
    auto* title = new QLabel(tr("<h2>Checkpoint Explorer %1</h2>"
                                "<p>Browse, inspect, compare and manage TensorFlow checkpoints.</p>")
                                 .arg(QApplication::applicationVersion().toHtmlEscaped()),
                             this);
    title->setWordWrap(true);
    title->setTextInteractionFlags(Qt::TextSelectableByMouse);

    const auto versions = runtimeVersions();
    m_versions->setColumnCount(2);
    m_versions->setHorizontalHeaderLabels({tr("Library"), tr("Version")});
    m_versions->setRowCount(static_cast<int>(versions.size()));
    for (int row = 0; row < versions.size(); ++row) {
        m_versions->setItem(row, 0, new QTableWidgetItem(versions[row].first));
        m_versions->setItem(row, 1, new QTableWidgetItem(versions[row].second));
    }
    m_versions->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_versions->verticalHeader()->hide();
    m_versions->horizontalHeader()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    m_versions->horizontalHeader()->setStretchLastSection(true);
    m_versions->setAccessibleName(tr("Library versions"));
    m_versions->setMinimumSize(420, m_versions->verticalHeader()->defaultSectionSize() * (m_versions->rowCount() + 1) + 8);

    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(title);
    layout->addWidget(new QLabel(tr("Running with:"), this));
    layout->addWidget(m_versions);
    layout->addWidget(buttons);
}

}  // namespace ckpt::ui
