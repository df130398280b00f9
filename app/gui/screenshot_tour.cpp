#include "screenshot_tour.h"

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QElapsedTimer>
#include <QLineEdit>
#include <QSplitter>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QPushButton>
#include <QTableView>
#include <QTabWidget>
#include <QTimer>
#include <QTreeView>

#include <cstdio>
#include <memory>

#include "ckpt/bundle_naming.h"
#include "ckpt/demo_trainer.h"
#include "ckpt/model_spec.h"
#include "ckpt/schedule_store.h"
#include "jobs/schedule_jobs.h"
#include "models/retention_plan_model.h"
#include "models/schedules_model.h"
#include "models/object_tree_model.h"
#include "models/diff_tree_model.h"
#include "models/directory_model.h"
#include "models/catalog_search_model.h"
#include "views/catalog_controller.h"
#include "views/catalog_search_view.h"
#include "views/compare_detail.h"
#include "views/about_dialog.h"
#include "views/compare_view.h"
#include "views/edit_dialog.h"
#include "views/heatmap_page.h"
#include "views/heatmap_view.h"
#include "views/histogram_page.h"
#include "views/history_page.h"
#include "views/movement_strip.h"
#include "views/pair_heatmap_panel.h"
#include "views/pair_histogram_panel.h"
#include "views/main_window.h"
#include "views/object_tree_pane.h"
#include "views/open_location_dialog.h"
#include "views/restore_view.h"
#include "views/retention_preview.h"
#include "views/schedule_dialog.h"
#include "views/schedules_view.h"
#include "views/shortcuts_dialog.h"
#include "views/stats_page.h"
#include "views/tensor_inspector.h"

namespace ckpt::gui {

ScreenshotTour::ScreenshotTour(ckpt::ui::MainWindow* window, QString outDir, QSize size, QString checkpoint, QString nameBased,
                               QObject* parent)
    : QObject(parent), m_window(window), m_page(*window), m_outDir(std::move(outDir)), m_size(size),
      m_checkpoint(std::move(checkpoint)), m_nameBased(std::move(nameBased)) {
    connect(m_window, &ui::MainWindow::checkpointOpened, this, [this] { m_opened = true; });
    connect(m_page.inspector(), &ui::TensorInspector::valuesReady, this, [this] { m_valuesReady = true; });
}

void ScreenshotTour::start() {
    QDir().mkpath(m_outDir);
    // Never the user's catalog: without --catalog, a scratch one.
    if (m_page.catalog()->path().isEmpty()) m_window->setCatalogPath(m_scratch.path() + QStringLiteral("/catalog.db"));
    m_window->resize(m_size);
    // What a first launch at this size shows, whatever was saved before.
    m_window->resetLayout();
    QTimer::singleShot(300, this, [this] {
        save(QStringLiteral("01-welcome.png"));
        showOpenLocation();
    });
}

void ScreenshotTour::save(const QString& name) {
    const QString path = m_outDir + QLatin1Char('/') + name;
    // A view whose minimum outgrows the size asked for pushes the window past it.
    if (m_window->size() != m_size)
        std::fprintf(stderr, "%s: the window is %dx%d, not %dx%d\n", qPrintable(name), m_window->width(), m_window->height(),
                     m_size.width(), m_size.height());
    if (!m_window->grab().save(path)) std::fprintf(stderr, "cannot write %s\n", qPrintable(path));
    else std::printf("saved %s\n", qPrintable(path));
}

void ScreenshotTour::waitFor(const std::function<bool()>& done, const std::function<void()>& next) {
    auto timer = std::make_shared<QElapsedTimer>();
    timer->start();
    auto poll = std::make_shared<std::function<void()>>();
    *poll = [this, done, next, timer, poll] {
        if (done()) {
            // One more turn so the views paint what just arrived.
            QTimer::singleShot(400, this, next);
        } else if (timer->elapsed() > 60000) {
            std::fprintf(stderr, "screenshot tour timed out\n");
            finish(1);
        } else {
            QTimer::singleShot(50, this, *poll);
        }
    };
    (*poll)();
}

void ScreenshotTour::showOpenLocation() {
    if (m_checkpoint.isEmpty()) return finish(0);
    // File > Open Location with the tour's checkpoint typed in; Open opens it.
    ui::OpenLocationDialog* dialog = m_window->openLocationDialog();
    dialog->locationBox()->setEditText(m_checkpoint);
    QTimer::singleShot(300, this, [this, dialog] {
        saveDialog(dialog, QStringLiteral("21-open-location.png"));
        m_opened = false;
        dialog->findChild<QDialogButtonBox*>()->button(QDialogButtonBox::Open)->click();
        openCheckpoint();
    });
}

void ScreenshotTour::openCheckpoint() {
    if (m_checkpoint.isEmpty()) return finish(0);
    waitFor([this] { return m_opened; },
            [this] {
                save(QStringLiteral("02-object-graph.png"));
                inspect();
            });
}

void ScreenshotTour::inspect() {
    // The first 2-D variable: a kernel shows the grid best.
    auto* model = m_page.treePane()->model();
    QTreeView* view = m_page.treePane()->view();
    const auto& entries = model->snapshot()->entries;
    int32_t target = -1;
    for (size_t i = 0; i < entries.size() && target < 0; ++i)
        if (entries[i].tensor && entries[i].tensor->shape.rank() == 2 && !ui::isKeyRow(entries[i]))
            target = static_cast<int32_t>(i);
    if (target < 0) return filter();
    const QModelIndex index = model->indexForEntry(target);
    for (QModelIndex p = index.parent(); p.isValid(); p = p.parent()) view->expand(p);
    view->setCurrentIndex(index);
    view->scrollTo(index);
    m_valuesReady = false;
    waitFor([this] { return m_valuesReady; },
            [this] {
                save(QStringLiteral("03-inspector.png"));
                showPreviews();
            });
}

void ScreenshotTour::showPreviews() {
    auto* tabs = m_page.inspector()->findChild<QTabWidget*>();
    auto* stats = m_page.inspector()->findChild<ui::StatsPage*>();
    auto* histogram = m_page.inspector()->findChild<ui::HistogramPage*>();
    auto* heatmap = m_page.inspector()->findChild<ui::HeatmapPage*>();
    if (!tabs || !stats || !histogram || !heatmap) return filter();
    tabs->setCurrentWidget(stats);
    waitFor([stats] { return !stats->isBusy() && stats->stats(); },
            [this, tabs, histogram, heatmap] {
                save(QStringLiteral("07-statistics.png"));
                tabs->setCurrentWidget(histogram);
                waitFor([histogram] { return !histogram->isBusy() && histogram->histogram(); },
                        [this, tabs, heatmap] {
                            save(QStringLiteral("08-histogram.png"));
                            tabs->setCurrentWidget(heatmap);
                            waitFor([heatmap] { return !heatmap->isBusy() && heatmap->view()->heatmap(); },
                                    [this, tabs] {
                                        save(QStringLiteral("09-heatmap.png"));
                                        tabs->setCurrentIndex(0);
                                        filter();
                                    });
                        });
            });
}

void ScreenshotTour::filter() {
    auto* pane = m_page.treePane();
    pane->keysBox()->setChecked(true);
    pane->filterEdit()->setText(QStringLiteral("kernel"));
    waitFor([pane] { return !pane->isFiltering() && pane->model()->rowCount() > 0; },
            [this] {
                save(QStringLiteral("04-filter-keys.png"));
                showError();
            });
}

void ScreenshotTour::showError() {
    // A damaged copy of the checkpoint: one flipped byte in each data file,
    // so the error panel shows the engine's open error and verify's findings.
    m_page.treePane()->filterEdit()->clear();
    m_page.treePane()->keysBox()->setChecked(false);
    const QString prefix = QString::fromStdString(m_page.snapshot()->checkpoint->prefix());
    const QFileInfo info(prefix);
    const QString damagedDir = m_scratch.path() + QStringLiteral("/damaged");
    QDir().mkpath(damagedDir);
    for (const QFileInfo& f : QDir(info.absolutePath()).entryInfoList({info.fileName() + QStringLiteral(".*")}, QDir::Files)) {
        const QString to = damagedDir + QLatin1Char('/') + f.fileName();
        QFile::copy(f.absoluteFilePath(), to);
        if (!parseDataFileName(f.fileName().toStdString())) continue;
        QFile data(to);
        data.setPermissions(data.permissions() | QFileDevice::WriteOwner);  // copies keep read-only modes
        if (data.open(QIODevice::ReadWrite) && data.size() > 0) {
            data.seek(data.size() / 2);
            char c = 0;
            data.getChar(&c);
            data.seek(data.size() / 2);
            data.putChar(static_cast<char>(c ^ 0x40));
        }
    }
    m_opened = false;
    m_window->openPath(damagedDir);
    waitFor([this] { return m_opened; },
            [this] {
                save(QStringLiteral("05-error-panel.png"));
                showNameBased();
            });
}

void ScreenshotTour::showNameBased() {
    if (m_nameBased.isEmpty()) return showRestore();
    m_opened = false;
    m_window->openPath(m_nameBased);
    waitFor([this] { return m_opened; },
            [this] {
                // Open the first scope so the key tree's nesting shows.
                QTreeView* view = m_page.treePane()->view();
                for (int r = 0; r < view->model()->rowCount(); ++r)
                    if (view->model()->hasChildren(view->model()->index(r, 0))) {
                        view->expand(view->model()->index(r, 0));
                        break;
                    }
                QTimer::singleShot(300, this, [this] {
                    save(QStringLiteral("06-name-based.png"));
                    showRestore();
                });
            });
}

void ScreenshotTour::showRestore() {
    // The welcome page's demo offer, as a newcomer would use it.
    m_opened = false;
    m_window->generateDemo(m_scratch.path() + QStringLiteral("/demo"));
    waitFor([this] { return m_opened; },
            [this] {
                auto model = makeDemoModel(/*hidden=*/16, /*replicas=*/1, /*seed=*/1);
                if (!model.ok()) return finish(1);
                const QString specPath = m_scratch.path() + QStringLiteral("/mlp_hidden16.json");
                QFile spec(specPath);
                if (!spec.open(QIODevice::WriteOnly)) return finish(1);
                spec.write(QByteArray::fromStdString(modelSpecJson(**model)));
                spec.close();
                ui::RestoreView* view = m_page.restoreView();
                m_page.workspace()->setCurrentWidget(view);
                view->setTarget(specPath);
                waitFor([view] { return view->report() && !view->isMatching(); },
                        [this, view] {
                            QTreeView* tree = view->treePane()->view();
                            tree->expandToDepth(1);
                            QTimer::singleShot(300, this, [this] {
                                save(QStringLiteral("10-restore.png"));
                                showCompare();
                            });
                        });
            });
}

void ScreenshotTour::showCompare() {
    const QString demo = m_scratch.path() + QStringLiteral("/demo/");
    const QStringList pair{demo + QStringLiteral("ckpt-2"), demo + QStringLiteral("ckpt-3")};
    for (const QString& prefix : pair)
        if (!m_page.sidebarRow(prefix).isValid()) return finish(1);
    m_page.selectCheckpoints(pair);
    ui::CompareView* view = m_page.compareView();
    m_window->compareSelected();
    waitFor([view] { return view->snapshot() && !view->isComparing(); },
            [this, view] {
                // "Which layer moved most": one click on the Max |Δ| header.
                view->view()->header()->setSortIndicator(ui::DiffTreeModel::MaxAbsColumn, Qt::DescendingOrder);
                ui::DiffTreeModel* model = view->model();
                QModelIndex kernel;
                std::function<void(const QModelIndex&)> walk = [&](const QModelIndex& parent) {
                    for (int r = 0; r < model->rowCount(parent) && !kernel.isValid(); ++r) {
                        const QModelIndex i = model->index(r, 0, parent);
                        const QStringList loc = ui::nodeLocation(*model->snapshot(), model->nodeIndex(i));
                        if (loc.size() >= 2 && loc.last() == QLatin1String("kernel") &&
                            loc[loc.size() - 2] == QLatin1String("layer_with_weights-0"))
                            kernel = i;
                        else walk(i);
                    }
                };
                walk({});
                if (!kernel.isValid()) return finish(1);
                view->view()->setCurrentIndex(kernel);
                ui::PairHeatmapPanel* heatmaps = view->detail()->heatmaps();
                waitFor(
                    [view, heatmaps] { return view->detail()->values() && !heatmaps->isBusy() && heatmaps->viewA()->heatmap(); },
                    [this, view] {
                        save(QStringLiteral("11-compare.png"));
                        ui::PairHistogramPanel* histograms = view->detail()->histograms();
                        view->detail()->tabs()->setCurrentWidget(histograms);
                        waitFor([histograms] { return !histograms->isBusy() && histograms->histogramA(); },
                                [this] {
                                    save(QStringLiteral("12-compare-histograms.png"));
                                    showHistory();
                                });
                    });
            });
}

void ScreenshotTour::showHistory() {
    ui::CompareDetail* detail = m_page.compareView()->detail();
    ui::HistoryPage* history = detail->history();
    detail->tabs()->setCurrentWidget(history);
    waitFor([history] { return !history->isBusy() && history->history(); },
            [this, history] {
                history->runButton()->click();
                waitFor([history] { return !history->isRunBusy() && history->strip()->history(); },
                        [this] {
                            save(QStringLiteral("13-history.png"));
                            showSchedules();
                        });
            });
}

void ScreenshotTour::showSchedules() {
    ui::SchedulesView* view = m_page.schedulesView();
    // Never the user's own store: without --schedule-store, a scratch one.
    if (view->storePath() == ui::defaultScheduleStorePath(nullptr))
        view->setStorePath(m_scratch.path() + QStringLiteral("/schedules.db"));
    auto store = ScheduleStore::open(view->storePath().toStdString(), {.createDirectory = true});
    if (!store.ok()) {
        std::fprintf(stderr, "%s\n", store.status().toString().c_str());
        return finish(1);
    }
    Schedule backup;
    backup.name = "demo-backup";
    backup.sourcePath = (m_scratch.path() + QStringLiteral("/demo")).toStdString();
    backup.destination = (m_scratch.path() + QStringLiteral("/archive")).toStdString();
    backup.triggers.everySeconds = 3600;
    backup.retention.keepLatest = 3;
    Schedule training;
    training.name = "nightly-demo";
    training.source = ScheduleSource::DemoTrainer;
    training.destination = (m_scratch.path() + QStringLiteral("/nightly")).toStdString();
    training.triggers.everySeconds = 86400;
    training.triggers.everySteps = 50;
    training.demoSteps = 200;
    training.retention.keepLatest = 4;
    for (const Schedule& s : {backup, training})
        if (auto added = (*store)->addSchedule(s); !added.ok()) {
            std::fprintf(stderr, "%s\n", added.status().toString().c_str());
            return finish(1);
        }
    store->reset();
    m_page.workspace()->setCurrentWidget(view);
    waitFor([view] { return view->model()->rowCount() == 2; },
            [this, view] {
                runScheduleTimes(QStringLiteral("demo-backup"), 1, [this, view] {
                    runScheduleTimes(QStringLiteral("nightly-demo"), 5, [this, view] {
                        view->refresh();
                        QTimer::singleShot(600, this, [this] {
                            save(QStringLiteral("14-schedules.png"));
                            showScheduleDialog();
                        });
                    });
                });
            });
}

void ScreenshotTour::runScheduleTimes(const QString& name, int times, const std::function<void()>& next) {
    if (times == 0) return next();
    ui::SchedulesView* view = m_page.schedulesView();
    view->selectSchedule(name);
    view->runSelected();
    waitFor([view] { return !view->isRunning(); }, [this, name, times, next] { runScheduleTimes(name, times - 1, next); });
}

void ScreenshotTour::showScheduleDialog() {
    ui::SchedulesView* view = m_page.schedulesView();
    view->selectSchedule(QStringLiteral("demo-backup"));
    ui::ScheduleDialog* dialog = view->editSelected();
    if (!dialog) return finish(1);
    // The mistake the dialog exists to catch: archiving a run into itself.
    dialog->destinationEdit()->setText(m_scratch.path() + QStringLiteral("/demo/archive"));
    waitFor([dialog] { return dialog->isChecked() && !dialog->reason().isEmpty(); },
            [this, dialog] {
                saveDialog(dialog, QStringLiteral("15-schedule-dialog.png"));
                dialog->reject();
                showRetention();
            });
}

void ScreenshotTour::showRetention() {
    ui::RetentionPreview* preview = m_page.retentionPreview();
    RetentionPolicy policy;
    policy.keepLatest = 2;
    policy.keepEverySteps = 100;
    preview->setPolicy(policy);
    preview->setDirectory(m_scratch.path() + QStringLiteral("/demo"));
    m_page.workspace()->setCurrentWidget(preview);
    waitFor([preview] { return !preview->isBusy() && preview->model()->rowCount() > 0; },
            [this] {
                save(QStringLiteral("16-retention.png"));
                showSearch();
            });
}

void ScreenshotTour::showSearch() {
    ui::CatalogSearchView* search = m_page.searchView();
    // Scans of the opened directories run in the background; search once they are in.
    waitFor([this] { return !m_page.catalog()->isScanning() && m_page.catalog()->overview().directories.size() >= 2; },
            [this, search] {
                m_window->showSearch();
                search->search(QStringLiteral("layer_with_weights-1/kernel"));
                waitFor([search] { return !search->isSearching() && search->model()->rowCount() > 0; },
                        [this, search] {
                            // The first checkpoint's keys unfolded, the first match current.
                            search->view()->setCurrentIndex(search->model()->index(0, 0, search->model()->index(0, 0)));
                            QTimer::singleShot(300, this, [this] {
                                save(QStringLiteral("17-search.png"));
                                showEditPreview();
                            });
                        });
            });
}

void ScreenshotTour::showEditPreview() {
    m_opened = false;
    m_page.workspace()->setCurrentIndex(0);
    m_window->openPath(m_scratch.path() + QStringLiteral("/demo"));
    waitFor([this] { return m_opened; },
            [this] {
                // The first layer's row (its kernel's parent), renamed as F2 would.
                if (!m_page.treePane()->selectKey(QStringLiteral("model/layer_with_weights-0/kernel/.ATTRIBUTES/VARIABLE_VALUE")))
                    return finish(1);
                QTreeView* tree = m_page.treePane()->view();
                tree->setCurrentIndex(tree->currentIndex().parent());
                ui::EditDialog* dialog = m_page.surgery()->renameDialog();
                if (!dialog) return finish(1);
                dialog->newNameEdit()->setText(QStringLiteral("model.encoder"));
                waitFor([dialog] { return dialog->isChecked() && dialog->plan(); },
                        [this, dialog] {
                            saveDialog(dialog, QStringLiteral("18-edit-preview.png"));
                            dialog->reject();
                            showHelp();
                        });
            });
}

void ScreenshotTour::showHelp() {
    ui::ShortcutsDialog* keys = m_window->showShortcuts();
    keys->resize(640, 560);
    QTimer::singleShot(300, this, [this, keys] {
        saveDialog(keys, QStringLiteral("19-keyboard-shortcuts.png"));
        keys->close();
        ui::AboutDialog* about = m_window->showAbout();
        QTimer::singleShot(300, this, [this, about] {
            saveDialog(about, QStringLiteral("20-about.png"));
            about->close();
            finish(0);
        });
    });
}

void ScreenshotTour::saveDialog(QWidget* dialog, const QString& name) {
    const QString path = m_outDir + QLatin1Char('/') + name;
    if (!dialog->grab().save(path)) std::fprintf(stderr, "cannot write %s\n", qPrintable(path));
    else std::printf("saved %s\n", qPrintable(path));
}

void ScreenshotTour::finish(int code) {
    // Leave the user's recent list as it was.
    m_window->close();
    QApplication::exit(code);
}

}  // namespace ckpt::gui
