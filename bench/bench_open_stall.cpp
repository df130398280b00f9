// The explorer at scale (issue 34, docs/benchmarks.md "The explorer at
// scale"): the real MainWindow opens checkpoints of 10,000 to 1,000,000
// tensors, name-based (1 MiB sparse tensors: ~1 TB at a million) and
// object-based (tst_open_stall's graph), and this measures how long the tree
// takes to paint and the longest event-loop stall (StallMeter: wall-clock
// gap and GUI-thread CPU time) while it opens and starts verifying in the
// background, expands a node of 1,000 children, filters, and compares two
// such checkpoints. Each run is a fresh process (its peak RSS is the
// session's). Never fails on time (exit 2 only on setup errors).
//   bench_open_stall [--dir D] [--counts 10000,100000,1000000] [--kinds name,object]
//                    [--repeat R] [--screenshot FILE.png] [--keep]
// QT_QPA_PLATFORM=offscreen by default where no display is set; under
// `xvfb-run -a` it draws on the X server.

#include <QApplication>
#include <QCheckBox>
#include <QElapsedTimer>
#include <QHeaderView>
#include <QLineEdit>
#include <QSignalSpy>
#include <QTreeView>
#include <QtTest>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "automation/explorer_page.h"
#include "bench_child.h"
#include "bench_timing.h"
#include "explorer_test.h"
#include "jobs/allocator.h"
#include "models/diff_tree_model.h"
#include "models/object_tree_model.h"
#include "object_checkpoint.h"
#include "sparse_checkpoint.h"
#include "stall_meter.h"

namespace fs = std::filesystem;
using namespace ckpt;
using namespace ckpt::ui;
using ckpt::testing::StallMeter;

namespace {

[[noreturn]] void die(const std::string& message) {
    std::fprintf(stderr, "bench_open_stall: %s\n", message.c_str());
    std::exit(2);
}

constexpr int kChildren = 1000;  // per layer (object-based) or block (name-based)

// Marks the first paint of the tree's viewport once the tree has rows.
class PaintWatch : public QObject {
public:
    PaintWatch(QTreeView* view, const QElapsedTimer& clock) : m_view(view), m_clock(clock) {
        view->viewport()->installEventFilter(this);
    }
    qint64 paintedAt() const { return m_at; }

protected:
    bool eventFilter(QObject*, QEvent* event) override {
        if (event->type() == QEvent::Paint && m_at < 0 && m_view->model()->rowCount() > 0) m_at = m_clock.elapsed();
        return false;
    }

private:
    QTreeView* m_view;
    const QElapsedTimer& m_clock;
    qint64 m_at = -1;
};

// One measured run in this (child) process; prints "key=value ..." on stdout.
int runChildSession(const std::string& kind, int64_t n, const QString& a, const QString& b, const QString& screenshot) {
    std::map<std::string, qint64> out;
    MainWindow w;
    ExplorerPage explorer(w);
    w.resize(1200, 800);
    w.show();
    if (!QTest::qWaitForWindowExposed(&w)) return 3;
    auto waitFor = [](const std::function<bool()>& done, int ms, const char* what) {
        if (!QTest::qWaitFor(done, ms)) die(std::string("timed out: ") + what);
    };
    StallMeter meter;
    auto phase = [&](const std::string& name) {
        out[name + "Stall"] = meter.longest();
        out[name + "Busy"] = meter.longestBusy();
    };
    ObjectTreePane* pane = explorer.treePane();
    ObjectTreeModel* model = pane->model();
    QElapsedTimer clock;
    PaintWatch paint(pane->view(), clock);

    // Open: the first painted tree, then the rest of the open and the start
    // of the sidebar's background verify.
    QSignalSpy opened(&w, &MainWindow::checkpointOpened);
    meter.start();
    clock.start();
    w.openPath(a);
    waitFor([&] { return paint.paintedAt() >= 0; }, 600000, "the first paint");
    out["paintMs"] = paint.paintedAt();
    waitFor([&] { return opened.count() > 0; }, 600000, "the open");
    if (!opened.first().at(0).toBool()) die("the open failed");
    QTest::qWait(1000);
    phase("open");

    // Expanding model, then one node of 1,000 children.
    meter.start();
    const QModelIndex top = model->index(0, 0);
    pane->view()->expand(top);
    waitFor([&] { return model->rowCount(top) == static_cast<int>(n / kChildren); }, 60000, "model's rows");
    const QModelIndex node = model->index(std::min(7, model->rowCount(top) - 1), 0, top);
    pane->view()->expand(node);
    waitFor([&] { return model->rowCount(node) == kChildren; }, 60000, "1,000 rows");
    QTest::qWait(300);
    phase("expand");
    if (!screenshot.isEmpty() && !w.grab().save(screenshot)) die("cannot save " + screenshot.toStdString());

    // Filtering every name (off the GUI thread), the matches expanded.
    QSignalSpy filtered(pane, &ObjectTreePane::filterApplied);
    meter.start();
    clock.restart();
    pane->filterEdit()->setText(kind == "name" ? QStringLiteral("layer_999") : QStringLiteral("v_999"));
    waitFor([&] { return filtered.count() > 0 && !pane->isFiltering(); }, 120000, "the filter");
    out["filterMs"] = clock.elapsed();
    QTest::qWait(200);
    phase("filter");

    // Comparing with its copy: the diff, every unchanged row shown, sorted, filtered.
    explorer.jobs()->cancelAll();
    waitFor([&] { return explorer.jobs()->active().isEmpty(); }, 60000, "the background jobs to stop");
    CompareView* view = explorer.compareView();
    QSignalSpy compared(view, &CompareView::compared);
    QSignalSpy compareFiltered(view, &CompareView::filterApplied);
    meter.start();
    clock.restart();
    w.compare(a, b);
    waitFor([&] { return compared.count() > 0; }, 600000, "the comparison");
    if (!compared.first().at(0).toBool()) die("the comparison failed: " + view->error().toStdString());
    out["compareMs"] = clock.elapsed();
    view->unchangedBox()->setChecked(true);
    waitFor([&] { return compareFiltered.count() > 0; }, 120000, "unchanged rows");
    QTest::qWait(100);
    view->view()->sortByColumn(DiffTreeModel::NameColumn, Qt::DescendingOrder);
    QTest::qWait(100);
    view->filterEdit()->setText(kind == "name" ? QStringLiteral("layer_999") : QStringLiteral("v_999"));
    waitFor([&] { return compareFiltered.count() > 1 && !view->isFiltering(); }, 120000, "the compare filter");
    QTest::qWait(200);
    phase("compare");

    explorer.jobs()->cancelAll();
    waitFor([&] { return explorer.jobs()->active().isEmpty(); }, 60000, "the jobs to stop");
    std::string line = "platform=" + QGuiApplication::platformName().toStdString();
    for (const auto& [key, value] : out) line += " " + key + "=" + std::to_string(value);
    std::printf("%s\n", line.c_str());
    return 0;
}

int childMain(int argc, char** argv) {
    ckpt::ui::configureAllocator();  // as the explorer's main does
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM") && qEnvironmentVariableIsEmpty("DISPLAY") &&
        qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    app.setAttribute(Qt::AA_Use96Dpi, true);
    ckpt::testing::initExplorerTestEnvironment();  // settings of its own, not the user's
    return runChildSession(argv[2], std::stoll(argv[3]), QString::fromLocal8Bit(argv[4]), QString::fromLocal8Bit(argv[5]),
                           argc > 6 ? QString::fromLocal8Bit(argv[6]) : QString());
}

std::map<std::string, double> parseFigures(const std::string& text) {
    std::map<std::string, double> out;
    std::istringstream in(text);
    for (std::string word; in >> word;)
        if (const size_t eq = word.find('='); eq != std::string::npos && word.compare(0, 9, "platform=") != 0)
            out[word.substr(0, eq)] = std::atof(word.c_str() + eq + 1);
    return out;
}

void runSweep(const std::string& dir, const std::string& kind, const std::vector<int64_t>& counts, int repeat,
              const std::string& screenshot, bool keep) {
    for (int64_t n : counts) {
        if (n % kChildren != 0) die("counts must be multiples of 1,000");
        const std::string base = dir + "/" + kind + "-" + std::to_string(n);
        const std::string a = base + "/a/ckpt-1", b = base + "/b/ckpt-1";
        const auto t0 = bench::Clock::now();
        fs::create_directories(fs::path(a).parent_path());
        const Status written = kind == "name"
                                   ? bench::writeSparse(a, n, int64_t{1} << 20, 16)
                                   : ckpt::testing::writeObjectCheckpoint(a, static_cast<int>(n / kChildren), kChildren);
        if (!written.isOk()) die(written.toString());
        if (const Status s = bench::linkCopy(a, b); !s.isOk()) die(s.toString());
        std::printf("%s-based, %lld tensors%s: written in %.1f s; load average %s", kind.c_str(), static_cast<long long>(n),
                    kind == "name" ? " of 1 MiB, sparse" : " of 8 bytes", bench::secondsSince(t0), bench::loadAverage().c_str());
        std::map<std::string, std::vector<double>> runs;
        double rss = 0;
        std::string platform;
        for (int r = 0; r < repeat; ++r) {
            std::vector<std::string> args = {bench::selfPath(), "--child", kind, std::to_string(n), a, b};
            if (!screenshot.empty() && r == 0 && n == counts.back()) {
                // One per kind: "shot.png" becomes "shot-name.png", "shot-object.png".
                fs::path shot(screenshot);
                shot.replace_filename(shot.stem().string() + "-" + kind + shot.extension().string());
                args.push_back(shot.string());
            }
            const bench::ChildResult c = bench::runChild(args);
            if (c.exitCode != 0) die("the session failed (exit " + std::to_string(c.exitCode) + ")");
            for (const auto& [key, value] : parseFigures(c.out)) runs[key].push_back(value);
            rss = std::max(rss, c.maxRssMb);
            platform = c.out.substr(0, c.out.find(' '));
        }
        auto fig = [&](const std::string& key) { return bench::median(runs[key]); };
        auto worst = [&](const std::string& key) { return *std::max_element(runs[key].begin(), runs[key].end()); };
        std::printf("  %s, medians of %d (worst):\n", platform.c_str(), repeat);
        std::printf("    first paint %8.0f ms   filter %6.0f ms   compare %6.0f ms   peak RSS %7.1f MB\n", fig("paintMs"),
                    fig("filterMs"), fig("compareMs"), rss);
        double longest = 0;
        for (const char* p : {"open", "expand", "filter", "compare"}) {
            const std::string s = std::string(p) + "Stall", c = std::string(p) + "Busy";
            std::printf("    %-8s longest stall %5.0f ms (%4.0f)   GUI-thread busy %5.0f ms (%4.0f)\n", p, fig(s), worst(s),
                        fig(c), worst(c));
            longest = std::max(longest, fig(s));
        }
        std::printf("    longest stall %.0f ms: target <= 50 ms %s; load average %s", longest, longest <= 50 ? "met" : "MISSED",
                    bench::loadAverage().c_str());
        std::fflush(stdout);
        if (!keep) fs::remove_all(base);
    }
}

}  // namespace

int main(int argc, char** argv) {
    if (argc >= 6 && std::string(argv[1]) == "--child") return childMain(argc, argv);
    bench::startLauncher();  // while this process is small: see bench_child.h
    std::string dir = "/var/tmp/ckpt-bench-open-stall", screenshot;
    std::vector<int64_t> counts = {10'000, 100'000, 1'000'000};
    std::vector<std::string> kinds = {"name", "object"};
    int repeat = 3;
    bool keep = false;
    CLI::App app{"The explorer opening, filtering and comparing checkpoints of 10k to 1M tensors: paint time, stalls"};
    app.add_option("--dir", dir, "Scratch directory (the name-based checkpoints are sparse)")->capture_default_str();
    app.add_option("--counts", counts, "Tensor counts, multiples of 1,000")
        ->delimiter(',')
        ->check(CLI::Range(int64_t{1000}, int64_t{10'000'000}));
    app.add_option("--kinds", kinds, "name (1 MiB sparse tensors) and/or object (tst_open_stall's graph)")
        ->delimiter(',')
        ->check(CLI::IsMember({"name", "object"}));
    app.add_option("--repeat", repeat, "Sessions per count; medians are reported")
        ->capture_default_str()
        ->check(CLI::PositiveNumber);
    app.add_option("--screenshot", screenshot,
                   "Save the window with the largest checkpoint open, one file per kind (FILE-name.png, FILE-object.png)");
    app.add_flag("--keep", keep, "Keep the generated checkpoints");
    CLI11_PARSE(app, argc, argv);
    fs::create_directories(dir);
    std::printf("bench_open_stall: %s, load average %s", dir.c_str(), bench::loadAverage().c_str());
    for (const std::string& kind : kinds) runSweep(dir, kind, counts, repeat, screenshot, keep);
    return 0;
}
