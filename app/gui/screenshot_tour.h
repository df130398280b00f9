#pragma once
// Drives the real window through its views and saves a grab of each, for
// scripts/screenshots.sh and the README. Runs the same code paths a user
// triggers (openPath, the filter box, tree selection), nothing staged.

#include <QObject>
#include <QSize>
#include <QString>
#include <QTemporaryDir>

#include <functional>

#include "automation/explorer_page.h"

class QWidget;

namespace ckpt::gui {

class ScreenshotTour : public QObject {
    Q_OBJECT
public:
    // 'nameBased', when set, is a name-based (TF1) checkpoint shown last as a key tree.
    // 'size': the window's, the layout reset to its defaults for that size.
    ScreenshotTour(ckpt::ui::MainWindow* window, QString outDir, QSize size, QString checkpoint, QString nameBased,
                   QObject* parent = nullptr);
    void start();

private:
    void save(const QString& name);
    // Runs 'next' once 'done' returns true (polled), or fails after a timeout.
    void waitFor(const std::function<bool()>& done, const std::function<void()>& next);
    // File > Open Location with the checkpoint typed in, then Open.
    void showOpenLocation();
    void openCheckpoint();
    void inspect();
    // Statistics, histogram and heatmap of the inspected tensor, one tab each.
    void showPreviews();
    void filter();
    void showError();
    void showNameBased();
    // The demo checkpoints matched against a spec of the same model with a
    // narrower hidden layer: mismatches colour the tree, assertions fail.
    void showRestore();
    // Two demo checkpoints across the fine-tune boundary, compared the way a
    // user would (two sidebar rows, Compare), sorted by max |Δ|, a kernel's
    // heatmaps and histograms; then its History with the run's strip.
    void showCompare();
    void showHistory();
    // A temporary schedule store with a demo-training schedule run a few
    // times through Run now (its sparkline) and a directory backup of the
    // demo checkpoints; then the dialog refusing a destination inside its
    // source, and the retention preview of the demo directory.
    void showSchedules();
    void runScheduleTimes(const QString& name, int times, const std::function<void()>& next);
    void showScheduleDialog();
    void showRetention();
    // The global search over the tour's scratch catalog, which every
    // directory opened above joined as a root.
    void showSearch();
    // The demo's first layer renamed in the Rename dialog: the resulting
    // tree previewed, nothing written.
    void showEditPreview();
    // Help > Keyboard Shortcuts and Help > About.
    void showHelp();
    void saveDialog(QWidget* dialog, const QString& name);
    void finish(int code);

    ckpt::ui::MainWindow* m_window;
    ckpt::ui::ExplorerPage m_page;
    QString m_outDir;
    QSize m_size;
    QString m_checkpoint;
    QString m_nameBased;
    QTemporaryDir m_scratch;
    bool m_opened = false;
    bool m_valuesReady = false;
};

}  // namespace ckpt::gui
