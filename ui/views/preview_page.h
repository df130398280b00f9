#pragma once
// Base of the inspector pages drawn by the engine's preview module
// (statistics, histogram, heatmap). A page computes only while it is shown,
// so clicking through tensors costs one read, not three extra passes over
// the values; a hidden page catches up when its tab is opened. One request
// at a time: a new selection or setting cancels the pending job, and a
// result from a superseded request is dropped.

#include <QFuture>
#include <QtConcurrent/QtConcurrentRun>

#include <functional>
#include <utility>

#include "ckpt/preview.h"
#include "jobs/job_pool.h"
#include "jobs/preview_jobs.h"
#include "jobs/when_done.h"
#include "views/inspector_page.h"

class QLabel;

namespace ckpt::ui {

class PreviewPage : public InspectorPage {
    Q_OBJECT
public:
    using InspectorPage::InspectorPage;
    void setSelection(const TensorSelection& selection) final;
    void setValues(std::shared_ptr<const Tensor> values) final;
    // True from a request until its result is shown (tests wait on it).
    bool isBusy() const { return m_busy; }
    // The values this page shows; null before they arrive.
    const std::shared_ptr<const Tensor>& tensor() const { return m_tensor; }
    // The catalog whose results cache previews go through; empty: none.
    void setCatalogPath(const QString& path) { m_catalogPath = path; }

signals:
    // A result for the current values was shown; false: the engine's error.
    void previewReady(bool ok);

protected:
    const TensorSelection& selection() const { return m_selection; }
    // The selected tensor and the catalog, for a cached computation.
    PreviewSource previewSource() const { return {m_selection.snapshot, m_selection.info, m_catalogPath}; }
    // Recomputes now when shown, else when the page is next shown.
    void refresh();
    // Starts the page's engine call; called only with tensor() set.
    virtual void startPreview() = 0;
    // The selection changed: clear what is shown.
    virtual void clearPreview() = 0;
    // Runs 'work' on jobPool() and hands its result to 'done' on this
    // thread unless a newer request or selection superseded it.
    template <typename Work, typename Done>
    void runPreview(Work work, Done done) {
        cancelPending();
        const quint64 generation = ++m_generation;
        m_busy = true;
        auto future = QtConcurrent::run(jobPool(), std::move(work));
        m_cancel = [future]() mutable { future.cancel(); };
        whenDone(this, future, [this, generation, d = std::move(done)](const auto& result) mutable {
            if (generation != m_generation) return;
            m_cancel = nullptr;
            m_busy = false;
            emit previewReady(d(result));
        });
    }
    void showEvent(QShowEvent* event) override;

private:
    void cancelPending();

    std::shared_ptr<const Tensor> m_tensor;
    TensorSelection m_selection;
    QString m_catalogPath;
    std::function<void()> m_cancel;
    quint64 m_generation = 0;
    bool m_busy = false;
    bool m_stale = false;  // values changed while the page was hidden
};

// "Computed on CPU" / "Computed on CUDA (device)", with the reason Auto fell
// back to the CPU, verbatim.
QString computedOnText(const ComputedOn& on);

}  // namespace ckpt::ui
