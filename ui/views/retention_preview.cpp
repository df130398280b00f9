#include "views/retention_preview.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDateTime>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QMessageBox>
#include <QPushButton>
#include <QResizeEvent>
#include <QSignalBlocker>
#include <QSplitter>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>

#include "jobs/job_pool.h"
#include "jobs/job_tracker.h"
#include "jobs/schedule_jobs.h"
#include "jobs/when_done.h"
#include "models/retention_plan_model.h"
#include "views/retention_policy_editor.h"
#include "views/wrap_text_delegate.h"
#include "style/text_format.h"

namespace ckpt::ui {
namespace {

// Long enough to type "12" into a box without planning for "1" first.
constexpr int kPlanDelayMs = 300;
// Names listed in the confirmation before "and N more".
constexpr int kConfirmNames = 15;

QString byteSize(uint64_t bytes) { return formatBytes(static_cast<int64_t>(bytes)); }

double nowSeconds() { return static_cast<double>(QDateTime::currentMSecsSinceEpoch()) / 1000.0; }

}  // namespace

RetentionPreview::RetentionPreview(JobTracker* jobs, QWidget* parent)
    : QWidget(parent), m_jobs(jobs), m_dir(new QLineEdit(this)), m_editor(new RetentionPolicyEditor(this)),
      m_owner(new QComboBox(this)), m_adopt(new QCheckBox(tr("Adopt checkpoints &without metadata"), this)),
      m_model(new RetentionPlanModel(this)), m_table(new QTableView(this)), m_totals(new QLabel(this)),
      m_status(new QLabel(this)), m_apply(new QPushButton(tr("&Apply\u2026"), this)), m_debounce(new QTimer(this)) {
    m_dir->setPlaceholderText(tr("A checkpoint directory (the sidebar's, once one is open)"));
    m_dir->setAccessibleName(tr("Directory to plan"));
    auto* browse = new QPushButton(tr("&Browse\u2026"), this);
    connect(browse, &QPushButton::clicked, this, [this] {
        const QString dir = QFileDialog::getExistingDirectory(this, tr("Directory to Plan"), directory());
        if (!dir.isEmpty()) setDirectory(dir);
    });
    connect(m_dir, &QLineEdit::editingFinished, this, [this] {
        if (m_dir->isModified()) setDirectory(m_dir->text());
    });
    auto* top = new QHBoxLayout;
    top->addWidget(new QLabel(tr("Directory:"), this));
    top->addWidget(m_dir, 1);
    top->addWidget(browse);

    m_owner->setEditable(true);
    m_owner->lineEdit()->setPlaceholderText(tr("owner of the newest checkpoint"));
    m_owner->setToolTip(tr("Only this owner's checkpoints are deleted; others are left alone"));
    m_owner->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_owner->setMinimumContentsLength(12);
    m_adopt->setToolTip(tr("Treat checkpoints written without metadata (by TensorFlow or another tool) as this owner's"));
    auto* ownership = new QFormLayout;
    ownership->addRow(tr("&Owner:"), m_owner);
    ownership->addRow(m_adopt);

    auto* policyPane = new QWidget(this);
    auto* policyLayout = new QVBoxLayout(policyPane);
    policyLayout->setContentsMargins(0, 0, 0, 0);
    policyLayout->addWidget(m_editor);
    policyLayout->addLayout(ownership);
    policyLayout->addStretch();

    m_table->setModel(m_model);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setAlternatingRowColors(false);  // the verdict colours the rows
    m_table->verticalHeader()->hide();
    // Every column as wide as its contents, but the reason never wider than
    // what the viewport has beside the name and verdict: a longer one wraps
    // onto more lines of its row (stretched, it was squeezed to "…"; as wide
    // as its text, it ran out of view in a 1024 px window). Owners are run
    // ids that embed a path: last, taking what is left, elided in the middle
    // (the tooltip has it whole); step, time, size and owner scroll into
    // view in a narrow table.
    m_table->setWordWrap(true);
    m_table->setItemDelegateForColumn(RetentionPlanModel::OwnerColumn, new WrapTextDelegate(false, m_table));
    QHeaderView* header = m_table->horizontalHeader();
    header->setSectionResizeMode(QHeaderView::ResizeToContents);
    header->setSectionResizeMode(RetentionPlanModel::WhyColumn, QHeaderView::Interactive);
    header->setSectionResizeMode(RetentionPlanModel::OwnerColumn, QHeaderView::Stretch);
    header->setMinimumSectionSize(60);
    m_table->viewport()->installEventFilter(this);
    m_table->setTextElideMode(Qt::ElideMiddle);
    m_table->setAccessibleName(tr("Retention plan"));

    m_totals->setWordWrap(true);
    m_totals->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_apply->setToolTip(tr("Delete the checkpoints marked \u201cdelete\u201d, after confirmation"));
    auto* bottom = new QHBoxLayout;
    bottom->addWidget(m_totals, 1);
    bottom->addWidget(m_apply, 0, Qt::AlignTop);
    auto* planPane = new QWidget(this);
    auto* planLayout = new QVBoxLayout(planPane);
    planLayout->setContentsMargins(0, 0, 0, 0);
    planLayout->addWidget(m_table, 1);
    planLayout->addWidget(m_status);
    planLayout->addLayout(bottom);

    auto* split = new QSplitter(this);
    split->addWidget(policyPane);
    split->addWidget(planPane);
    split->setStretchFactor(0, 0);
    split->setStretchFactor(1, 1);
    split->setChildrenCollapsible(false);
    split->setSizes({330, 900});  // the plan's rule column wants the room

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addWidget(split, 1);

    m_debounce->setSingleShot(true);
    m_debounce->setInterval(kPlanDelayMs);
    connect(m_debounce, &QTimer::timeout, this, &RetentionPreview::startPlan);
    connect(m_editor, &RetentionPolicyEditor::policyChanged, this, &RetentionPreview::schedulePlan);
    connect(m_owner, &QComboBox::currentTextChanged, this, &RetentionPreview::schedulePlan);
    connect(m_adopt, &QCheckBox::toggled, this, &RetentionPreview::schedulePlan);
    connect(m_apply, &QPushButton::clicked, this, &RetentionPreview::confirmAndApply);
    RetentionPolicy initial;
    initial.keepLatest = 3;  // something to preview before the first edit
    m_editor->setPolicy(initial);
    setStatus({});
    updateApplyButton();
}

RetentionPreview::~RetentionPreview() {
    if (m_planJob) m_planJob->cancel();
}

void RetentionPreview::setDirectory(const QString& dir) {
    m_userChoseDirectory = true;
    m_dir->setText(QDir::toNativeSeparators(dir));
    m_dir->setModified(false);
    replan();
}

void RetentionPreview::suggestDirectory(const QString& dir) {
    if (m_userChoseDirectory || directory() == dir) return;
    m_dir->setText(QDir::toNativeSeparators(dir));
    replan();
}

QString RetentionPreview::directory() const { return QDir::fromNativeSeparators(m_dir->text().trimmed()); }

void RetentionPreview::setOwner(const QString& owner) { m_owner->setCurrentText(owner); }

void RetentionPreview::setPolicy(const RetentionPolicy& policy) {
    m_editor->setPolicy(policy);
    schedulePlan();
}

const RetentionPolicy& RetentionPreview::policy() const { return m_editor->policy(); }

void RetentionPreview::replan() {
    m_debounce->stop();
    m_pending = true;
    startPlan();
}

void RetentionPreview::schedulePlan() {
    m_applyOutcome.clear();  // an edit starts a new plan; the last deletion is history
    m_pending = true;
    updateApplyButton();
    m_debounce->start();
}

void RetentionPreview::showEvent(QShowEvent* event) {
    QWidget::showEvent(event);
    if (m_pending && !m_debounce->isActive()) startPlan();
}

void RetentionPreview::startPlan() {
    updateApplyButton();
    if (!isVisible()) return;  // showEvent plans once the tab is looked at
    if (!m_editor->isValid()) {
        m_pending = false;
        setStatus(tr("The policy is not valid: the plan shown is the last valid policy's."));
        updateApplyButton();
        return;
    }
    if (directory().isEmpty()) {
        m_pending = false;
        setStatus(tr("Open a checkpoint directory, or choose one above, to see what the policy keeps."));
        updateApplyButton();
        return;
    }
    if (m_planJob) m_planJob->cancel();
    RetentionPreviewRequest request;
    request.directory = directory();
    request.policy = m_editor->policy();
    request.owner = m_owner->currentText().trimmed();
    request.adoptForeign = m_adopt->isChecked();
    request.now = nowSeconds();
    const quint64 generation = ++m_generation;
    auto job = m_jobs->start(tr("Planning retention for %1").arg(QFileInfo(request.directory).fileName()));
    m_planJob = job;
    m_pending = false;
    whenDone(this, QtConcurrent::run(jobPool(), planRetentionPreview, request),
             [this, job, generation](const RetentionPreviewResult& r) {
                 m_jobs->finish(job);
                 if (generation != m_generation) return;
                 m_planJob.reset();
                 onPlanned(r);
             });
}

void RetentionPreview::onPlanned(const RetentionPreviewResult& r) {
    if (!r.plan) {
        m_model->setPlan(nullptr);
        m_totals->clear();
        setStatus(r.error);
        updateApplyButton();
        emit planned(false);
        return;
    }
    {
        // The owners found are offered; the typed (or automatic) one stays.
        const QSignalBlocker block(m_owner);
        const QString typed = m_owner->currentText();
        m_owner->clear();
        m_owner->addItems(r.owners);
        m_owner->setCurrentText(typed);
        m_owner->lineEdit()->setPlaceholderText(r.owner.isEmpty() ? tr("nobody: nothing is owned")
                                                                  : tr("%1 (newest checkpoint's)").arg(r.owner));
    }
    m_model->setPlan(r.plan);
    fitReasonColumn();
    const RetentionPlan& p = *r.plan;
    m_totals->setText(
        tr("%n checkpoint(s): keep %1 (%2), delete %3 (%4), leave alone %5 (%6)", nullptr, static_cast<int>(p.decisions.size()))
            .arg(p.kept)
            .arg(byteSize(p.keptBytes))
            .arg(p.deleted)
            .arg(byteSize(p.deletedBytes))
            .arg(p.leftAlone)
            .arg(byteSize(p.leftAloneBytes)));
    QStringList notes;
    if (!m_applyOutcome.isEmpty()) notes << m_applyOutcome;
    for (const std::string& n : p.notes) notes << QString::fromStdString(n);
    if (r.owner.isEmpty() && !m_adopt->isChecked())
        notes << tr("No checkpoint here records an owner: nothing will be deleted unless they are adopted.");
    setStatus(notes.join(QLatin1Char('\n')));
    updateApplyButton();
    emit planned(true);
}

bool RetentionPreview::eventFilter(QObject* watched, QEvent* event) {
    if (watched == m_table->viewport() && event->type() == QEvent::Resize) {
        const auto* resize = static_cast<QResizeEvent*>(event);
        if (resize->size().width() != resize->oldSize().width()) fitReasonColumn();
    }
    return QWidget::eventFilter(watched, event);
}

// The reason column: its text's width, or what the viewport has beside the
// name and verdict, whichever is less (never under a readable floor); rows
// grow to the lines their reason wraps onto. Rows are checkpoints of one
// directory, never a tensor's elements.
void RetentionPreview::fitReasonColumn() {
    constexpr int kReasonFloor = 160;
    QHeaderView* header = m_table->horizontalHeader();
    const QAbstractItemView* view = m_table;
    auto contentsWidth = [&](int column) { return std::max(view->sizeHintForColumn(column), header->sectionSizeHint(column)); };
    const int beside = contentsWidth(RetentionPlanModel::NameColumn) + contentsWidth(RetentionPlanModel::VerdictColumn);
    const int room = std::max(kReasonFloor, m_table->viewport()->width() - beside);
    header->resizeSection(RetentionPlanModel::WhyColumn, std::min(contentsWidth(RetentionPlanModel::WhyColumn), room));
    m_table->resizeRowsToContents();
}

void RetentionPreview::setStatus(const QString& text) {
    m_status->setText(text);
    m_status->setVisible(!text.isEmpty());
}

void RetentionPreview::updateApplyButton() {
    const auto& plan = m_model->plan();
    // Only the plan on screen is ever applied, and only while it matches the editor.
    m_apply->setEnabled(plan && plan->deleted > 0 && m_editor->isValid() && !m_pending && !m_planJob && !m_applyJob);
}

void RetentionPreview::confirmAndApply() {
    const std::shared_ptr<const RetentionPlan> plan = m_model->plan();
    if (!plan || plan->deleted == 0) return;
    QStringList names, prefixes;
    for (const RetentionDecision& d : plan->decisions) {
        if (d.verdict != RetentionVerdict::Delete) continue;
        names << QString::fromStdString(d.candidate.name);
        prefixes << QString::fromStdString(d.candidate.prefix);
    }
    QString list = names.mid(0, kConfirmNames).join(QLatin1Char('\n'));
    if (names.size() > kConfirmNames) list += QLatin1Char('\n') + tr("\u2026and %1 more").arg(names.size() - kConfirmNames);
    QMessageBox box(QMessageBox::Warning, tr("Delete Checkpoints"),
                    tr("Delete %n checkpoint(s) (%1) from %2?", nullptr, static_cast<int>(plan->deleted))
                        .arg(byteSize(plan->deletedBytes), directory()),
                    QMessageBox::NoButton, this);
    box.setInformativeText(list);
    box.setDetailedText(prefixes.join(QLatin1Char('\n')));
    QPushButton* remove = box.addButton(tr("Delete"), QMessageBox::DestructiveRole);
    remove->setObjectName(QStringLiteral("confirmDelete"));
    box.setDefaultButton(box.addButton(QMessageBox::Cancel));
    box.exec();
    if (box.clickedButton() != remove) return;

    auto job = m_jobs->start(tr("Deleting %n checkpoint(s)", nullptr, static_cast<int>(plan->deleted)));
    m_applyJob = job;
    updateApplyButton();
    const QString dir = directory();
    whenDone(this, QtConcurrent::run(jobPool(), applyRetentionPlan, plan), [this, job, dir](const RetentionApplyResult& r) {
        m_jobs->finish(job);
        m_applyJob.reset();
        m_applyOutcome = r.error.isEmpty()
                             ? tr("Deleted %n checkpoint(s), %1 freed.", nullptr, static_cast<int>(r.deleted.size()))
                                   .arg(byteSize(r.bytesFreed))
                             : tr("Deleted %n checkpoint(s), then: %1", nullptr, static_cast<int>(r.deleted.size())).arg(r.error);
        replan();
        if (!r.deleted.isEmpty()) emit applied(dir, static_cast<int>(r.deleted.size()));
    });
}

}  // namespace ckpt::ui
