#include "views/average_dialog.h"

#include "jobs/surgery_jobs.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>

namespace ckpt::ui {

AverageDialog::AverageDialog(const QString& current, const QStringList& candidates, QWidget* parent)
    : SurgeryDialog(tr("Average %1 With\u2026").arg(QFileInfo(current).fileName()), {current},
                    suggestDestination(current, QStringLiteral("averaged")), parent),
      m_list(new QListWidget(this)), m_method(new QComboBox(this)), m_decay(new QDoubleSpinBox(this)),
      m_slerp(new QDoubleSpinBox(this)), m_weightsOnly(new QCheckBox(tr("&Weights only (drop the optimizer's state)"), this)) {
    // Sources of another structure are refused before anything runs.
    setDestinationCheck(judgeAverageDestination);
    auto* hint = new QLabel(tr("Check the checkpoints of the run to average %1 with:").arg(QFileInfo(current).fileName()), this);
    hint->setWordWrap(true);
    content()->addWidget(hint);
    m_list->setAccessibleName(tr("Checkpoints to average"));
    for (const QString& prefix : candidates) {
        auto* item = new QListWidgetItem(QFileInfo(prefix).fileName(), m_list);
        item->setData(Qt::UserRole, prefix);
        item->setToolTip(prefix);
        if (prefix == current) {
            // The open checkpoint is the average's first source by definition.
            item->setFlags(item->flags() & ~(Qt::ItemIsUserCheckable | Qt::ItemIsEnabled));
            item->setCheckState(Qt::Checked);
            item->setText(tr("%1 (open)").arg(item->text()));
        } else {
            item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
            item->setCheckState(Qt::Unchecked);
        }
    }
    content()->addWidget(m_list, 1);

    m_method->addItem(tr("Mean (equal weights)"), static_cast<int>(AverageMethod::Mean));
    m_method->addItem(tr("Exponential moving average, in step order"), static_cast<int>(AverageMethod::Ema));
    m_method->addItem(tr("Spherical interpolation (two checkpoints)"), static_cast<int>(AverageMethod::Slerp));
    m_decay->setRange(0.0, 1.0);
    m_decay->setDecimals(4);
    m_decay->setSingleStep(0.01);
    m_decay->setValue(AverageSpec{}.emaDecay);
    m_decay->setPrefix(tr("decay "));
    m_slerp->setRange(0.0, 1.0);
    m_slerp->setDecimals(3);
    m_slerp->setSingleStep(0.05);
    m_slerp->setValue(AverageSpec{}.slerpT);
    m_slerp->setPrefix(tr("t "));
    m_slerp->setToolTip(tr("0 gives the older checkpoint, 1 the newer"));
    auto* methodRow = new QHBoxLayout;
    methodRow->addWidget(m_method, 1);
    methodRow->addWidget(m_decay);
    methodRow->addWidget(m_slerp);
    auto* form = new QFormLayout;
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    auto* methodLabel = new QLabel(tr("&Method:"), this);
    methodLabel->setBuddy(m_method);
    form->addRow(methodLabel, methodRow);
    form->addRow(m_weightsOnly);
    content()->addLayout(form);

    auto showMethodFields = [this] {
        const auto method = static_cast<AverageMethod>(m_method->currentData().toInt());
        m_decay->setVisible(method == AverageMethod::Ema);
        m_slerp->setVisible(method == AverageMethod::Slerp);
    };
    showMethodFields();
    connect(m_method, &QComboBox::currentIndexChanged, this, [this, showMethodFields] {
        showMethodFields();
        updateVerdict();
    });
    connect(m_list, &QListWidget::itemChanged, this, &AverageDialog::selectionEdited);
    updateVerdict();
    resize(640, 560);
}

AverageSpec AverageDialog::spec() const {
    AverageSpec spec;
    spec.method = static_cast<AverageMethod>(m_method->currentData().toInt());
    spec.emaDecay = m_decay->value();
    spec.slerpT = m_slerp->value();
    spec.weightsOnly = m_weightsOnly->isChecked();
    return spec;
}

bool AverageDialog::check(const QString& prefix, bool checked) {
    for (int r = 0; r < m_list->count(); ++r) {
        QListWidgetItem* item = m_list->item(r);
        if (item->data(Qt::UserRole).toString() != prefix || !(item->flags() & Qt::ItemIsUserCheckable)) continue;
        item->setCheckState(checked ? Qt::Checked : Qt::Unchecked);
        return true;
    }
    return false;
}

void AverageDialog::selectionEdited() {
    QStringList sources;
    for (int r = 0; r < m_list->count(); ++r)
        if (m_list->item(r)->checkState() == Qt::Checked) sources << m_list->item(r)->data(Qt::UserRole).toString();
    setSources(sources);
    updateVerdict();
}

QString AverageDialog::fieldsReason() const {
    const auto n = sources().size();
    if (n < 2) return tr("Check at least one other checkpoint to average with.");
    if (static_cast<AverageMethod>(m_method->currentData().toInt()) == AverageMethod::Slerp && n != 2)
        return tr("Spherical interpolation takes exactly two checkpoints (%1 are checked).").arg(n);
    return {};
}

}  // namespace ckpt::ui
