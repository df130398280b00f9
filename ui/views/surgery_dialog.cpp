#include "views/surgery_dialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QSpinBox>
#include <QTimer>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include "ckpt/location.h"
#include "ckpt/retention.h"
#include "jobs/job_pool.h"
#include "jobs/when_done.h"
#include "views/status_colors.h"

namespace ckpt::ui {
namespace {

// Long enough that typing a path does not start a check per key.
constexpr int kCheckDelayMs = 200;

}  // namespace

SurgeryDialog::SurgeryDialog(const QString& title, const QStringList& sources, const QString& suggested, QWidget* parent)
    : QDialog(parent), m_sources(sources),
      m_check([](const QString& d, const QStringList& s, const QStringList& o) { return judgeDestination(d, s, o); }),
      m_replaceNote(new QLabel(this)), m_content(new QVBoxLayout), m_form(new QFormLayout), m_destination(new QLineEdit(this)),
      m_sharding(new QComboBox(this)), m_shardCount(new QSpinBox(this)), m_maxShard(new QLineEdit(this)),
      m_reason(new QLabel(this)), m_buttons(new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this)),
      m_debounce(new QTimer(this)) {
    setWindowTitle(title);
    okButton()->setText(tr("&Write"));

    m_destination->setText(QDir::toNativeSeparators(suggested));
    m_destination->setAccessibleName(tr("Destination prefix"));
    m_destination->setToolTip(tr("The result's prefix: its .index and data files are written next to it"));
    auto* browse = new QPushButton(tr("&Browse\u2026"), this);
    connect(browse, &QPushButton::clicked, this, [this] {
        const QString path = QFileDialog::getSaveFileName(this, tr("Write Checkpoint As"), destination(), {}, nullptr,
                                                          QFileDialog::DontConfirmOverwrite);
        if (!path.isEmpty()) m_destination->setText(QDir::toNativeSeparators(path));
    });
    auto* destinationRow = new QHBoxLayout;
    destinationRow->addWidget(m_destination, 1);
    destinationRow->addWidget(browse);

    m_sharding->addItem(tr("One shard per task (TensorFlow's default)"), ByTask);
    m_sharding->addItem(tr("A fixed number of shards"), FixedCount);
    m_sharding->addItem(tr("At most this size per shard"), MaxSize);
    m_sharding->setAccessibleName(tr("Sharding"));
    m_shardCount->setRange(1, 4096);
    m_shardCount->setValue(2);
    m_shardCount->setSuffix(tr(" shards"));
    m_maxShard->setText(QStringLiteral("256MiB"));
    m_maxShard->setPlaceholderText(tr("e.g. 64MiB, 2GiB or bytes"));
    auto* shardingRow = new QHBoxLayout;
    shardingRow->addWidget(m_sharding, 1);
    shardingRow->addWidget(m_shardCount);
    shardingRow->addWidget(m_maxShard);
    auto showShardingFields = [this] {
        m_shardCount->setVisible(m_sharding->currentData().toInt() == FixedCount);
        m_maxShard->setVisible(m_sharding->currentData().toInt() == MaxSize);
    };
    showShardingFields();

    QFormLayout* form = m_form;
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    // Rows whose field is a layout need their label's buddy set by hand.
    auto* destinationLabel = new QLabel(tr("&Destination:"), this);
    destinationLabel->setBuddy(m_destination);
    form->addRow(destinationLabel, destinationRow);
    m_shardingLabel = new QLabel(tr("S&harding:"), this);
    m_shardingLabel->setBuddy(m_sharding);
    form->addRow(m_shardingLabel, shardingRow);

    m_reason->setWordWrap(true);
    m_reason->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_reason->setAccessibleName(tr("Why the result cannot be written"));
    m_reason->setStyleSheet(statusTextStyle(StatusTone::Bad));
    m_reason->setAlignment(Qt::AlignLeft | Qt::AlignTop);

    m_replaceNote->setWordWrap(true);
    m_replaceNote->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_replaceNote->setAccessibleName(tr("What writing replaces"));
    m_replaceNote->setStyleSheet(statusTextStyle(StatusTone::Warning));
    m_replaceNote->hide();

    auto* layout = new QVBoxLayout(this);
    // The notes that come and go sit above the destination, so the fields
    // below them keep their place (the subclass's fields shrink instead).
    layout->addLayout(m_content, 1);
    layout->addWidget(m_replaceNote);
    layout->addWidget(m_reason);
    layout->addLayout(form);
    layout->addWidget(m_buttons);
    connect(m_buttons, &QDialogButtonBox::accepted, this, &SurgeryDialog::accept);
    connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

    connect(m_destination, &QLineEdit::textChanged, this, &SurgeryDialog::destinationEdited);
    connect(m_sharding, &QComboBox::currentIndexChanged, this, [this, showShardingFields] {
        showShardingFields();
        updateVerdict();
    });
    connect(m_maxShard, &QLineEdit::textChanged, this, &SurgeryDialog::updateVerdict);
    m_debounce->setSingleShot(true);
    m_debounce->setInterval(kCheckDelayMs);
    connect(m_debounce, &QTimer::timeout, this, &SurgeryDialog::startCheck);
    destinationEdited();
}

QPushButton* SurgeryDialog::okButton() const { return m_buttons->button(QDialogButtonBox::Ok); }

QString SurgeryDialog::destination() const {
    QString text = QDir::fromNativeSeparators(m_destination->text().trimmed());
    // A URL goes to the engine as typed: an object store's key is literal,
    // an unknown scheme is refused by name, and QFileInfo would make
    // "s3://b/x" a local folder "s3:" under the working directory.
    if (text.isEmpty() || !locationScheme(text.toStdString()).empty()) return text;
    return QDir::cleanPath(QFileInfo(text).absoluteFilePath());
}

ShardingChoice SurgeryDialog::sharding() const {
    ShardingChoice choice;
    switch (m_sharding->currentData().toInt()) {
    case FixedCount: choice.shardCount = m_shardCount->value(); break;
    case MaxSize:
        if (auto bytes = parseByteSize(m_maxShard->text().trimmed().toStdString()); bytes.ok())
            choice.maxShardBytes = static_cast<int64_t>(*bytes);
        break;
    default: break;
    }
    return choice;
}

QString SurgeryDialog::shardingReason() const {
    if (m_sharding->currentData().toInt() != MaxSize) return {};
    auto bytes = parseByteSize(m_maxShard->text().trimmed().toStdString());
    if (!bytes.ok()) return tr("Shard size: %1").arg(QString::fromStdString(bytes.status().toString()));
    if (*bytes == 0) return tr("Shard size: must be more than 0 bytes");
    return {};
}

bool SurgeryDialog::isChecked() const { return m_checkedGeneration == m_generation && !fieldsPending(); }

void SurgeryDialog::setSources(const QStringList& sources) {
    if (sources == m_sources) return;
    m_sources = sources;
    destinationEdited();  // a destination is judged against the sources
}

void SurgeryDialog::setOpenCheckpoints(const QStringList& open) {
    if (open == m_open) return;
    m_open = open;
    destinationEdited();
}

void SurgeryDialog::accept() {
    if (!okButton()->isEnabled()) return;
    m_overwrite = false;
    if (m_verdict.exists) {
        // Named, with its step and size, before anything is replaced.
        QMessageBox box(QMessageBox::Warning, replaceQuestionTitle(m_verdict), replaceQuestionText(m_verdict),
                        QMessageBox::Cancel, this);
        box.setObjectName(QStringLiteral("replaceQuestion"));
        QPushButton* replace = box.addButton(tr("&Replace"), QMessageBox::DestructiveRole);
        box.setDefaultButton(QMessageBox::Cancel);
        box.exec();
        if (box.clickedButton() != replace) return;
        m_overwrite = true;
    }
    QDialog::accept();
}

void SurgeryDialog::setDestinationCheck(DestinationCheck check) {
    m_check = std::move(check);
    destinationEdited();
}

void SurgeryDialog::setShardingShown(bool shown) {
    m_form->setRowVisible(m_shardingLabel, shown);
    if (!shown) m_sharding->setCurrentIndex(m_sharding->findData(ByTask));
}

void SurgeryDialog::showWriteError(const QString& error) {
    destinationEdited();  // judged again: what failed may be visible now
    m_writeError = error;
    updateVerdict();
}

void SurgeryDialog::destinationEdited() {
    m_writeError.clear();
    ++m_generation;
    m_debounce->start();
    updateVerdict();
}

void SurgeryDialog::startCheck() {
    const quint64 generation = m_generation;
    whenDone(this, QtConcurrent::run(jobPool(), m_check, destination(), m_sources, m_open),
             [this, generation](const DestinationVerdict& verdict) {
                 if (generation != m_generation) return;  // edited meanwhile; a newer check follows
                 m_verdict = verdict;
                 m_destinationReason = verdict.refusal;
                 m_checkedGeneration = generation;
                 updateVerdict();
             });
}

void SurgeryDialog::updateVerdict() {
    QString reason = fieldsReason();
    if (reason.isEmpty() && m_checkedGeneration == m_generation) reason = m_destinationReason;
    if (reason.isEmpty()) reason = shardingReason();
    m_reasonText = reason;
    // The last write's failure stays shown (not blocking Write: a retry may
    // succeed) until a refusal replaces it or a field changes.
    m_reason->setText(reason.isEmpty() ? m_writeError : reason);
    const bool replaces = reason.isEmpty() && m_checkedGeneration == m_generation && m_verdict.exists;
    m_replaceNote->setText(replaces ? (m_verdict.checkpoint ? tr("A checkpoint is already there (%1): Write asks before "
                                                                 "replacing it.")
                                                            : tr("A file is already there (%1): Write asks before replacing it."))
                                          .arg(m_verdict.existing)
                                    : QString());
    m_replaceNote->setVisible(replaces);
    const bool ok = reason.isEmpty() && isChecked();
    okButton()->setEnabled(ok);
    if (isChecked()) emit checked(ok);
}

}  // namespace ckpt::ui
