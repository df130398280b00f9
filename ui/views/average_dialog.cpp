#include "views/average_dialog.h"

#include "jobs/surgery_jobs.h"

#include "ckpt/bundle_naming.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QRegularExpression>
#include <QFileDialog>

namespace ckpt::ui {
namespace {

// The method box's entry for a mean with the user's weights (AverageMethod
// has no value of its own for it: a Mean with weights).
constexpr int kWeightedMean = -1;

QString titleFor(AverageDialog::Operation operation, const QString& current) {
    const QString name = QFileInfo(current).fileName();
    return operation == AverageDialog::Merge ? AverageDialog::tr("Merge %1 With\u2026").arg(name)
                                             : AverageDialog::tr("Average %1 With\u2026").arg(name);
}

// "1, 2 4" -> {1, 2, 4}; empty, with the first part that is no number in
// 'bad', when one is not.
std::vector<double> parseWeights(const QString& text, QString* bad) {
    static const QRegularExpression separators(QStringLiteral("[,;\\s]+"));
    std::vector<double> out;
    for (const QString& part : text.split(separators, Qt::SkipEmptyParts)) {
        bool ok = false;
        const double w = part.toDouble(&ok);
        if (!ok) {
            if (bad) *bad = part;
            return {};
        }
        out.push_back(w);
    }
    return out;
}

}  // namespace

AverageDialog::AverageDialog(const QString& current, const QStringList& candidates, QWidget* parent, Operation operation)
    : SurgeryDialog(titleFor(operation, current), {current},
                    suggestDestination(current, operation == Merge ? QStringLiteral("merged") : QStringLiteral("averaged")),
                    parent),
      m_operation(operation), m_list(new QListWidget(this)), m_method(new QComboBox(this)), m_decay(new QDoubleSpinBox(this)),
      m_slerp(new QDoubleSpinBox(this)), m_weightsOnly(new QCheckBox(tr("&Weights only (drop the optimizer's state)"), this)),
      m_weights(new QLineEdit(this)) {
    const QString name = QFileInfo(current).fileName();
    // Sources of another structure are refused before anything runs (a
    // merge's conflicting keys are named when it runs).
    if (operation == Average) setDestinationCheck(judgeAverageDestination);
    auto* hint = new QLabel(operation == Merge ? tr("Check the bundles to merge %1 with (disjoint keys, e.g. the shards "
                                                    "several workers wrote), or add them:")
                                                     .arg(name)
                                               : tr("Check the checkpoints of the run to average %1 with:").arg(name),
                            this);
    hint->setWordWrap(true);
    content()->addWidget(hint);
    m_list->setAccessibleName(operation == Merge ? tr("Checkpoints to merge") : tr("Checkpoints to average"));
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
    auto* add = new QPushButton(tr("&Add\u2026"), this);
    add->setToolTip(tr("List a checkpoint from another directory"));
    connect(add, &QPushButton::clicked, this, [this] {
        const QString index = QFileDialog::getOpenFileName(this, tr("Add Checkpoint"), QFileInfo(sources().constFirst()).path(),
                                                           tr("Checkpoint index (*.index)"));
        if (index.isEmpty()) return;
        // The engine's naming rule: a chosen .index (or data file) stands for its prefix.
        const std::string prefix = ckpt::bundlePrefixOf(index.toStdString());
        if (prefix != index.toStdString()) addSource(QString::fromStdString(prefix));
    });
    auto* addRow = new QHBoxLayout;
    addRow->addStretch(1);
    addRow->addWidget(add);
    content()->addLayout(addRow);

    m_method->addItem(tr("Mean (equal weights)"), static_cast<int>(AverageMethod::Mean));
    m_method->addItem(tr("Weighted mean (your weights)"), kWeightedMean);
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
    m_weights->setAccessibleName(tr("Weights"));
    m_weights->setPlaceholderText(tr("one per checked checkpoint, in the list's order, e.g. 1, 2, 4"));
    m_weights->setToolTip(tr("Normalized by their sum"));
    auto* weightsLabel = new QLabel(tr("W&eights:"), this);
    weightsLabel->setBuddy(m_weights);
    form->addRow(weightsLabel, m_weights);
    form->addRow(m_weightsOnly);
    // A merge takes every tensor as it is: no method, no weights.
    auto* options = new QWidget(this);
    options->setLayout(form);
    form->setContentsMargins(0, 0, 0, 0);
    options->setVisible(operation == Average);
    content()->addWidget(options);

    auto showMethodFields = [this, form] {
        m_decay->setVisible(method() == AverageMethod::Ema);
        m_slerp->setVisible(method() == AverageMethod::Slerp);
        form->setRowVisible(m_weights, m_method->currentData().toInt() == kWeightedMean);
    };
    showMethodFields();
    connect(m_method, &QComboBox::currentIndexChanged, this, [this, showMethodFields] {
        showMethodFields();
        updateVerdict();
    });
    connect(m_list, &QListWidget::itemChanged, this, &AverageDialog::selectionEdited);
    connect(m_weights, &QLineEdit::textChanged, this, &AverageDialog::updateVerdict);
    for (QDoubleSpinBox* box : {m_decay, m_slerp})
        connect(box, &QDoubleSpinBox::valueChanged, this, &AverageDialog::updateVerdict);
    updateVerdict();
    resize(640, 560);
}

AverageSpec AverageDialog::spec() const {
    AverageSpec spec;
    spec.method = method();
    spec.weights = weights();
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

void AverageDialog::addSource(const QString& prefix) {
    if (check(prefix)) return;
    for (int r = 0; r < m_list->count(); ++r)
        if (m_list->item(r)->data(Qt::UserRole).toString() == prefix) return;  // the open one
    auto* item = new QListWidgetItem(QFileInfo(prefix).fileName(), m_list);
    item->setData(Qt::UserRole, prefix);
    item->setToolTip(prefix);
    item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
    item->setCheckState(Qt::Checked);
    selectionEdited();
}

AverageMethod AverageDialog::method() const {
    const int choice = m_method->currentData().toInt();
    return choice == kWeightedMean ? AverageMethod::Mean : static_cast<AverageMethod>(choice);
}

std::vector<double> AverageDialog::weights() const {
    if (m_method->currentData().toInt() != kWeightedMean) return {};
    return parseWeights(m_weights->text(), nullptr);
}

QString AverageDialog::weightsReason() const {
    if (m_method->currentData().toInt() != kWeightedMean) return {};
    QString bad;
    if (parseWeights(m_weights->text(), &bad).empty() && bad.isEmpty())
        return tr("Type one weight per checked checkpoint, in the list's order.");
    return bad.isEmpty() ? QString() : tr("Weights: \u201c%1\u201d is not a number.").arg(bad);
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
    if (m_operation == Merge) return n < 2 ? tr("Check or add at least one other checkpoint to merge with.") : QString();
    if (n < 2) return tr("Check at least one other checkpoint to average with.");
    if (method() == AverageMethod::Slerp && n != 2)
        return tr("Spherical interpolation takes exactly two checkpoints (%1 are checked).").arg(n);
    if (QString reason = weightsReason(); !reason.isEmpty()) return reason;
    // The engine's rule for the rest (one weight per source, finite, adding up to more than 0).
    if (const Status s = checkAverageSpec(spec(), static_cast<size_t>(n)); !s.isOk()) return QString::fromStdString(s.message());
    return {};
}

}  // namespace ckpt::ui
