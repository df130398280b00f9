#include "views/schedule_dialog.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QTimer>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include <cmath>

#include "jobs/job_pool.h"
#include "jobs/schedule_jobs.h"
#include "jobs/when_done.h"
#include "views/retention_policy_editor.h"
#include "style/status_colors.h"

namespace ckpt::ui {
namespace {

// Short enough to feel immediate, long enough not to stat a path per keystroke.
constexpr int kCheckDelayMs = 150;

QString statusText(const Status& status) { return QString::fromStdString(status.message()); }

// "90" reads back as "90s", whole minutes/hours/days as "30m", "12h", "7d".
QString durationField(double seconds) {
    const auto whole = static_cast<long long>(std::llround(seconds));
    if (std::abs(seconds - static_cast<double>(whole)) > 1e-9 || whole <= 0) return QString::number(seconds);
    if (whole % 86400 == 0) return QStringLiteral("%1d").arg(whole / 86400);
    if (whole % 3600 == 0) return QStringLiteral("%1h").arg(whole / 3600);
    if (whole % 60 == 0) return QStringLiteral("%1m").arg(whole / 60);
    return QStringLiteral("%1s").arg(whole);
}

QPushButton* browseButton(QWidget* parent, QLineEdit* target, const QString& title) {
    auto* button = new QPushButton(ScheduleDialog::tr("Browse\u2026"), parent);
    QObject::connect(button, &QPushButton::clicked, parent, [parent, target, title] {
        const QString dir = QFileDialog::getExistingDirectory(parent, title, target->text());
        if (!dir.isEmpty()) target->setText(QDir::toNativeSeparators(dir));
    });
    return button;
}

QHBoxLayout* row(QWidget* field, QWidget* button) {
    auto* layout = new QHBoxLayout;
    layout->addWidget(field, 1);
    layout->addWidget(button);
    return layout;
}

}  // namespace

ScheduleDialog::ScheduleDialog(const Schedule& schedule, QWidget* parent)
    : QDialog(parent), m_original(schedule), m_name(new QLineEdit(this)), m_source(new QComboBox(this)),
      m_sourcePath(new QLineEdit(this)), m_destination(new QLineEdit(this)), m_interval(new QLineEdit(this)),
      m_everySteps(new QSpinBox(this)), m_demoSteps(new QSpinBox(this)), m_shardCount(new QSpinBox(this)),
      m_maxShardBytes(new QLineEdit(this)), m_async(new QCheckBox(tr("&Asynchronous saves"), this)),
      m_enabled(new QCheckBox(tr("&Enabled (the scheduler runs it when due)"), this)),
      m_retention(new RetentionPolicyEditor(this)), m_reason(new QLabel(this)),
      m_buttons(new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this)), m_debounce(new QTimer(this)) {
    setWindowTitle(schedule.id ? tr("Edit Schedule %1").arg(QString::fromStdString(schedule.name)) : tr("New Schedule"));

    m_name->setPlaceholderText(tr("letters, digits, '.', '_', '-'"));
    m_source->addItem(tr("Latest checkpoint of a directory"), static_cast<int>(ScheduleSource::Directory));
    m_source->addItem(tr("Demo training run"), static_cast<int>(ScheduleSource::DemoTrainer));
    m_sourcePath->setPlaceholderText(tr("the training run's checkpoint directory"));
    m_destination->setPlaceholderText(tr("where the copies go (created on the first run)"));
    m_interval->setPlaceholderText(tr("e.g. 90s, 30m, 12h, 7d"));
    m_everySteps->setRange(0, 1'000'000'000);
    m_everySteps->setSpecialValueText(tr("off"));
    m_everySteps->setToolTip(tr("Demo training: save every N training steps within a run"));
    m_demoSteps->setRange(1, 1'000'000);
    m_shardCount->setRange(0, 4096);
    m_shardCount->setSpecialValueText(tr("one per task"));
    m_maxShardBytes->setPlaceholderText(tr("none, or e.g. 64MiB"));

    auto* form = new QFormLayout;
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    form->addRow(tr("&Name:"), m_name);
    form->addRow(tr("&Source:"), m_source);
    m_browseSource = browseButton(this, m_sourcePath, tr("Source Directory"));
    // Rows whose field is a layout need their label's buddy set by hand.
    auto* sourceLabel = new QLabel(tr("Source &directory:"), this);
    sourceLabel->setBuddy(m_sourcePath);
    form->addRow(sourceLabel, row(m_sourcePath, m_browseSource));
    auto* destinationLabel = new QLabel(tr("Des&tination:"), this);
    destinationLabel->setBuddy(m_destination);
    form->addRow(destinationLabel, row(m_destination, browseButton(this, m_destination, tr("Destination Directory"))));
    form->addRow(tr("Run &every:"), m_interval);
    form->addRow(tr("Save every N ste&ps:"), m_everySteps);
    form->addRow(tr("Training steps per run:"), m_demoSteps);
    form->addRow(tr("S&hards:"), m_shardCount);
    form->addRow(tr("Ma&x shard size:"), m_maxShardBytes);
    form->addRow(m_async);
    form->addRow(m_enabled);

    auto* retentionBox = new QGroupBox(tr("Destination's retention"), this);
    auto* retentionLayout = new QVBoxLayout(retentionBox);
    retentionLayout->addWidget(m_retention);

    auto* columns = new QHBoxLayout;
    columns->addLayout(form, 1);
    columns->addWidget(retentionBox, 1);

    m_reason->setWordWrap(true);
    m_reason->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_reason->setAccessibleName(tr("Why the schedule is refused"));
    m_reason->setMinimumHeight(fontMetrics().lineSpacing() * 2);
    m_reason->setAlignment(Qt::AlignLeft | Qt::AlignTop);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(columns, 1);
    layout->addWidget(m_reason);
    layout->addWidget(m_buttons);
    connect(m_buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

    // Show the schedule given.
    m_name->setText(QString::fromStdString(schedule.name));
    m_source->setCurrentIndex(std::max(0, m_source->findData(static_cast<int>(schedule.source))));
    m_sourcePath->setText(QDir::toNativeSeparators(QString::fromStdString(schedule.sourcePath)));
    m_destination->setText(QDir::toNativeSeparators(QString::fromStdString(schedule.destination)));
    m_interval->setText(schedule.triggers.everySeconds ? durationField(*schedule.triggers.everySeconds) : QString());
    m_everySteps->setValue(
        static_cast<int>(std::min<int64_t>(schedule.triggers.everySteps.value_or(0), m_everySteps->maximum())));
    m_demoSteps->setValue(static_cast<int>(std::clamp<int64_t>(schedule.demoSteps, 1, m_demoSteps->maximum())));
    m_shardCount->setValue(schedule.sharding.shardCount.value_or(0));
    if (schedule.sharding.maxShardBytes) m_maxShardBytes->setText(QString::number(*schedule.sharding.maxShardBytes));
    m_async->setChecked(schedule.async);
    m_enabled->setChecked(schedule.enabled);
    m_retention->setPolicy(schedule.retention);

    for (QLineEdit* edit : {m_name, m_sourcePath, m_destination, m_interval, m_maxShardBytes})
        connect(edit, &QLineEdit::textChanged, this, &ScheduleDialog::fieldsEdited);
    for (QSpinBox* box : {m_everySteps, m_demoSteps, m_shardCount})
        connect(box, &QSpinBox::valueChanged, this, &ScheduleDialog::fieldsEdited);
    for (QCheckBox* box : {m_async, m_enabled}) connect(box, &QCheckBox::toggled, this, &ScheduleDialog::fieldsEdited);
    connect(m_source, &QComboBox::currentIndexChanged, this, &ScheduleDialog::fieldsEdited);
    connect(m_retention, &RetentionPolicyEditor::policyChanged, this, &ScheduleDialog::fieldsEdited);
    m_debounce->setSingleShot(true);
    m_debounce->setInterval(kCheckDelayMs);
    connect(m_debounce, &QTimer::timeout, this, &ScheduleDialog::startCheck);
    fieldsEdited();
    resize(920, 540);
}

QPushButton* ScheduleDialog::okButton() const { return m_buttons->button(QDialogButtonBox::Ok); }

QString ScheduleDialog::parseFields(Schedule* out) const {
    Schedule& s = *out;
    s = m_original;
    s.name = m_name->text().trimmed().toStdString();
    s.source = static_cast<ScheduleSource>(m_source->currentData().toInt());
    s.sourcePath = s.source == ScheduleSource::Directory
                       ? QDir::fromNativeSeparators(m_sourcePath->text().trimmed()).toStdString()
                       : std::string();
    s.destination = QDir::fromNativeSeparators(m_destination->text().trimmed()).toStdString();
    s.triggers.everySteps = m_everySteps->value() > 0 ? std::optional<int64_t>(m_everySteps->value()) : std::nullopt;
    s.demoSteps = m_demoSteps->value();
    s.sharding.shardCount = m_shardCount->value() > 0 ? std::optional<int>(m_shardCount->value()) : std::nullopt;
    s.async = m_async->isChecked();
    s.enabled = m_enabled->isChecked();
    s.retention = m_retention->policy();
    const QString interval = m_interval->text().trimmed();
    s.triggers.everySeconds.reset();
    if (!interval.isEmpty()) {
        auto seconds = parseDuration(interval.toStdString());
        if (!seconds.ok()) return tr("Run every: %1").arg(statusText(seconds.status()));
        s.triggers.everySeconds = *seconds;
    }
    const QString shardSize = m_maxShardBytes->text().trimmed();
    s.sharding.maxShardBytes.reset();
    if (!shardSize.isEmpty()) {
        auto bytes = parseByteSize(shardSize.toStdString());
        if (!bytes.ok()) return tr("Max shard size: %1").arg(statusText(bytes.status()));
        s.sharding.maxShardBytes = static_cast<int64_t>(*bytes);
    }
    if (!m_retention->isValid()) return tr("Retention: %1").arg(m_retention->error());
    return {};
}

Schedule ScheduleDialog::schedule() const {
    Schedule s;
    (void)parseFields(&s);
    return s;
}

QString ScheduleDialog::reason() const { return m_reasonText; }

void ScheduleDialog::fieldsEdited() {
    const bool directory = static_cast<ScheduleSource>(m_source->currentData().toInt()) == ScheduleSource::Directory;
    m_sourcePath->setEnabled(directory);
    m_browseSource->setEnabled(directory);
    m_demoSteps->setEnabled(!directory);
    ++m_generation;
    okButton()->setEnabled(false);  // until the engine has seen these fields
    m_debounce->start();
}

void ScheduleDialog::startCheck() {
    Schedule s;
    const quint64 generation = m_generation;
    if (QString local = parseFields(&s); !local.isEmpty()) {
        m_checkedGeneration = generation;
        setReason(local);
        emit checked(false);
        return;
    }
    whenDone(this, QtConcurrent::run(jobPool(), validateScheduleText, s), [this, generation](const QString& reason) {
        if (generation != m_generation) return;  // the fields changed meanwhile; a newer check follows
        m_checkedGeneration = generation;
        setReason(reason);
        emit checked(reason.isEmpty());
    });
}

void ScheduleDialog::setReason(const QString& reason) {
    m_reasonText = reason;
    m_reason->setText(reason.isEmpty() ? tr("The schedule is valid.") : reason);
    m_reason->setStyleSheet(statusTextStyle(reason.isEmpty() ? StatusTone::Good : StatusTone::Bad));
    okButton()->setEnabled(reason.isEmpty() && isChecked());
}

void ScheduleDialog::showError(const QString& error) {
    m_reasonText = error;
    m_reason->setText(error);
    m_reason->setStyleSheet(statusTextStyle(StatusTone::Bad));
}

}  // namespace ckpt::ui
