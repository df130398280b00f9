#include "views/open_location_dialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QVBoxLayout>

#include "jobs/checkpoint_jobs.h"
#include "style/status_colors.h"

namespace ckpt::ui {

OpenLocationDialog::OpenLocationDialog(const QStringList& recent, QWidget* parent, Purpose purpose)
    : QDialog(parent), m_location(new QComboBox(this)), m_message(new QLabel(this)),
      m_buttons(new QDialogButtonBox(QDialogButtonBox::Cancel, this)), m_purpose(purpose) {
    const bool adding = purpose == Purpose::AddToCatalog;
    setObjectName(adding ? QStringLiteral("addLocationDialog") : QStringLiteral("openLocationDialog"));
    setWindowTitle(adding ? tr("Add Location to the Catalog") : tr("Open Location"));
    m_accept =
        adding ? m_buttons->addButton(tr("&Add"), QDialogButtonBox::AcceptRole) : m_buttons->addButton(QDialogButtonBox::Open);
    auto* layout = new QVBoxLayout(this);
    auto* prompt = new QLabel(adding ? tr("&Location of a run, or of a folder of runs, to catalogue:")
                                     : tr("&Location of a checkpoint or of a run (a folder of checkpoints):"),
                              this);
    prompt->setBuddy(m_location);
    layout->addWidget(prompt);
    m_location->setObjectName(QStringLiteral("location"));
    m_location->setEditable(true);
    m_location->setInsertPolicy(QComboBox::NoInsert);
    m_location->setMinimumContentsLength(48);
    m_location->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_location->setAccessibleName(tr("Location"));
    m_location->addItems(recent);
    m_location->setCurrentIndex(-1);
    m_location->lineEdit()->setPlaceholderText(adding ? QStringLiteral("s3://bucket/runs/")
                                                      : QStringLiteral("s3://bucket/run/ckpt-5"));
    m_location->setToolTip(tr("Recent locations are in the drop-down"));
    layout->addWidget(m_location);
    // A top-level window does not grow for wrapped text: room for two lines
    // of each note, so a longer message is never cut off.
    setMinimumWidth(560);
    const int twoLines = fontMetrics().lineSpacing() * 2 + 2;
    m_message->setObjectName(QStringLiteral("locationMessage"));
    m_message->setWordWrap(true);
    m_message->setMinimumHeight(twoLines);
    m_message->setAlignment(Qt::AlignLeft | Qt::AlignTop);
    m_message->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_message);
    auto* help = new QLabel(tr("s3://BUCKET/KEY, gs://BUCKET/KEY or a local path. Credentials, region and endpoint come "
                               "from the environment and ~/.aws, as for <code>ckpt</code>."),
                            this);
    help->setWordWrap(true);
    help->setMinimumHeight(twoLines);
    help->setAlignment(Qt::AlignLeft | Qt::AlignTop);
    help->setForegroundRole(QPalette::PlaceholderText);
    layout->addWidget(help);
    layout->addStretch();
    layout->addWidget(m_buttons);
    connect(m_buttons, &QDialogButtonBox::accepted, this, [this] {
        if (!canOpen()) return;
        const QString chosen = location();
        accept();
        emit locationChosen(chosen);
    });
    connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_location, &QComboBox::editTextChanged, this, &OpenLocationDialog::validate);
    validate();
}

QString OpenLocationDialog::location() const { return m_location->currentText().trimmed(); }

QString OpenLocationDialog::message() const { return m_message->text(); }

bool OpenLocationDialog::canOpen() const { return m_problem.isEmpty(); }

QString OpenLocationDialog::judge(const QString& text) {
    const QString t = text.trimmed();
    if (t.isEmpty()) return tr("Type a location, or pick a recent one.");
    // "s3:/bucket" or "s3:bucket" would be a local path beginning with a
    // folder "s3:": almost surely a mistyped URL, never what to open.
    static const QRegularExpression halfScheme(QStringLiteral("^([A-Za-z][A-Za-z0-9+.-]*):(?!//)"));
    if (const auto m = halfScheme.match(t); m.hasMatch() && m.captured(1).size() > 1)
        return tr("%1 is not a URL: write %2://BUCKET/KEY.").arg(t, m.captured(1).toLower());
    return locationTextProblem(t);
}

void OpenLocationDialog::validate() {
    m_problem = judge(location());
    m_accept->setEnabled(m_problem.isEmpty());
    if (!m_problem.isEmpty()) {
        // An empty box is no mistake: a hint, not an error.
        const bool empty = location().isEmpty();
        m_message->setText(m_problem);
        m_message->setStyleSheet(empty ? QString() : statusTextStyle(StatusTone::Bad));
        return;
    }
    const bool remote = isRemoteLocation(location());
    if (m_purpose == Purpose::AddToCatalog)
        m_message->setText(remote ? tr("Scanned in the background: only each checkpoint's index is read, and Catalog "
                                       "▸ Cancel Scan stops it.")
                                  : tr("A local directory: it and every folder below it are scanned."));
    else
        m_message->setText(remote ? tr("Opens in the background: the window stays usable, and Cancel (or Esc) stops it.")
                                  : tr("A local checkpoint, run directory or SavedModel."));
    m_message->setStyleSheet(QString());
}

}  // namespace ckpt::ui
