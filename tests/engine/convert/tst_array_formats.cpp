// The array file formats on their own (convert/safetensors.h, convert/npz.h):
// headers we write parse back for every dtype, and damaged or hostile
// headers (truncated, overlapping, huge claimed shapes, unsupported dtypes)
// are InvalidArgument naming the file, before anything is allocated for them.
// Files from Python are checked in tests/interop/tst_convert_interop.cpp.

#include <QTemporaryDir>
#include <QtTest>

#include <zip.h>

#include "ckpt/npy.h"
#include "convert/array_file.h"
#include "convert/npz.h"
#include "convert/safetensors.h"
#include "test_support.h"

using namespace ckpt;
using namespace ckpt::convert;

namespace {

std::string le64(uint64_t v) {
    std::string s(8, '\0');
    for (int i = 0; i < 8; ++i) s[static_cast<size_t>(i)] = static_cast<char>((v >> (8 * i)) & 0xff);
    return s;
}

// A safetensors file from header JSON text and a data area of 'dataBytes'.
std::string stFile(const std::string& json, size_t dataBytes) { return le64(json.size()) + json + std::string(dataBytes, 'x'); }

const DataType kSafetensorsTypes[] = {DataType::Bool,     DataType::UInt8,  DataType::Int8,  DataType::Int16,  DataType::UInt16,
                                      DataType::Int32,    DataType::UInt32, DataType::Int64, DataType::UInt64, DataType::Half,
                                      DataType::BFloat16, DataType::Float,  DataType::Double};

}  // namespace

class TstArrayFormats : public QObject {
    Q_OBJECT

private slots:
    void safetensorsEveryDtype();
    void safetensorsBad_data();
    void safetensorsBad();
    void safetensorsUnsupportedDtypeRefusedOnWrite();
    void npzRoundTrip();
    void npzDeflated();
    void npzBad_data();
    void npzBad();
};

void TstArrayFormats::safetensorsEveryDtype() {
    std::vector<SafetensorsEntry> entries;
    for (DataType d : kSafetensorsTypes) entries.push_back({std::string(dataTypeShortName(d)), d, TensorShape{{2, 3}}, 0, 0});
    entries.push_back({"scalar", DataType::Float, TensorShape{}, 0, 0});
    entries.push_back({"empty", DataType::Int64, TensorShape{{0, 4}}, 0, 0});
    const std::map<std::string, std::string> meta{{"ckpt.names", "paths"}};
    auto header = encodeSafetensorsHeader(entries, meta);
    QVERIFY2(header.ok(), header.status().toString().c_str());
    QCOMPARE(header->size() % 8, size_t{0});  // padded as the package pads
    const uint64_t data = entries.back().end;
    std::string file = *header + std::string(data, '\1');
    auto parsed = parseSafetensorsHeader(file, file.size(), "t.safetensors");
    QVERIFY2(parsed.ok(), parsed.status().toString().c_str());
    QCOMPARE(parsed->metadata, meta);
    QCOMPARE(parsed->entries.size(), entries.size());
    for (const SafetensorsEntry& e : entries) {
        auto it = std::find_if(parsed->entries.begin(), parsed->entries.end(),
                               [&](const SafetensorsEntry& p) { return p.name == e.name; });
        QVERIFY(it != parsed->entries.end());
        QCOMPARE(it->dtype, e.dtype);
        QCOMPARE(it->shape, e.shape);
        QCOMPARE(it->begin, e.begin);
        QCOMPARE(it->end, e.end);
    }
}

void TstArrayFormats::safetensorsBad_data() {
    QTest::addColumn<QByteArray>("file");
    QTest::addColumn<QString>("fragment");
    const auto row = [](const char* name, const std::string& file, const char* fragment) {
        QTest::newRow(name) << QByteArray::fromStdString(file) << QString::fromLatin1(fragment);
    };
    const std::string ok = R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})";
    row("empty file", "", "shorter than the 8-byte");
    row("truncated length", std::string("\x10\x00\x00", 3), "shorter than the 8-byte");
    row("truncated header", stFile(ok, 8).substr(0, 20), "runs past the end");
    row("header over the cap", le64(200'000'000) + "{}", "100 MB");
    row("length past the file", le64(1000) + "{}", "runs past the end");
    row("not JSON", stFile("{\"a\": [1, 2", 0), "not a JSON object");
    row("JSON array", stFile("[1, 2]", 0), "not a JSON object");
    row("unknown dtype", stFile(R"({"a":{"dtype":"F8_E4M3","shape":[2],"data_offsets":[0,2]}})", 2), "unsupported dtype F8_E4M3");
    row("complex dtype", stFile(R"({"a":{"dtype":"C64","shape":[1],"data_offsets":[0,8]}})", 8), "unsupported dtype C64");
    row("missing offsets", stFile(R"({"a":{"dtype":"F32","shape":[2]}})", 8), "lacks dtype");
    row("negative dim", stFile(R"({"a":{"dtype":"F32","shape":[-2],"data_offsets":[0,8]}})", 8), "other than sizes");
    row("overlapping offsets",
        stFile(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}})",
               12),
        "overlapping");
    row("hole between tensors",
        stFile(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"b":{"dtype":"F32","shape":[1],"data_offsets":[8,12]}})",
               12),
        "a hole");
    row("bytes after the last tensor", stFile(ok, 12), "4 bytes after the last tensor");
    row("offsets past the file", stFile(ok, 4), "outside the 4 data bytes");
    row("huge claimed shape", stFile(R"({"a":{"dtype":"F64","shape":[1099511627776,1099511627776],"data_offsets":[0,8]}})", 8),
        "larger than the file");
    row("shape overflowing int64", stFile(R"({"a":{"dtype":"U8","shape":[18446744073709551615],"data_offsets":[0,8]}})", 8),
        "overflows");
    row("shape disagrees with offsets", stFile(R"({"a":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}})", 12),
        "needs 12 bytes");
    row("metadata not strings", stFile(R"({"__metadata__":{"n":1}})", 0), "is not a string");
}

void TstArrayFormats::safetensorsBad() {
    QFETCH(QByteArray, file);
    QFETCH(QString, fragment);
    // Through the file reader too: it must read only what the parser accepts.
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("bad.safetensors"));
    QVERIFY(testing::writeAll(path, file));
    auto opened = ArrayFile::open(path.toStdString());
    QVERIFY(!opened.ok());
    QCOMPARE(opened.status().code(), StatusCode::InvalidArgument);
    QVERIFY2(QString::fromStdString(opened.status().message()).contains(fragment), opened.status().message().c_str());
    QVERIFY(opened.status().message().find("bad.safetensors") != std::string::npos);
}

void TstArrayFormats::safetensorsUnsupportedDtypeRefusedOnWrite() {
    std::vector<SafetensorsEntry> entries{{"s", DataType::String, TensorShape{{1}}, 0, 0}};
    auto header = encodeSafetensorsHeader(entries, {});
    QVERIFY(!header.ok());
    QVERIFY(header.status().message().find("DT_STRING") != std::string::npos);
}

void TstArrayFormats::npzRoundTrip() {
    QTemporaryDir dir;
    const std::string path = dir.filePath(QStringLiteral("a.npz")).toStdString();
    std::vector<NpzMember> members;
    const std::vector<uint8_t> values{1, 2, 3, 4, 5, 6, 7, 8};
    NpzMember m;
    m.name = "dense/kernel";
    m.preamble = npyPreamble("<i4", TensorShape{{2}});
    m.dataBytes = 8;
    m.fill = [&](std::vector<uint8_t>& out) {
        out = values;
        return okStatus();
    };
    members.push_back(m);
    members.push_back(npzStringMember(std::string(kNpzMetadataName), R"({"x":"y"})"));
    QVERIFY(writeNpzFile(path, members, {}, nullptr).isOk());
    auto reader = NpzReader::open(path);
    QVERIFY2(reader.ok(), reader.status().toString().c_str());
    QCOMPARE((*reader)->members().size(), size_t{2});
    auto t = (*reader)->read((*reader)->members()[0]);
    QVERIFY(t.ok());
    QCOMPARE(t->dtype, DataType::Int32);
    QCOMPARE(t->bytes, values);
    auto s = (*reader)->readString((*reader)->members()[1]);
    QVERIFY(s.ok());
    QCOMPARE(*s, std::string(R"({"x":"y"})"));
    // The metadata member is not one of the arrays.
    auto arrays = ArrayFile::open(path);
    QVERIFY(arrays.ok());
    QCOMPARE((*arrays)->arrays().size(), size_t{1});
    QCOMPARE((*arrays)->arrays()[0].name, std::string("dense/kernel"));

    // A failing fill leaves no archive and comes back as the error.
    const std::string failed = dir.filePath(QStringLiteral("f.npz")).toStdString();
    members[0].fill = [](std::vector<uint8_t>&) { return dataLoss("checksum mismatch for \"k\""); };
    const Status st = writeNpzFile(failed, members, {}, nullptr);
    QCOMPARE(st.code(), StatusCode::DataLoss);
    QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden), QStringList{QStringLiteral("a.npz")});
}

// np.savez_compressed deflates each member; made here with libzip the same way.
void TstArrayFormats::npzDeflated() {
    QTemporaryDir dir;
    const std::string path = dir.filePath(QStringLiteral("c.npz")).toStdString();
    std::string npy = npyPreamble("<f8", TensorShape{{1000}}) + std::string(8000, '\0');
    int err = 0;
    zip_t* z = zip_open(path.c_str(), ZIP_CREATE | ZIP_TRUNCATE, &err);
    QVERIFY(z);
    zip_source_t* src = zip_source_buffer(z, npy.data(), npy.size(), 0);
    const zip_int64_t idx = zip_file_add(z, "zeros.npy", src, 0);
    QVERIFY(idx >= 0);
    QCOMPARE(zip_set_file_compression(z, static_cast<zip_uint64_t>(idx), ZIP_CM_DEFLATE, 9), 0);
    QCOMPARE(zip_close(z), 0);
    auto arrays = ArrayFile::open(path);
    QVERIFY2(arrays.ok(), arrays.status().toString().c_str());
    QCOMPARE((*arrays)->arrays().size(), size_t{1});
    auto t = (*arrays)->read(0);
    QVERIFY2(t.ok(), t.status().toString().c_str());
    QCOMPARE(t->shape, (TensorShape{{1000}}));
    QCOMPARE(t->bytes, std::vector<uint8_t>(8000, 0));
}

void TstArrayFormats::npzBad_data() {
    QTest::addColumn<QByteArray>("npy");
    QTest::addColumn<QString>("fragment");
    const auto pre = [](const char* descr, TensorShape s) { return QByteArray::fromStdString(npyPreamble(descr, s)); };
    QTest::newRow("unsupported dtype") << pre(">f4", TensorShape{{2}}) + QByteArray(8, 'x') << QStringLiteral("'>f4'");
    QTest::newRow("object dtype") << pre("|O", TensorShape{{2}}) + QByteArray(16, 'x') << QStringLiteral("'|O'");
    QTest::newRow("truncated npy header") << pre("<f4", TensorShape{{2}}).left(40) << QStringLiteral("truncated");
    QTest::newRow("shape larger than the member")
        << pre("<f4", TensorShape{{1 << 30, 1 << 20}}) + QByteArray(8, 'x') << QStringLiteral("needs");
    QTest::newRow("not npy") << QByteArray("hello") << QStringLiteral("truncated");
}

void TstArrayFormats::npzBad() {
    QFETCH(QByteArray, npy);
    QFETCH(QString, fragment);
    QTemporaryDir dir;
    const std::string path = dir.filePath(QStringLiteral("bad.npz")).toStdString();
    int err = 0;
    zip_t* z = zip_open(path.c_str(), ZIP_CREATE | ZIP_TRUNCATE, &err);
    QVERIFY(z);
    zip_source_t* src = zip_source_buffer(z, npy.constData(), static_cast<zip_uint64_t>(npy.size()), 0);
    QVERIFY(zip_file_add(z, "w.npy", src, 0) >= 0);
    QCOMPARE(zip_close(z), 0);
    auto arrays = ArrayFile::open(path);
    QVERIFY(!arrays.ok());
    QCOMPARE(arrays.status().code(), StatusCode::InvalidArgument);
    QVERIFY2(QString::fromStdString(arrays.status().message()).contains(fragment), arrays.status().message().c_str());
    QVERIFY(arrays.status().message().find("bad.npz") != std::string::npos);
}

QTEST_GUILESS_MAIN(TstArrayFormats)
#include "tst_array_formats.moc"
