#pragma once
// One tab of the tensor inspector. The inspector reads a selected tensor's
// values once, off the GUI thread, and hands the same immutable Tensor to
// every page, so pages that land later (statistics, histogram, heatmap from
// the preview module) add a class and one addPage() call, nothing else.

#include <QWidget>

#include <memory>

#include "ckpt/tensor.h"
#include "models/checkpoint_snapshot.h"

namespace ckpt::ui {

// Why a page has no values for the selected tensor: they are being read,
// wait for "Load values", could not be read or decoded, or the read was
// cancelled. 'detail' is the engine's message where there is one.
enum class ValuesState { Reading, OnRequest, Failed, Cancelled, Undecodable };

struct TensorSelection {
    std::shared_ptr<const CheckpointSnapshot> snapshot;  // keeps 'info' alive
    const TensorInfo* info = nullptr;                    // null: nothing selected
    QString path;                                        // the tree entry's path
};

class InspectorPage : public QWidget {
    Q_OBJECT
public:
    using QWidget::QWidget;
    virtual QString pageTitle() const = 0;
    // A new selection; values follow with setValues (or never, on error).
    virtual void setSelection(const TensorSelection& selection) = 0;
    // Null while loading or when the values could not be read.
    virtual void setValues(std::shared_ptr<const Tensor> values) = 0;
    // Where the values stand while there are none; pages that say nothing
    // about it ignore it.
    virtual void setValuesState(ValuesState state, const QString& detail) {
        (void)state;
        (void)detail;
    }
};

}  // namespace ckpt::ui
