#pragma once
// The right-hand inspector: the selected tensor's metadata from the index
// (no data read), then tabs of InspectorPages fed one shared, immutable copy
// of the values read on jobPool(). Values of very large tensors are read
// only on request.

#include <QFutureWatcher>
#include <QList>
#include <QWidget>

#include <memory>

#include "views/inspector_page.h"

class QFormLayout;
class QLabel;
class QPushButton;
class QTabWidget;

namespace ckpt::ui {

class JobControl;
class JobTracker;
class TabOverflow;
class ValuesPage;

class TensorInspector : public QWidget {
    Q_OBJECT
public:
    // Tensors larger than this are read only after "Load values".
    static constexpr int64_t kAutoLoadBytes = 256ll << 20;

    explicit TensorInspector(JobTracker* jobs, QWidget* parent = nullptr);
    ~TensorInspector() override;

    void addPage(InspectorPage* page);
    void setSelection(const TensorSelection& selection);
    // The catalog whose results cache the preview pages use; empty: none.
    void setCatalogPath(const QString& path);
    const TensorSelection& selection() const { return m_selection; }
    ValuesPage* valuesPage() const { return m_values; }
    bool isLoading() const { return m_loading; }

signals:
    // Values arrived (or failed) for the current selection.
    void valuesReady(bool ok);

private:
    void loadValues();
    void setField(int row, const QString& text);

    JobTracker* m_jobs;
    TensorSelection m_selection;
    QLabel* m_title;
    QFormLayout* m_form;
    QWidget* m_formBox;  // holds m_form
    QList<QLabel*> m_fields;
    QLabel* m_status;
    QPushButton* m_load;
    QTabWidget* m_tabs;
    TabOverflow* m_overflow;
    ValuesPage* m_values;
    QList<InspectorPage*> m_pages;
    std::shared_ptr<JobControl> m_readJob;  // the current selection's read
    quint64 m_generation = 0;
    bool m_loading = false;
};

}  // namespace ckpt::ui
