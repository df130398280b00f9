#include "views/stats_page.h"

#include <QFormLayout>
#include <QLabel>
#include <QLocale>
#include <QVBoxLayout>

#include <cmath>

#include "jobs/preview_jobs.h"

namespace ckpt::ui {
namespace {

enum Field {
    CountField,
    FiniteField,
    MinField,
    MaxField,
    MeanField,
    StdField,
    AbsMaxField,
    ZerosField,
    NanField,
    PosInfField,
    NegInfField,
    kFieldCount
};

// Enough digits to tell float32 neighbours apart.
QString number(double v) { return std::isnan(v) ? StatsPage::tr("n/a (no finite values)") : QLocale().toString(v, 'g', 9); }

QString count(int64_t n, int64_t total) {
    QString s = QLocale().toString(static_cast<qlonglong>(n));
    if (n == 0 || total == 0) return s;
    return StatsPage::tr("%1 (%2%)")
        .arg(s, QLocale().toString(100.0 * static_cast<double>(n) / static_cast<double>(total), 'g', 3));
}

}  // namespace

StatsPage::StatsPage(QWidget* parent)
    : PreviewPage(parent), m_form(new QFormLayout), m_message(new QLabel(this)), m_device(new QLabel(this)) {
    auto* layout = new QVBoxLayout(this);
    m_message->setWordWrap(true);
    m_message->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_message->setAccessibleName(tr("Statistics status"));
    layout->addWidget(m_message);
    const QStringList labels{tr("Elements:"), tr("Finite:"), tr("Min:"), tr("Max:"),  tr("Mean:"),     tr("Std:"),
                             tr("Abs max:"),  tr("Zeros:"),  tr("NaN:"), tr("+Inf:"), tr("\u2212Inf:")};
    for (const QString& l : labels) {
        auto* value = new QLabel(this);
        value->setTextInteractionFlags(Qt::TextSelectableByMouse);
        value->setAccessibleName(l.chopped(1));
        m_form->addRow(l, value);
        m_fields.append(value);
    }
    m_form->itemAt(MeanField, QFormLayout::LabelRole)->widget()->setToolTip(tr("Mean of the finite values"));
    m_form->itemAt(StdField, QFormLayout::LabelRole)
        ->widget()
        ->setToolTip(tr("Population standard deviation (ddof = 0) of the finite values"));
    layout->addLayout(m_form);
    m_device->setWordWrap(true);
    m_device->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_device->setAccessibleName(tr("Where the statistics were computed"));
    QPalette p = m_device->palette();
    p.setColor(QPalette::WindowText, p.color(QPalette::PlaceholderText));
    m_device->setPalette(p);
    layout->addWidget(m_device);
    layout->addStretch();
    clearPreview();
}

QString StatsPage::message() const { return m_message->text(); }
QString StatsPage::computedOn() const { return m_device->text(); }
bool StatsPage::isFromCache() const { return m_fromCache; }

void StatsPage::clearPreview() {
    m_stats.reset();
    m_fromCache = false;
    m_message->setText(tr("Statistics appear once the values are read."));
    m_message->show();
    for (QLabel* f : std::as_const(m_fields)) f->clear();
    m_device->clear();
}

void StatsPage::startPreview() {
    m_message->setText(tr("Computing statistics\u2026"));
    m_message->show();
    runPreview([t = tensor(), source = previewSource()] { return computeTensorStats(t, source); },
               [this](const StatsResult& r) { return showResult(r); });
}

bool StatsPage::showResult(const StatsResult& result) {
    m_stats = result.stats;
    m_fromCache = result.fromCache;
    if (!m_stats) {
        m_message->setText(result.error);
        for (QLabel* f : std::as_const(m_fields)) f->clear();
        m_device->clear();
        return false;
    }
    const TensorStats& s = *m_stats;
    if (s.stringLengths) m_message->setText(tr("Strings: statistics of their byte lengths."));
    else if (s.complexMagnitude) m_message->setText(tr("Complex values: statistics of their magnitudes."));
    m_message->setVisible(s.stringLengths || s.complexMagnitude);
    m_fields[CountField]->setText(QLocale().toString(static_cast<qlonglong>(s.count)));
    m_fields[FiniteField]->setText(count(s.finiteCount, s.count));
    m_fields[MinField]->setText(number(s.min));
    m_fields[MaxField]->setText(number(s.max));
    m_fields[MeanField]->setText(number(s.mean));
    m_fields[StdField]->setText(number(s.std));
    m_fields[AbsMaxField]->setText(number(s.absMax));
    m_fields[ZerosField]->setText(count(s.zeros, s.count));
    m_fields[NanField]->setText(count(s.nans, s.count));
    m_fields[PosInfField]->setText(count(s.posInfs, s.count));
    m_fields[NegInfField]->setText(count(s.negInfs, s.count));
    // Unobtrusive: the figures are the same either way, only how fast they came differs.
    m_device->setText(result.fromCache ? tr("%1 \u00b7 from the catalog's cache").arg(computedOnText(s.computedOn))
                                       : computedOnText(s.computedOn));
    return true;
}

}  // namespace ckpt::ui
