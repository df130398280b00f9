// Hand-made hostile checkpoints (issue #16): every count, size and shape a
// file claims is bounded before it drives an allocation or a loop, graph
// naming and traversal stay linear and cycle-safe, nothing escapes the
// engine as an exception, and `verify` reports what a reader relies on.
// Each case runs in a forked child under a time limit (and, outside
// sanitizer builds, an address-space limit), so a regression fails the test
// instead of hanging or exhausting the machine.

#include <QtTest>

#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <fstream>

#include "ckpt/bundle_naming.h"
#include "ckpt/bundle_reader.h"
#include "ckpt/bundle_writer.h"
#include "ckpt/checkpoint.h"
#include "ckpt/display_tree.h"
#include "ckpt/model_spec.h"
#include "ckpt/object_graph.h"
#include "ckpt/verify.h"
#include "format/index_table.h"
#include "format/ordered_code.h"
#include "format/region_codec.h"
#include "platform/crc32c.h"
#include "tensor_bundle.pb.h"
#include "test_support.h"
#include "trackable_object_graph.pb.h"

using namespace ckpt;

namespace {

// ASan and UBSan run two to three times slower, and ASan's redzones and
// quarantine take two to three times the memory: the budgets still catch
// anything that grows faster than the input.
constexpr int kSanitizerFactor = CKPT_UNDER_ASAN ? 3 : 1;
constexpr double kSecondsBudget = kSanitizerFactor * 2.0;
constexpr long kRssBudgetKiB = kSanitizerFactor * 200 * 1024;
// Process start on a loaded 2-core machine included.
constexpr double kCliSecondsBudget = kSanitizerFactor * 5.0;

// Child exit codes of withinBudget.
enum ChildResult { kChildOk = 0, kChildWrong = 1, kChildSlow = 2, kChildFat = 3 };

long peakRssKiB() {
    rusage u{};
    ::getrusage(RUSAGE_SELF, &u);
    return u.ru_maxrss;
}

// Runs 'body' in a forked child: it must return true, within the time and
// peak-RSS budget. A hang is ended by SIGALRM, a runaway allocation (outside
// sanitizer builds) by the address-space limit, as a std::bad_alloc that
// must not escape.
QString withinBudget(const std::function<bool()>& body) {
    const int rc = ckpt::testing::runInChild([&] {
        ::alarm(20);
#if !CKPT_UNDER_ASAN
        rlimit limit{4ull << 30, 4ull << 30};
        ::setrlimit(RLIMIT_AS, &limit);
#endif
        const long rssBefore = peakRssKiB();
        const auto start = std::chrono::steady_clock::now();
        const bool ok = body();
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        if (!ok) return int{kChildWrong};
        if (seconds > kSecondsBudget) {
            std::fprintf(stderr, "took %.2f s\n", seconds);
            return int{kChildSlow};
        }
        if (peakRssKiB() - rssBefore > kRssBudgetKiB) {
            std::fprintf(stderr, "peak RSS grew by %ld KiB\n", peakRssKiB() - rssBefore);
            return int{kChildFat};
        }
        return int{kChildOk};
    });
    switch (rc) {
    case kChildOk: return {};
    case kChildWrong: return QStringLiteral("wrong result (see the message above)");
    case kChildSlow: return QStringLiteral("over the time budget");
    case kChildFat: return QStringLiteral("over the memory budget");
    default: return QStringLiteral("child ended by signal %1 (abort, hang or crash)").arg(rc - 100);
    }
}

#define QVERIFY_BUDGET(body)                      \
    do {                                          \
        const QString why = withinBudget(body);   \
        QVERIFY2(why.isEmpty(), qPrintable(why)); \
    } while (false)

bool contains(const std::string& haystack, const std::string& needle) { return haystack.find(needle) != std::string::npos; }

// In a child: prints the mismatch so the parent's log explains kChildWrong.
bool expectError(const Status& s, StatusCode code, std::initializer_list<std::string> parts) {
    bool ok = !s.isOk() && s.code() == code;
    for (const std::string& p : parts) ok = ok && contains(s.message(), p);
    if (!ok) std::fprintf(stderr, "unexpected status: %s\n", s.toString().c_str());
    return ok;
}

std::string headerBytes(int32_t shards = 1, int endianness = 0) {
    tensorflow::BundleHeaderProto h;
    h.set_num_shards(shards);
    h.set_endianness(static_cast<tensorflow::BundleHeaderProto::Endianness>(endianness));
    h.mutable_version()->set_producer(1);
    return h.SerializeAsString();
}

tensorflow::BundleEntryProto entry(int dtype, std::vector<int64_t> dims, int64_t offset, int64_t size, uint32_t crc) {
    tensorflow::BundleEntryProto e;
    e.set_dtype(static_cast<tensorflow::DataType>(dtype));
    for (int64_t d : dims) e.mutable_shape()->add_dim()->set_size(d);
    e.set_offset(offset);
    e.set_size(size);
    e.set_crc32c(crc);
    return e;
}

void appendVarint(std::string& out, uint64_t v) {
    for (; v >= 0x80; v >>= 7) out.push_back(static_cast<char>(v | 0x80));
    out.push_back(static_cast<char>(v));
}

// The region's checksum, or 0 where its lengths cannot be checksummed.
uint32_t checksumOrZero(const Result<uint32_t>& crc) { return crc.ok() ? *crc : 0; }

uint32_t maskedCrc(const std::string& bytes) { return platform::crc32cMask(platform::crc32c(bytes.data(), bytes.size())); }

// A bundle written key by key as given (in increasing order: Debian's
// table builder asserts it), with one data file.
struct HandMade {
    QTemporaryDir tmp;
    std::string prefix;
    HandMade() : prefix(tmp.filePath(QStringLiteral("ckpt-1")).toStdString()) {}

    void write(const std::vector<std::pair<std::string, std::string>>& entries, const std::string& data, int32_t shards = 1,
               const std::string& header = {}) {
        auto w = format::IndexTableWriter::create(indexFileName(prefix));
        QVERIFY(w.ok());
        QVERIFY((*w)->add("", header.empty() ? headerBytes(shards) : header).isOk());
        for (const auto& [k, v] : entries) QVERIFY((*w)->add(k, v).isOk());
        QVERIFY((*w)->finish().isOk());
        QVERIFY(
            ckpt::testing::writeAll(QString::fromStdString(dataFileName(prefix, 0, shards)), QByteArray::fromStdString(data)));
    }
    std::string indexName() const { return "ckpt-1.index"; }
};

// Four floats at offset 0 of the data file, under key "v".
const std::string kFourFloats(16, '\0');
std::pair<std::string, std::string> floatEntry(const std::string& key = "v") {
    return {key, entry(1, {4}, 0, 16, maskedCrc(kFourFloats)).SerializeAsString()};
}

std::string verifyText(const std::string& prefix) {
    auto report = verifyBundle(prefix);
    if (!report) return "verify failed: " + report.status().toString();
    std::string all;
    for (const auto& p : report->problems) all += p.message + "\n";
    return all;
}

bool expectVerifyProblem(const std::string& prefix, std::initializer_list<std::string> parts) {
    const std::string text = verifyText(prefix);
    bool ok = !text.empty();
    for (const std::string& p : parts) ok = ok && contains(text, p);
    if (!ok) std::fprintf(stderr, "verify said: %s\n", text.empty() ? "(clean)" : text.c_str());
    // A listing counts an index's tensors without keeping them: it refuses
    // what open() refuses, in the same words.
    const auto opened = BundleReader::open(prefix);
    const auto summary = BundleReader::summarize(prefix);
    if (opened.ok() != summary.ok() || (!opened.ok() && opened.status().toString() != summary.status().toString()) ||
        (opened.ok() && static_cast<size_t>(summary->tensors) != (*opened)->tensors().size())) {
        std::fprintf(stderr, "open: %s\nsummarize: %s\n", opened.status().toString().c_str(),
                     summary.status().toString().c_str());
        ok = false;
    }
    // A reader that keeps only named keys checks every entry as open()
    // does: it refuses what open() refuses, in the same words.
    std::vector<std::string> keys;
    (void)format::scanIndexTable(indexFileName(prefix), [&](std::string_view key, std::string_view) {
        if (!key.empty()) keys.emplace_back(key);
        return okStatus();
    });
    const std::vector<std::string_view> views(keys.begin(), keys.end());
    const auto some = BundleReader::openKeys(prefix, views);
    if (opened.ok() != some.ok() || (!opened.ok() && opened.status().toString() != some.status().toString()) ||
        (opened.ok() && (*some)->tensors().size() != (*opened)->tensors().size())) {
        std::fprintf(stderr, "open: %s\nopenKeys: %s\n", opened.status().toString().c_str(), some.status().toString().c_str());
        ok = false;
    }
    return ok;
}

// The CLI on the same input (under memory and CPU limits): exit code, and
// its output names the problem; finishes within the budget.
// 'maxOutputBytes' (>= 0) bounds what the command prints: output must stay
// linear in the input, however deep it nests.
void expectCli(const QStringList& args, int exitCode, const QString& needle, qint64 maxOutputBytes = -1) {
    QElapsedTimer timer;
    timer.start();
    QProcess p;
    p.setChildProcessModifier([] {  // a runaway ckpt must not take the machine with it
#if !CKPT_UNDER_ASAN                // AddressSanitizer reserves terabytes of address space
        rlimit memory{4ull << 30, 4ull << 30};
        ::setrlimit(RLIMIT_AS, &memory);
#endif
        rlimit cpu{20, 20};
        ::setrlimit(RLIMIT_CPU, &cpu);
    });
    p.start(ckpt::testing::binaryDir() + QStringLiteral("/app/cli/ckpt"), args);
    p.waitForFinished(30000);
    const double seconds = static_cast<double>(timer.elapsed()) / 1000.0;
    const int exitCodeSeen = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    const QByteArray out = p.readAllStandardOutput();
    const QString text = QString::fromUtf8(p.readAllStandardError() + out);
    if (maxOutputBytes >= 0)
        QVERIFY2(
            out.size() <= maxOutputBytes,
            qPrintable(args.join(u' ') + QStringLiteral(" printed %1 bytes, more than %2").arg(out.size()).arg(maxOutputBytes)));
    QVERIFY2(seconds < kCliSecondsBudget, qPrintable(QStringLiteral("%1 s: ").arg(seconds) + args.join(u' ')));
    QVERIFY2(exitCodeSeen == exitCode,
             qPrintable(args.join(u' ') + QStringLiteral(" exited %1: ").arg(exitCodeSeen) + text.left(2000)));
    QVERIFY2(text.contains(needle), qPrintable(args.join(u' ') + QStringLiteral(": ") + text.left(2000)));
}

QString q(const std::string& s) { return QString::fromStdString(s); }

// An object-based checkpoint whose graph is 'g' (variables named by its
// attributes get a float each), written with the project's writer.
void writeGraphCheckpoint(const std::string& prefix, const tensorflow::TrackableObjectGraph& g, bool withValues = true) {
    auto w = BundleWriter::create(prefix);
    QVERIFY(w.ok());
    std::vector<std::string> keys;
    for (const auto& n : g.nodes())
        for (const auto& a : n.attributes())
            if (withValues && !a.checkpoint_key().empty()) keys.push_back(a.checkpoint_key());
    keys.push_back(std::string(kObjectGraphKey));
    std::sort(keys.begin(), keys.end());
    keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
    for (const std::string& k : keys) {
        Tensor t;
        if (k == kObjectGraphKey) {
            t.dtype = DataType::String;
            t.strings = {g.SerializeAsString()};
        } else {
            t.dtype = DataType::Float;
            t.shape.dims = {1};
            t.bytes.assign(4, 0);
        }
        QVERIFY((*w)->add(k, t).isOk());
    }
    QVERIFY((*w)->finish().isOk());
}

using GraphProto = tensorflow::TrackableObjectGraph;

void addChild(GraphProto& g, int from, int to, const std::string& name) {
    auto* c = g.mutable_nodes(from)->add_children();
    c->set_node_id(to);
    c->set_local_name(name);
}

void addVariable(GraphProto& g, int node, const std::string& key) {
    auto* a = g.mutable_nodes(node)->add_attributes();
    a->set_name(std::string(kVariableValue));
    a->set_checkpoint_key(key);
}

void addSlot(GraphProto& g, int optimizer, int original, int slot) {
    auto* s = g.mutable_nodes(optimizer)->add_slot_variables();
    s->set_original_variable_node_id(original);
    s->set_slot_name("m");
    s->set_slot_variable_node_id(slot);
}

// The graph cases of the probe.
GraphProto hostileGraph(const QString& name) {
    GraphProto g;
    auto nodes = [&](int n) {
        for (int i = 0; i < n; ++i) g.add_nodes();
    };
    if (name.startsWith(QStringLiteral("chain"))) {
        const int depth = name.mid(5).toInt();
        nodes(depth + 1);
        for (int i = 0; i < depth; ++i) addChild(g, i, i + 1, "a");
        addVariable(g, depth, "a/.ATTRIBUTES/VARIABLE_VALUE");
    } else if (name == QStringLiteral("aliases")) {
        nodes(2);
        for (int i = 0; i < 300000; ++i) addChild(g, 0, 1, "x" + std::to_string(i));
        addVariable(g, 1, "x0/.ATTRIBUTES/VARIABLE_VALUE");
    } else if (name == QStringLiteral("graph_slot_self")) {
        nodes(3);
        addChild(g, 0, 1, "opt");
        addChild(g, 0, 2, "v");
        addVariable(g, 2, "v/.ATTRIBUTES/VARIABLE_VALUE");
        addSlot(g, 1, 2, 1);  // the optimizer is its own slot
    } else if (name == QStringLiteral("graph_slot_mutual")) {
        nodes(4);
        addChild(g, 0, 1, "opt");
        addChild(g, 0, 2, "v");
        addVariable(g, 2, "v/.ATTRIBUTES/VARIABLE_VALUE");
        addSlot(g, 1, 2, 3);
        addSlot(g, 3, 2, 1);  // the slot is an optimizer whose slot is the first optimizer
    } else if (name == QStringLiteral("graph_slot_root")) {
        nodes(3);
        addChild(g, 0, 1, "opt");
        addChild(g, 0, 2, "v");
        addVariable(g, 2, "v/.ATTRIBUTES/VARIABLE_VALUE");
        addSlot(g, 1, 2, 0);  // the root is a slot
    } else if (name == QStringLiteral("slot_chain")) {
        // Each slot variable is the original variable of the next one.
        constexpr int kLength = 50000;
        nodes(kLength + 3);
        addChild(g, 0, 1, "opt");
        addChild(g, 0, 2, "v");
        addVariable(g, 2, "v/.ATTRIBUTES/VARIABLE_VALUE");
        for (int i = 0; i < kLength; ++i) addSlot(g, 1, 2 + i, 3 + i);
    } else if (name == QStringLiteral("slot_nest")) {
        // Each slot variable is the optimizer of the next: the display tree
        // nests them 50,000 deep (issue #29, finding 8).
        constexpr int kLength = 50000;
        nodes(kLength + 3);
        addChild(g, 0, 1, "opt");
        addChild(g, 0, 2, "v");
        addVariable(g, 2, "v/.ATTRIBUTES/VARIABLE_VALUE");
        for (int i = 0; i < kLength; ++i) addSlot(g, i == 0 ? 1 : 2 + i, 2, 3 + i);
    }
    return g;
}

}  // namespace

class TstHostileInputs : public QObject {
    Q_OBJECT
private slots:
    // --- aborts --------------------------------------------------------

    void stringEntryClaimingHugeSize_data() {
        QTest::addColumn<qint64>("size");
        QTest::newRow("2^40 bytes") << (qint64(1) << 40);
        QTest::newRow("2^63-1 bytes") << std::numeric_limits<qint64>::max();
    }
    void stringEntryClaimingHugeSize() {
        QFETCH(qint64, size);
        HandMade b;
        b.write({{"s", entry(7, {1}, 0, size, 0).SerializeAsString()}}, std::string(8, '\0'));
        QVERIFY_BUDGET([&] {
            auto r = BundleReader::open(b.prefix);
            if (!r) return expectError(r.status(), StatusCode::DataLoss, {"\"s\"", b.indexName()});
            return expectError((*r)->read("s").status(), StatusCode::DataLoss, {"\"s\"", "ckpt-1.data-00000-of-00001"});
        });
        expectCli({QStringLiteral("cat"), q(b.prefix), QStringLiteral("s")}, 1, QStringLiteral("DataLoss"));
        expectCli({QStringLiteral("stats"), q(b.prefix), QStringLiteral("s")}, 1, QStringLiteral("DataLoss"));
        expectCli({QStringLiteral("verify"), q(b.prefix)}, 1, QStringLiteral("DataLoss"));
    }

    void stringLengthClaimingHugeSize_data() {
        QTest::addColumn<qint64>("length");
        QTest::newRow("2^40 bytes") << (qint64(1) << 40);
        QTest::newRow("2^63-1 bytes") << std::numeric_limits<qint64>::max();
    }
    void stringLengthClaimingHugeSize() {
        // Two elements whose varint lengths claim the size, checksums recomputed.
        QFETCH(qint64, length);
        std::string region;
        // Over the lengths as 8-byte words (docs/format.md, "String tensors"), so only the sizes are wrong.
        uint32_t lengthCrc = 0;
        for (int i = 0; i < 2; ++i) {
            appendVarint(region, static_cast<uint64_t>(length));
            const auto word = static_cast<uint64_t>(length);
            lengthCrc = platform::crc32cExtend(lengthCrc, &word, 8);
        }
        const uint32_t maskedLengthCrc = platform::crc32cMask(lengthCrc);
        region.append(reinterpret_cast<const char*>(&maskedLengthCrc), 4);
        region.append(8, 'x');
        const auto bytes = std::span(reinterpret_cast<const uint8_t*>(region.data()), region.size());
        const uint32_t crc = checksumOrZero(regionChecksum(bytes, DataType::String, 2, "s"));
        HandMade b;
        b.write({{"s", entry(7, {2}, 0, static_cast<int64_t>(region.size()), crc).SerializeAsString()}}, region);
        QVERIFY_BUDGET([&] {
            auto r = BundleReader::open(b.prefix);
            if (!r) return expectError(r.status(), StatusCode::DataLoss, {b.indexName()});
            return expectError((*r)->read("s").status(), StatusCode::DataLoss, {"\"s\""});
        });
        expectCli({QStringLiteral("cat"), q(b.prefix), QStringLiteral("s")}, 1, QStringLiteral("DataLoss"));
        expectCli({QStringLiteral("stats"), q(b.prefix), QStringLiteral("s")}, 1, QStringLiteral("DataLoss"));
    }

    void partitionedHugeShape_data() {
        QTest::addColumn<qint64>("elements");
        QTest::newRow("2^26 elements") << (qint64(1) << 26);
        QTest::newRow("2^33 elements") << (qint64(1) << 33);
    }
    void partitionedHugeShape() {
        // One 4-element slice of a tensor claiming far more elements.
        QFETCH(qint64, elements);
        tensorflow::BundleEntryProto full = entry(1, {elements}, 0, 0, 0);
        auto* extent = full.add_slices()->add_extent();
        extent->set_start(0);
        extent->set_length(4);
        TensorSlice slice;
        slice.extents.push_back({0, 4});
        HandMade b;
        b.write({floatEntry(format::encodeSliceKey("p", slice)), {"p", full.SerializeAsString()}}, kFourFloats);
        QVERIFY_BUDGET([&] {
            auto r = BundleReader::open(b.prefix);
            if (!r) return expectError(r.status(), StatusCode::DataLoss, {"\"p\"", b.indexName()});
            return expectError((*r)->read("p").status(), StatusCode::DataLoss,
                               {"\"p\"", "does not have sufficient slices to cover shape"});
        });
        expectCli({QStringLiteral("cat"), q(b.prefix), QStringLiteral("p")}, 1, QStringLiteral("sufficient slices"));
        expectCli({QStringLiteral("stats"), q(b.prefix), QStringLiteral("p")}, 1, QStringLiteral("sufficient slices"));
        expectCli({QStringLiteral("verify"), q(b.prefix)}, 1, QStringLiteral("sufficient slices"));
    }

    // --- unbounded work ------------------------------------------------

    void headerClaimingHugeShardCount_data() {
        QTest::addColumn<int>("shards");
        QTest::newRow("10^8 shards") << 100000000;
        QTest::newRow("2^31-1 shards") << std::numeric_limits<int>::max();
    }
    void headerClaimingHugeShardCount() {
        QFETCH(int, shards);
        HandMade b;
        b.write({floatEntry()}, kFourFloats, shards);
        QVERIFY_BUDGET([&] { return expectVerifyProblem(b.prefix, {"num_shards is " + std::to_string(shards), "1 data file"}); });
        QVERIFY_BUDGET([&] {
            auto c = Checkpoint::open(b.prefix);
            if (!c) return expectError(c.status(), StatusCode::DataLoss, {b.indexName()});
            auto t = (*c)->bundle().read("v");
            return t.ok() && buildDisplayTree(**c).entries.size() == 2;
        });
        expectCli({QStringLiteral("verify"), q(b.prefix)}, 1, QStringLiteral("num_shards is"));
        expectCli({QStringLiteral("tree"), q(b.prefix)}, 0, QStringLiteral("v"));
    }

    void stringEntryOfManyElements() {
        // 2^26 strings in a zero-byte region: TensorFlow never writes one.
        HandMade b;
        b.write({{"s", entry(7, {int64_t{1} << 26}, 0, 0, platform::crc32cMask(0)).SerializeAsString()}}, "");
        QVERIFY_BUDGET([&] {
            return expectError(BundleReader::open(b.prefix).status(), StatusCode::DataLoss,
                               {"\"s\"", b.indexName(), "cannot hold 67108864 strings"});
        });
        expectCli({QStringLiteral("cat"), q(b.prefix), QStringLiteral("s")}, 1, QStringLiteral("cannot hold 67108864 strings"));
    }

    // Issue #29, finding 3: a model spec that is a chain of N nested
    // objects. Its paths would be quadratic; the reader measures them first
    // and refuses the spec, naming its depth, within the budget hostile
    // checkpoints get; `restore --into` and `import --spec` say the same.
    void deepSpecChains_data() {
        QTest::addColumn<int>("depth");
        QTest::newRow("chain of 20,000") << 20000;
        QTest::newRow("chain of 100,000") << 100000;
    }
    void deepSpecChains() {
        QFETCH(int, depth);
        std::string spec = R"({"format": "ckpt-model-spec", "version": 1, "objects": [)";
        for (int i = 0; i < depth; ++i)
            spec += "{\"id\": " + std::to_string(i) + ", \"children\": [{\"name\": \"c\", \"id\": " + std::to_string(i + 1) +
                    "}]},\n";
        spec += "{\"id\": " + std::to_string(depth) + R"(, "kind": "variable", "dtype": "float32", "shape": [2]}]})";
        QVERIFY_BUDGET([&] {
            return expectError(parseModelSpec(spec, "chain.json").status(), StatusCode::InvalidArgument,
                               {"chain.json: $.objects: objects nest " + std::to_string(depth) + " levels deep"});
        });
        QTemporaryDir tmp;
        const std::string path = tmp.filePath(QStringLiteral("chain.json")).toStdString();
        std::ofstream(path) << spec;
        HandMade b;
        b.write({{"x", entry(1, {1}, 0, 4, maskedCrc(std::string(4, '\0'))).SerializeAsString()}}, std::string(4, '\0'));
        expectCli({QStringLiteral("restore"), q(b.prefix), QStringLiteral("--into"), q(path), QStringLiteral("--match-only"),
                   QStringLiteral("--no-record")},
                  2, QStringLiteral("levels deep"));
        // A safetensors file with one float32 [2] array, for import.
        std::string header = R"({"c": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}})";
        header.resize((header.size() + 7) / 8 * 8, ' ');
        std::string file(8, '\0');
        for (int i = 0; i < 8; ++i) file[static_cast<size_t>(i)] = static_cast<char>((header.size() >> (8 * i)) & 0xff);
        file += header + std::string(8, '\0');
        const std::string arrays = tmp.filePath(QStringLiteral("c.safetensors")).toStdString();
        std::ofstream(arrays, std::ios::binary) << file;
        expectCli({QStringLiteral("import"), q(arrays), q(tmp.filePath(QStringLiteral("out/ckpt")).toStdString()),
                   QStringLiteral("--spec"), q(path)},
                  2, QStringLiteral("levels deep"));
    }

    void hostileGraphs_data() {
        QTest::addColumn<QString>("name");
        for (const char* n : {"chain20000", "chain200000", "aliases", "graph_slot_self", "graph_slot_mutual", "graph_slot_root",
                              "slot_chain", "slot_nest"})
            QTest::newRow(n) << QString::fromLatin1(n);
    }
    void hostileGraphs() {
        QFETCH(QString, name);
        const GraphProto g = hostileGraph(name);
        const std::string serialized = g.SerializeAsString();
        QVERIFY_BUDGET([&] {
            auto graph = ObjectGraph::parse(serialized, "ckpt-1.index");
            if (!graph) return expectError(graph.status(), StatusCode::DataLoss, {"ckpt-1.index", "levels deep"});
            for (int32_t id = 0; id < graph->size(); ++id) (void)graph->displayName(id);
            return graph->node(0).prettyPath == std::string("(root)");
        });
        QTemporaryDir tmp;
        const std::string prefix = tmp.filePath(QStringLiteral("ckpt-1")).toStdString();
        writeGraphCheckpoint(prefix, g);
        QVERIFY_BUDGET([&] {
            auto c = Checkpoint::open(prefix);
            if (!c) return expectError(c.status(), StatusCode::DataLoss, {"levels deep"});
            return !buildDisplayTree(**c).entries.empty();
        });
        const bool deep = name.startsWith(QStringLiteral("chain"));
        for (const char* command : {"inspect", "tree", "verify"})
            expectCli({QString::fromLatin1(command), q(prefix)}, deep ? 1 : 0, deep ? QStringLiteral("levels deep") : QString());
        // What the tree prints grows with the graph, not with its depth
        // squared: a 50,000-deep nest printed 5 GB, 7,800 times its graph.
        const qint64 bound = 4096 + 100 * static_cast<qint64>(serialized.size());
        expectCli({QStringLiteral("tree"), q(prefix)}, deep ? 1 : 0, QString(), bound);
        expectCli({QStringLiteral("tree"), q(prefix), QStringLiteral("--json")}, deep ? 1 : 0, QString(), bound);
        expectCli({QStringLiteral("restore"), q(prefix), QStringLiteral("--into"), q(prefix), QStringLiteral("--match-only")},
                  deep ? 1 : 0, QString());
    }

    // --- verify must not call these clean ----------------------------

    void unmaterialisableDtypes_data() {
        QTest::addColumn<int>("dtype");
        QTest::addColumn<QString>("why");
        QTest::newRow("DT_RESOURCE") << 20 << QStringLiteral("resource");
        QTest::newRow("DT_VARIANT with no bytes") << 21 << QStringLiteral("cannot hold 4 variant");
        QTest::newRow("DT_FLOAT_REF") << 101 << QStringLiteral("reference dtype 101");
    }
    void unmaterialisableDtypes() {
        QFETCH(int, dtype);
        QFETCH(QString, why);
        const int64_t size = dtype == 101 ? 16 : 0;
        HandMade b;
        b.write({{"v", entry(dtype, {4}, 0, size, maskedCrc(size ? kFourFloats : "")).SerializeAsString()}}, kFourFloats);
        QVERIFY(expectVerifyProblem(b.prefix, {"\"v\"", why.toStdString()}));
        expectCli({QStringLiteral("verify"), q(b.prefix)}, 1, why);
    }

    void objectGraphEntryOfWrongKind_data() {
        QTest::addColumn<int>("dtype");
        QTest::addColumn<qint64>("dims");  // -1: scalar
        QTest::newRow("float scalar") << 1 << qint64(-1);
        QTest::newRow("two strings") << 7 << qint64(2);
        QTest::newRow("shape [1]") << 7 << qint64(1);
    }
    void objectGraphEntryOfWrongKind() {
        QFETCH(int, dtype);
        QFETCH(qint64, dims);
        GraphProto g;
        g.add_nodes();
        const std::string graph = g.SerializeAsString();
        std::string region;
        if (dtype == 1) {
            region.assign(4, '\0');
        } else {
            for (qint64 i = 0; i < dims; ++i) region.push_back(static_cast<char>(graph.size()));
            region.append(4, '\0');
            for (qint64 i = 0; i < dims; ++i) region += graph;
        }
        const auto bytes = std::span(reinterpret_cast<const uint8_t*>(region.data()), region.size());
        const int64_t n = dims < 0 ? 1 : dims;
        if (dtype == 7) {  // a valid length checksum
            uint32_t lenCrc = 0;
            for (qint64 i = 0; i < dims; ++i) {
                const uint32_t l = static_cast<uint32_t>(graph.size());
                lenCrc = platform::crc32cExtend(lenCrc, &l, 4);
            }
            const uint32_t masked = platform::crc32cMask(lenCrc);
            std::memcpy(region.data() + dims, &masked, 4);
        }
        const uint32_t crc = checksumOrZero(regionChecksum(bytes, dtype == 1 ? DataType::Float : DataType::String, n, "g"));
        std::vector<int64_t> shape;
        if (dims >= 0) shape.push_back(dims);
        HandMade b;
        b.write({{std::string(kObjectGraphKey),
                  entry(dtype, shape, 0, static_cast<int64_t>(region.size()), crc).SerializeAsString()}},
                region);
        QVERIFY(expectVerifyProblem(b.prefix, {std::string(kObjectGraphKey), "expected a scalar DT_STRING"}));
        expectCli({QStringLiteral("verify"), q(b.prefix)}, 1, QStringLiteral("expected a scalar DT_STRING"));
    }

    void orphanSliceEntry() {
        TensorSlice slice;
        slice.extents.push_back({0, 4});
        HandMade b;
        b.write({floatEntry(format::encodeSliceKey("p", slice))}, kFourFloats);
        QVERIFY(expectVerifyProblem(b.prefix, {b.indexName(), "\"p\"", "no full entry"}));
        expectCli({QStringLiteral("verify"), q(b.prefix)}, 1, QStringLiteral("no full entry"));
    }

    void attributeNamingNoEntry_data() {
        QTest::addColumn<QString>("key");
        QTest::newRow("empty key") << QString();
        QTest::newRow("missing key") << QStringLiteral("nope/.ATTRIBUTES/VARIABLE_VALUE");
    }
    void attributeNamingNoEntry() {
        QFETCH(QString, key);
        GraphProto g;
        g.add_nodes();
        g.add_nodes();
        addChild(g, 0, 1, "v");
        addVariable(g, 1, key.toStdString());
        QTemporaryDir tmp;
        const std::string prefix = tmp.filePath(QStringLiteral("ckpt-1")).toStdString();
        writeGraphCheckpoint(prefix, g, false);
        QVERIFY(expectVerifyProblem(prefix, {"(root).v", "VARIABLE_VALUE"}));
        expectCli({QStringLiteral("verify"), q(prefix)}, 1, QStringLiteral("(root).v attribute VARIABLE_VALUE"));
    }

    void unknownEndianness() {
        HandMade b;
        b.write({floatEntry()}, kFourFloats, 1, headerBytes(1, 7));
        QVERIFY(expectError(BundleReader::open(b.prefix).status(), StatusCode::DataLoss, {b.indexName(), "endianness 7"}));
        QVERIFY(expectVerifyProblem(b.prefix, {"endianness 7"}));
        expectCli({QStringLiteral("verify"), q(b.prefix)}, 1, QStringLiteral("unknown endianness 7"));
    }

    void stateFileWithInvalidEscape() {
        HandMade b;
        b.write({floatEntry()}, kFourFloats);
        QVERIFY(ckpt::testing::writeAll(b.tmp.filePath(QStringLiteral("checkpoint")),
                                        QByteArrayLiteral("model_checkpoint_path: \"ckpt-1\\q\"\n")));
        expectCli({QStringLiteral("verify"), b.tmp.path()}, 1, QStringLiteral("invalid checkpoint state file"));
    }
};

QTEST_GUILESS_MAIN(TstHostileInputs)
#include "tst_hostile_inputs.moc"
