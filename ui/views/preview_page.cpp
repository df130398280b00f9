#include "views/preview_page.h"

#include <QShowEvent>

namespace ckpt::ui {

void PreviewPage::setSelection(const TensorSelection& selection) {
    cancelPending();
    m_selection = selection;
    ++m_generation;
    m_busy = false;
    m_stale = false;
    m_tensor.reset();
    clearPreview();
}

void PreviewPage::setValues(std::shared_ptr<const Tensor> values) {
    m_tensor = std::move(values);
    if (m_tensor) refresh();
}

void PreviewPage::refresh() {
    if (!m_tensor) return;
    if (!isVisible()) {
        m_stale = true;
        return;
    }
    m_stale = false;
    startPreview();
}

void PreviewPage::showEvent(QShowEvent* event) {
    InspectorPage::showEvent(event);
    if (m_stale) refresh();
}

void PreviewPage::cancelPending() {
    // Skips the job if it has not started; one already running finishes
    // and its result is dropped by the generation check.
    if (m_cancel) m_cancel();
    m_cancel = nullptr;
}

QString computedOnText(const ComputedOn& on) {
    if (on.device == "cuda")
        return on.deviceName.empty() ? PreviewPage::tr("Computed on CUDA")
                                     : PreviewPage::tr("Computed on CUDA (%1)").arg(QString::fromStdString(on.deviceName));
    if (!on.fallbackReason.empty())
        return PreviewPage::tr("Computed on CPU; not on CUDA: %1").arg(QString::fromStdString(on.fallbackReason));
    return PreviewPage::tr("Computed on CPU");
}

}  // namespace ckpt::ui
