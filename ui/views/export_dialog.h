#pragma once
// Export… of the open checkpoint to a safetensors or npz file: the format
// (the file's extension follows it), how arrays are named (object paths or
// checkpoint keys), weights only, and whether tensors the format cannot
// hold are left out with a note rather than refusing. The output file is
// judged as it is typed, like the other surgeries' destinations.

#include "jobs/export_jobs.h"
#include "views/surgery_dialog.h"

class QCheckBox;

namespace ckpt::ui {

class ExportDialog : public SurgeryDialog {
    Q_OBJECT
public:
    explicit ExportDialog(const QString& source, QWidget* parent = nullptr);

    ExportOptions options() const;

    QComboBox* formatBox() const { return m_format; }
    QComboBox* namesBox() const { return m_names; }
    QCheckBox* weightsOnlyBox() const { return m_weightsOnly; }
    QCheckBox* skipUnsupportedBox() const { return m_skipUnsupported; }

protected:
    QString fieldsReason() const override;

private:
    ArrayFormat format() const;

    QComboBox* m_format;
    QComboBox* m_names;
    QCheckBox* m_weightsOnly;
    QCheckBox* m_skipUnsupported;
};

}  // namespace ckpt::ui
