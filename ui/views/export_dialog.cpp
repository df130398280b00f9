#include "views/export_dialog.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QFileInfo>
#include <QFormLayout>
#include <QLineEdit>

namespace ckpt::ui {

ExportDialog::ExportDialog(const QString& source, QWidget* parent)
    : SurgeryDialog(tr("Export %1").arg(QFileInfo(source).fileName()), {source},
                    suggestExportOutput(source, ArrayFormat::Safetensors), parent),
      m_format(new QComboBox(this)), m_names(new QComboBox(this)),
      m_weightsOnly(new QCheckBox(tr("&Weights only (leave out optimizers and slot variables)"), this)),
      m_skipUnsupported(new QCheckBox(tr("&Leave out tensors the format cannot hold (each noted) instead of refusing"), this)) {
    m_format->addItem(tr("safetensors"), static_cast<int>(ArrayFormat::Safetensors));
    m_format->addItem(tr("numpy npz"), static_cast<int>(ArrayFormat::Npz));
    m_names->addItem(tr("Object paths (model.dense.kernel)"), static_cast<int>(ArrayNaming::ObjectPaths));
    m_names->addItem(tr("Checkpoint keys as stored"), static_cast<int>(ArrayNaming::Keys));
    auto* form = new QFormLayout;
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    form->addRow(tr("&Format:"), m_format);
    form->addRow(tr("Array &names:"), m_names);
    form->addRow(m_weightsOnly);
    form->addRow(m_skipUnsupported);
    content()->addLayout(form);
    content()->addStretch();
    setShardingShown(false);
    setDestinationCheck(judgeExportOutput);
    // The file's extension follows the format chosen.
    connect(m_format, &QComboBox::currentIndexChanged, this, [this] {
        QString path = QDir::fromNativeSeparators(destinationEdit()->text().trimmed());
        if (arrayFormatFromPath(path.toStdString())) path = path.left(path.lastIndexOf(QLatin1Char('.')));
        destinationEdit()->setText(
            QDir::toNativeSeparators(path + QLatin1Char('.') + QString::fromLatin1(arrayFormatName(format()))));
    });
    updateVerdict();
    resize(620, 280);
}

ArrayFormat ExportDialog::format() const { return static_cast<ArrayFormat>(m_format->currentData().toInt()); }

ExportOptions ExportDialog::options() const {
    ExportOptions o;
    o.format = format();
    o.names = static_cast<ArrayNaming>(m_names->currentData().toInt());
    o.weightsOnly = m_weightsOnly->isChecked();
    o.skipUnsupported = m_skipUnsupported->isChecked();
    return o;
}

QString ExportDialog::fieldsReason() const {
    const auto named = arrayFormatFromPath(destination().toStdString());
    if (named && *named != format())
        return tr("The file name says %1 but the format chosen is %2.")
            .arg(QString::fromLatin1(arrayFormatName(*named)), QString::fromLatin1(arrayFormatName(format())));
    return {};
}

}  // namespace ckpt::ui
