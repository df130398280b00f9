// Status colours in a light and a dark palette: every tone's text colour,
// row tint with its text, and badge letter reach a WCAG contrast ratio of
// 4.5:1 against what they are drawn on, computed with the WCAG relative
// luminance formula; the models hand out those colours for the palette in
// use, beside words that carry the same meaning.

#include <QApplication>
#include <QBrush>
#include <QtTest>

#include <memory>

#include "explorer_test.h"
#include "ckpt/retention.h"
#include "models/retention_plan_model.h"
#include "test_palettes.h"
#include "style/status_colors.h"

using namespace ckpt;
using namespace ckpt::ui;

namespace {

constexpr StatusTone kTones[] = {StatusTone::Neutral, StatusTone::Info,    StatusTone::Good, StatusTone::Warning,
                                 StatusTone::Bad,     StatusTone::Special, StatusTone::Moved};

const char* toneName(StatusTone tone) {
    switch (tone) {
    case StatusTone::Neutral: return "neutral";
    case StatusTone::Info: return "info";
    case StatusTone::Good: return "good";
    case StatusTone::Warning: return "warning";
    case StatusTone::Bad: return "bad";
    case StatusTone::Special: return "special";
    case StatusTone::Moved: return "moved";
    }
    return "?";
}

}  // namespace

class TstStatusColors : public QObject {
    Q_OBJECT
private slots:
    void cleanup() { QApplication::setPalette(ckpt::testing::lightPalette()); }

    void wcagFormula() {
        QCOMPARE(relativeLuminance(Qt::black), 0.0);
        QCOMPARE(relativeLuminance(Qt::white), 1.0);
        QVERIFY(std::abs(contrastRatio(Qt::black, Qt::white) - 21.0) < 1e-9);
        QCOMPARE(contrastRatio(QColor(0x12, 0x34, 0x56), QColor(0x12, 0x34, 0x56)), 1.0);
        // Known values: #777777 on white is the classic 4.48:1 near miss.
        QVERIFY(std::abs(contrastRatio(QColor(0x77, 0x77, 0x77), Qt::white) - 4.48) < 0.01);
        QVERIFY(std::abs(relativeLuminance(QColor(0x80, 0x80, 0x80)) - 0.2158605) < 1e-6);
        // A failing colour is moved until it passes, its hue kept.
        const QColor green(0x2e, 0x9d, 0x5b);
        QVERIFY(contrastRatio(green, Qt::white) < kMinTextContrast);
        const QColor fixed = withContrast(green, Qt::white);
        QVERIFY(contrastRatio(fixed, Qt::white) >= kMinTextContrast);
        QVERIFY(std::abs(fixed.hslHueF() - green.hslHueF()) < 0.02);
        QVERIFY(contrastRatio(withContrast(green, QColor(0x23, 0x23, 0x23)), QColor(0x23, 0x23, 0x23)) >= kMinTextContrast);
        // One that passes is left alone.
        QCOMPARE(withContrast(Qt::black, Qt::white), QColor(Qt::black));
    }

    void contrastOfEveryTone_data() {
        QTest::addColumn<QPalette>("palette");
        QTest::newRow("light") << ckpt::testing::lightPalette();
        QTest::newRow("dark") << ckpt::testing::darkPalette();
    }

    void contrastOfEveryTone() {
        QFETCH(QPalette, palette);
        for (StatusTone tone : kTones) {
            const QColor text = statusTextColor(tone, palette);
            for (QPalette::ColorRole role : {QPalette::Base, QPalette::AlternateBase, QPalette::Window}) {
                const double ratio = contrastRatio(text, palette.color(role));
                QVERIFY2(ratio >= kMinTextContrast, qPrintable(QStringLiteral("%1 text %2 on %3: %4")
                                                                   .arg(QLatin1String(toneName(tone)), text.name())
                                                                   .arg(role)
                                                                   .arg(ratio)));
            }
            const QColor tint = statusBackground(tone, palette), onTint = statusBackgroundText(tone, palette);
            const double tintRatio = contrastRatio(onTint, tint);
            QVERIFY2(tintRatio >= kMinTextContrast,
                     qPrintable(QStringLiteral("%1 tint: %2").arg(QLatin1String(toneName(tone))).arg(tintRatio)));
            // The tint shows: it is not the background itself.
            QVERIFY(tint != palette.color(QPalette::Base));
            const double badge = contrastRatio(Qt::white, badgeFill(tone));
            QVERIFY2(badge >= kMinTextContrast,
                     qPrintable(QStringLiteral("%1 badge: %2").arg(QLatin1String(toneName(tone))).arg(badge)));
            qInfo("%s %-8s text %s %.2f:1 on base, %.2f:1 on window; tint %s with %s %.2f:1; badge %s %.2f:1",
                  QTest::currentDataTag(), toneName(tone), qPrintable(text.name()),
                  contrastRatio(text, palette.color(QPalette::Base)), contrastRatio(text, palette.color(QPalette::Window)),
                  qPrintable(tint.name()), qPrintable(onTint.name()), tintRatio, qPrintable(badgeFill(tone).name()), badge);
        }
    }

    // The same tone is a different shade on dark and light backgrounds:
    // the palette decides, not a constant.
    void followsThePalette() {
        const QPalette light = ckpt::testing::lightPalette(), dark = ckpt::testing::darkPalette();
        for (StatusTone tone : {StatusTone::Good, StatusTone::Bad, StatusTone::Info, StatusTone::Special})
            QVERIFY2(statusTextColor(tone, light) != statusTextColor(tone, dark), toneName(tone));
        QVERIFY(relativeLuminance(statusBackground(StatusTone::Good, dark)) < 0.2);
        QVERIFY(relativeLuminance(statusBackground(StatusTone::Good, light)) > 0.6);
        QApplication::setPalette(dark);
        QCOMPARE(statusTextColor(StatusTone::Bad), statusTextColor(StatusTone::Bad, dark));
    }

    // A model as the views see it: each row's tint and text colour read in
    // both palettes, and the verdict in words beside the colour.
    void retentionRowsInBothPalettes() {
        auto plan = std::make_shared<RetentionPlan>();
        for (RetentionVerdict v : {RetentionVerdict::Keep, RetentionVerdict::Delete, RetentionVerdict::LeaveAlone}) {
            RetentionDecision d;
            d.candidate.name = "ckpt-" + std::to_string(plan->decisions.size() + 1);
            d.verdict = v;
            plan->decisions.push_back(d);
        }
        RetentionPlanModel model;
        model.setPlan(plan);
        for (const QPalette& palette : {ckpt::testing::lightPalette(), ckpt::testing::darkPalette()}) {
            QApplication::setPalette(palette);
            QStringList verdicts;
            for (int row = 0; row < model.rowCount(); ++row) {
                const QModelIndex i = model.index(row, RetentionPlanModel::NameColumn);
                const QColor back = i.data(Qt::BackgroundRole).value<QBrush>().color();
                const QColor fore = i.data(Qt::ForegroundRole).value<QBrush>().color();
                QVERIFY2(contrastRatio(fore, back) >= kMinTextContrast,
                         qPrintable(QStringLiteral("row %1: %2 on %3").arg(row).arg(fore.name(), back.name())));
                verdicts << model.index(row, RetentionPlanModel::VerdictColumn).data().toString();
            }
            QCOMPARE(verdicts.size(), 3);
            QCOMPARE(QSet<QString>(verdicts.begin(), verdicts.end()).size(), 3);
            for (const QString& v : verdicts) QVERIFY(!v.isEmpty());
        }
    }
};

CKPT_EXPLORER_TEST_MAIN(TstStatusColors)
#include "tst_status_colors.moc"
