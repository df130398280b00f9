#pragma once
// The "Compare" tab: two checkpoints as one merged tree (status letter and
// colour per row, unchanged rows hidden unless asked for, a filter box, and
// columns that sort siblings by how much they changed), with the selected
// row's values on the right (CompareDetail). The diff runs on jobPool() with
// progress in the status bar and cancellation (Esc); filtering too. Stepping
// to the previous or next pair keeps the selected variable and its slice.

#include <QStringList>
#include <QWidget>

#include <functional>
#include <memory>

#include "models/compare_snapshot.h"
#include "models/diff_filter.h"

class QCheckBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QTimer;
class QTreeView;

namespace ckpt::ui {

class CompareDetail;
class DiffTreeModel;
class JobControl;
class JobTracker;
struct CompareResult;

class CompareView : public QWidget {
    Q_OBJECT
public:
    explicit CompareView(JobTracker* jobs, QWidget* parent = nullptr);
    ~CompareView() override;

    // Anything Checkpoint::open accepts; A is the "before" side.
    void compare(const QString& pathA, const QString& pathB);
    // The checkpoint 'delta' rows away from 'prefix' in its directory, or
    // empty (the main window answers from the sidebar's listing).
    using NeighbourLookup = std::function<QString(const QString& prefix, int delta)>;
    void setNeighbourLookup(NeighbourLookup lookup);
    // Compares the pair one checkpoint earlier (-1) or later (+1).
    void step(int delta);
    void swapSides();
    void focusFilter();
    // Makes the row at 'location' (its path components) current, now when
    // it is shown, else once the comparison in progress lands.
    void selectLocation(const QStringList& location);
    // Where pairs compared before are found and new ones kept; empty: none.
    void setCatalogPath(const QString& path) { m_catalogPath = path; }

    const std::shared_ptr<const CompareSnapshot>& snapshot() const { return m_snapshot; }
    DiffTreeModel* model() const { return m_model; }
    QTreeView* view() const { return m_view; }
    CompareDetail* detail() const { return m_detail; }
    QLineEdit* filterEdit() const { return m_filter; }
    QCheckBox* regexBox() const { return m_regex; }
    QCheckBox* unchangedBox() const { return m_unchanged; }
    QLabel* summaryLabel() const { return m_summary; }
    QPushButton* previousButton() const { return m_previous; }
    QPushButton* nextButton() const { return m_next; }
    bool isComparing() const { return m_compareJob != nullptr; }
    bool isFiltering() const { return m_filtering; }
    QString error() const { return m_error; }

signals:
    // After each compare(): whether the diff landed.
    void compared(bool ok);
    void filterApplied();

private:
    void showResult(const CompareResult& result);
    void startFilter();
    void applyVisibleSet(std::shared_ptr<const VisibleSet> visible);
    void expandSome();
    void selectNode(int32_t node);
    void onCurrentChanged();
    void updateHeader();
    DiffFilter currentFilter() const;

    JobTracker* m_jobs;
    NeighbourLookup m_neighbours;
    QString m_pathA, m_pathB, m_error;
    QString m_catalogPath;
    std::shared_ptr<const CompareSnapshot> m_snapshot;
    QStringList m_selectedLocation;  // kept across comparisons
    QLabel* m_pair;
    QPushButton* m_previous;
    QPushButton* m_next;
    QPushButton* m_swap;
    QLineEdit* m_filter;
    QCheckBox* m_regex;
    QCheckBox* m_unchanged;
    QLabel* m_message;
    DiffTreeModel* m_model;
    QTreeView* m_view;
    CompareDetail* m_detail;
    QLabel* m_summary;
    QTimer* m_debounce;
    std::shared_ptr<JobControl> m_compareJob;
    quint64 m_compareGeneration = 0, m_filterGeneration = 0;
    bool m_filtering = false;
};

}  // namespace ckpt::ui
