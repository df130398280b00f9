#include "views/retention_policy_editor.h"
#include "style/status_colors.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFontDatabase>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QJsonDocument>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QTabWidget>
#include <QVBoxLayout>

#include <cmath>

namespace ckpt::ui {
namespace {

constexpr double kSecondsPerHour = 3600.0;

QString prettyJson(const std::string& json) {
    const QJsonDocument doc = QJsonDocument::fromJson(QByteArray::fromStdString(json));
    return doc.isNull() ? QString::fromStdString(json) : QString::fromUtf8(doc.toJson(QJsonDocument::Indented)).trimmed();
}

QString statusText(const Status& status) { return status.isOk() ? QString() : QString::fromStdString(status.message()); }

}  // namespace

RetentionPolicyEditor::RetentionPolicyEditor(QWidget* parent)
    : QWidget(parent), m_pages(new QTabWidget(this)), m_keepLatest(countBox(QStringLiteral("keep_latest"), 1'000'000)),
      m_onePerHours(hoursBox(QStringLiteral("keep_one_per_hours"))),
      m_everySteps(countBox(QStringLiteral("keep_every_steps"), 2'000'000'000)),
      m_within(hoursBox(QStringLiteral("keep_within"))), m_hourly(countBox(QStringLiteral("keep_hourly"), 100'000)),
      m_daily(countBox(QStringLiteral("keep_daily"), 100'000)), m_weekly(countBox(QStringLiteral("keep_weekly"), 10'000)),
      m_monthly(countBox(QStringLiteral("keep_monthly"), 10'000)), m_bestMetric(new QLineEdit(this)),
      m_bestCount(countBox(QStringLiteral("best_count"), 100'000)), m_bestMode(new QComboBox(this)), m_tags(new QLineEdit(this)),
      m_minAge(hoursBox(QStringLiteral("min_age"))), m_diskBudget(new QLineEdit(this)), m_json(new QPlainTextEdit(this)),
      m_errorLabel(new QLabel(this)) {
    m_pages->addTab(rulesPage(), tr("Rules"));

    m_json->setObjectName(QStringLiteral("policy_json"));
    m_json->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_json->setTabChangesFocus(true);
    m_pages->addTab(m_json, tr("JSON"));

    m_errorLabel->setWordWrap(true);
    m_errorLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_errorLabel->setStyleSheet(statusTextStyle(StatusTone::Bad));
    m_errorLabel->hide();

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_pages);
    layout->addWidget(m_errorLabel);

    connectEdits();
    setPolicy({});
}

// The Rules tab: one row per rule, the calendar buckets two to a row.
QWidget* RetentionPolicyEditor::rulesPage() {
    auto* form = new QWidget(m_pages);
    auto* rules = new QFormLayout(form);
    rules->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    rules->addRow(tr("Keep &latest:"), m_keepLatest);
    rules->addRow(tr("One &per:"), m_onePerHours);
    rules->addRow(tr("Every N &steps:"), m_everySteps);
    rules->addRow(tr("Saved &within:"), m_within);
    // Two buckets a row keeps the pane narrow enough to leave the plan room.
    auto calendarRow = [&](const QString& label, QSpinBox* first, const QString& firstName, QSpinBox* second,
                           const QString& secondName) {
        auto* layout = new QHBoxLayout;
        for (auto [box, name] : {std::pair{first, firstName}, {second, secondName}}) {
            box->setToolTip(tr("Keep the newest checkpoint of each of the last N %1 periods").arg(name));
            box->setAccessibleName(name);
            layout->addWidget(box);
        }
        auto* text = new QLabel(label, form);
        text->setBuddy(first);
        rules->addRow(text, layout);
    };
    calendarRow(tr("&Hourly / daily:"), m_hourly, tr("hourly"), m_daily, tr("daily"));
    calendarRow(tr("Weekl&y / monthly:"), m_weekly, tr("weekly"), m_monthly, tr("monthly"));
    m_bestMetric->setObjectName(QStringLiteral("best_metric"));
    m_bestMetric->setPlaceholderText(tr("metric, e.g. val_loss"));
    m_bestMode->setObjectName(QStringLiteral("best_mode"));
    m_bestMode->addItem(tr("min"), static_cast<int>(BestRule::Mode::Min));
    m_bestMode->addItem(tr("max"), static_cast<int>(BestRule::Mode::Max));
    m_bestCount->setSpecialValueText({});
    m_bestCount->setMinimum(1);
    rules->addRow(tr("&Best by:"), m_bestMetric);
    auto* best = new QHBoxLayout;
    best->addWidget(m_bestCount, 1);
    best->addWidget(m_bestMode, 1);
    auto* bestLabel = new QLabel(tr("Best count, &order:"), form);
    bestLabel->setBuddy(m_bestCount);
    rules->addRow(bestLabel, best);
    m_tags->setObjectName(QStringLiteral("keep_tags"));
    m_tags->setPlaceholderText(tr("pin, release"));
    rules->addRow(tr("Pinned &tags:"), m_tags);
    rules->addRow(tr("&Minimum age:"), m_minAge);
    m_diskBudget->setObjectName(QStringLiteral("disk_budget"));
    m_diskBudget->setPlaceholderText(tr("none, or e.g. 500MB, 2GiB"));
    rules->addRow(tr("&Disk budget:"), m_diskBudget);
    return form;
}

void RetentionPolicyEditor::connectEdits() {
    // Each box writes only its own rule, so rules the form shows rounded
    // (seconds as hours) stay exact until their own box is edited.
    auto onEdit = [this](auto* box, auto signal, auto apply) {
        connect(box, signal, this, [this, apply] {
            if (m_updating) return;
            apply();
            formEdited();
        });
    };
    auto count = [](QSpinBox* b) { return b->value() > 0 ? std::optional<int>(b->value()) : std::nullopt; };
    auto hours = [](QDoubleSpinBox* b) { return b->value() > 0 ? std::optional<double>(b->value()) : std::nullopt; };
    onEdit(m_keepLatest, &QSpinBox::valueChanged, [=, this] { m_policy.keepLatest = count(m_keepLatest); });
    onEdit(m_onePerHours, &QDoubleSpinBox::valueChanged, [=, this] { m_policy.keepOnePerHours = hours(m_onePerHours); });
    onEdit(m_everySteps, &QSpinBox::valueChanged, [=, this] { m_policy.keepEverySteps = count(m_everySteps); });
    onEdit(m_within, &QDoubleSpinBox::valueChanged, [=, this] {
        const auto h = hours(m_within);
        m_policy.keepWithinSeconds = h ? std::optional<double>(*h * kSecondsPerHour) : std::nullopt;
    });
    onEdit(m_hourly, &QSpinBox::valueChanged, [this] { m_policy.calendar.hourly = m_hourly->value(); });
    onEdit(m_daily, &QSpinBox::valueChanged, [this] { m_policy.calendar.daily = m_daily->value(); });
    onEdit(m_weekly, &QSpinBox::valueChanged, [this] { m_policy.calendar.weekly = m_weekly->value(); });
    onEdit(m_monthly, &QSpinBox::valueChanged, [this] { m_policy.calendar.monthly = m_monthly->value(); });
    auto applyBest = [this] {
        const QString metric = m_bestMetric->text().trimmed();
        if (metric.isEmpty()) {
            m_policy.best.reset();
            return;
        }
        BestRule rule = m_policy.best.value_or(BestRule{});
        rule.metric = metric.toStdString();
        rule.count = m_bestCount->value();
        rule.mode = static_cast<BestRule::Mode>(m_bestMode->currentData().toInt());
        m_policy.best = rule;
    };
    onEdit(m_bestMetric, &QLineEdit::textEdited, applyBest);
    onEdit(m_bestCount, &QSpinBox::valueChanged, applyBest);
    onEdit(m_bestMode, &QComboBox::currentIndexChanged, applyBest);
    onEdit(m_tags, &QLineEdit::textEdited, [this] {
        m_policy.keepTags.clear();
        for (const QString& tag : m_tags->text().split(QLatin1Char(','), Qt::SkipEmptyParts))
            if (!tag.trimmed().isEmpty()) m_policy.keepTags.push_back(tag.trimmed().toStdString());
    });
    onEdit(m_minAge, &QDoubleSpinBox::valueChanged, [this] { m_policy.minAgeSeconds = m_minAge->value() * kSecondsPerHour; });
    onEdit(m_diskBudget, &QLineEdit::textEdited, [] {});  // parsed in formEdited(): it can fail
    connect(m_json, &QPlainTextEdit::textChanged, this, [this] {
        if (!m_updating) jsonEdited();
    });
}

QSpinBox* RetentionPolicyEditor::countBox(const QString& name, int max) {
    auto* box = new QSpinBox(this);
    box->setObjectName(name);
    box->setRange(0, max);
    box->setSpecialValueText(tr("off"));
    return box;
}

QDoubleSpinBox* RetentionPolicyEditor::hoursBox(const QString& name) {
    auto* box = new QDoubleSpinBox(this);
    box->setObjectName(name);
    box->setRange(0, 1'000'000);
    box->setDecimals(2);
    box->setSuffix(tr(" h"));
    box->setSpecialValueText(tr("off"));
    return box;
}

void RetentionPolicyEditor::setPolicy(const RetentionPolicy& policy) {
    m_policy = policy;
    showPolicyInForm();
    m_updating = true;
    m_json->setPlainText(prettyJson(retentionPolicyToJson(m_policy)));
    m_updating = false;
    setError(statusText(validateRetentionPolicy(m_policy)));
}

void RetentionPolicyEditor::showPolicyInForm() {
    m_updating = true;
    const RetentionPolicy& p = m_policy;
    m_keepLatest->setValue(p.keepLatest.value_or(0));
    m_onePerHours->setValue(p.keepOnePerHours.value_or(0));
    m_everySteps->setValue(static_cast<int>(std::min<int64_t>(p.keepEverySteps.value_or(0), m_everySteps->maximum())));
    m_within->setValue(p.keepWithinSeconds.value_or(0) / kSecondsPerHour);
    m_hourly->setValue(p.calendar.hourly);
    m_daily->setValue(p.calendar.daily);
    m_weekly->setValue(p.calendar.weekly);
    m_monthly->setValue(p.calendar.monthly);
    m_bestMetric->setText(p.best ? QString::fromStdString(p.best->metric) : QString());
    m_bestCount->setValue(p.best ? p.best->count : 1);
    m_bestMode->setCurrentIndex(m_bestMode->findData(static_cast<int>(p.best ? p.best->mode : BestRule::Mode::Min)));
    QStringList tags;
    for (const std::string& t : p.keepTags) tags << QString::fromStdString(t);
    m_tags->setText(tags.join(QStringLiteral(", ")));
    m_minAge->setValue(p.minAgeSeconds / kSecondsPerHour);
    // Bytes as the engine reads them back; a round number of MiB reads better.
    if (!p.diskBudgetBytes) m_diskBudget->clear();
    else if (*p.diskBudgetBytes % (1024 * 1024) == 0)
        m_diskBudget->setText(QStringLiteral("%1MiB").arg(*p.diskBudgetBytes >> 20));
    else m_diskBudget->setText(QString::number(*p.diskBudgetBytes));
    m_updating = false;
}

void RetentionPolicyEditor::formEdited() {
    QString error;
    const QString budget = m_diskBudget->text().trimmed();
    if (budget.isEmpty()) {
        m_policy.diskBudgetBytes.reset();
    } else if (auto bytes = parseByteSize(budget.toStdString()); bytes.ok()) {
        m_policy.diskBudgetBytes = *bytes;
    } else {
        error = tr("Disk budget: %1").arg(statusText(bytes.status()));
    }
    m_updating = true;
    m_json->setPlainText(prettyJson(retentionPolicyToJson(m_policy)));
    m_updating = false;
    setError(error.isEmpty() ? statusText(validateRetentionPolicy(m_policy)) : error);
    emit policyChanged();
}

void RetentionPolicyEditor::jsonEdited() {
    auto parsed = parseRetentionPolicy(m_json->toPlainText().toStdString(), "policy JSON");
    if (!parsed.ok()) {
        setError(statusText(parsed.status()));
        emit policyChanged();
        return;
    }
    m_policy = std::move(*parsed);
    showPolicyInForm();
    setError(statusText(validateRetentionPolicy(m_policy)));
    emit policyChanged();
}

void RetentionPolicyEditor::setError(const QString& error) {
    m_error = error;
    m_errorLabel->setText(error);
    m_errorLabel->setVisible(!error.isEmpty());
}

}  // namespace ckpt::ui
