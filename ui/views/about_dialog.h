#pragma once
// Help ▸ About: the application's version and the versions of the libraries
// it runs with (Qt as loaded, the engine's libraries as they report
// themselves: ckpt/build_info.h), selectable for bug reports.

#include <QDialog>
#include <QList>
#include <QPair>

class QTableWidget;

namespace ckpt::ui {

// (library, version) rows, Qt first, then the engine's libraries.
QList<QPair<QString, QString>> runtimeVersions();

class AboutDialog : public QDialog {
    Q_OBJECT
public:
    explicit AboutDialog(QWidget* parent = nullptr);

    QTableWidget* versionsTable() const { return m_versions; }

private:
    QTableWidget* m_versions;
};

}  // namespace ckpt::ui
