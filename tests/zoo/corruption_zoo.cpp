#include "corruption_zoo.h"

#include <filesystem>
#include <functional>

#include "ckpt/bundle_naming.h"
#include "ckpt/bundle_writer.h"
#include "ckpt/checkpoint_state.h"
#include "ckpt/demo_trainer.h"
#include "format/ordered_code.h"
#include "platform/crc32c.h"
#include "zoo_builder.h"
#include "zoo_edits.h"

namespace fs = std::filesystem;

namespace ckpt::zoo {

Status copyTree(const std::string& from, const std::string& to) {
    std::error_code ec;
    fs::copy(from, to, fs::copy_options::recursive, ec);
    if (ec) return internalError("cannot copy " + from + " to " + to + ": " + ec.message());
    for (const auto& e : fs::recursive_directory_iterator(to))
        fs::permissions(e.path(), fs::perms::owner_read | fs::perms::owner_write, fs::perm_options::add, ec);
    return okStatus();
}

namespace {
Status annotate(const std::string& name, Status s) {
    return s.isOk() ? s : Status(s.code(), "zoo case " + name + ": " + s.message());
}
}  // namespace

Status Builder::fromSource(const std::string& name, const Source& source, const std::function<Status(const std::string&)>& edit,
                           bool openDirectory, bool partitionedKey) {
    const std::string dir = m_root + "/" + name;
    CKPT_RETURN_IF_ERROR(copyTree(source.dir, dir));
    const std::string prefix = dir + "/" + source.prefixName;
    m_cases.push_back({name, dir, openDirectory ? dir : prefix, partitionedKey ? source.partitionedKey : source.key});
    return annotate(name, edit(prefix));
}

Status Builder::fresh(const std::string& name, const std::string& prefixName, const std::string& key,
                      const std::function<Status(const std::string&)>& write) {
    const std::string dir = m_root + "/" + name;
    fs::create_directories(dir);
    m_cases.push_back({name, dir, dir + "/" + prefixName, key});
    return annotate(name, write(dir));
}

namespace {

constexpr const char* kGraphKey = "_CHECKPOINTABLE_OBJECT_GRAPH";
constexpr int kDtFloat = 1, kDtString = 7, kDtResource = 20, kDtFloatRef = 101;

// The first float entry stored whole, and the first partitioned one.
Status pickKeys(Source& s) {
    CKPT_ASSIGN_OR_RETURN(IndexEntries entries, readIndex(s.dir + "/" + indexFileName(s.prefixName)));
    for (const auto& [key, value] : entries) {
        tensorflow::BundleEntryProto e;
        if (key.empty() || format::isSliceKey(key) || !e.ParseFromString(value)) continue;
        if (e.slices_size() > 0 && s.partitionedKey.empty()) s.partitionedKey = key;
        if (e.slices_size() == 0 && e.dtype() == kDtFloat && e.size() > 0 && s.key.empty()) s.key = key;
    }
    return s.key.empty() ? notFound("no float tensor in " + s.dir) : okStatus();
}

std::string indexOf(const std::string& prefix) { return indexFileName(prefix); }
std::string dataOf(const std::string& prefix, int shard, int shards) { return dataFileName(prefix, shard, shards); }

// Bit flips, truncation and bad magic in each part of the .index file.
Status indexBlockCases(Builder& b, const std::string& tag, const Source& s) {
    auto atLayout = [](const std::function<Status(const std::string&, const TableLayout&)>& f) {
        return [f](const std::string& prefix) -> Status {
            CKPT_ASSIGN_OR_RETURN(TableLayout t, readTableLayout(indexOf(prefix)));
            return f(indexOf(prefix), t);
        };
    };
    using L = const TableLayout&;
    using P = const std::string&;
    CKPT_RETURN_IF_ERROR(
        b.fromSource(tag + "-data-block-flip", s, atLayout([](P p, L t) { return flipBit(p, t.dataBlockSize / 2); })));
    CKPT_RETURN_IF_ERROR(
        b.fromSource(tag + "-data-block-crc-flip", s, atLayout([](P p, L t) { return flipBit(p, t.dataBlockSize + 2); })));
    CKPT_RETURN_IF_ERROR(b.fromSource(tag + "-index-block-flip", s,
                                      atLayout([](P p, L t) { return flipBit(p, t.indexOffset + t.indexSize / 2); })));
    CKPT_RETURN_IF_ERROR(b.fromSource(tag + "-metaindex-flip", s,
                                      atLayout([](P p, L t) { return flipBit(p, t.metaindexOffset + t.metaindexSize / 2); })));
    CKPT_RETURN_IF_ERROR(
        b.fromSource(tag + "-footer-handle-flip", s, atLayout([](P p, L t) { return flipBit(p, t.footerOffset + 1, 0x40); })));
    CKPT_RETURN_IF_ERROR(
        b.fromSource(tag + "-bad-magic", s, atLayout([](P p, L t) { return flipBit(p, t.fileSize - 1, 0xff); })));
    CKPT_RETURN_IF_ERROR(b.fromSource(tag + "-truncated-in-data-block", s,
                                      atLayout([](P p, L t) { return truncateFile(p, t.dataBlockSize / 2); })));
    CKPT_RETURN_IF_ERROR(b.fromSource(tag + "-truncated-in-index-block", s,
                                      atLayout([](P p, L t) { return truncateFile(p, t.indexOffset + t.indexSize / 2); })));
    CKPT_RETURN_IF_ERROR(
        b.fromSource(tag + "-truncated-footer", s, atLayout([](P p, L t) { return truncateFile(p, t.fileSize - 1); })));
    return b.fromSource(tag + "-empty-index", s, [](P prefix) { return truncateFile(indexOf(prefix), 0); });
}

// One field of the header wrong.
Status headerCases(Builder& b, const Source& s) {
    using H = tensorflow::BundleHeaderProto&;
    auto header = [](std::function<void(H)> f) {
        return [f](const std::string& prefix) { return editHeader(indexOf(prefix), f); };
    };
    CKPT_RETURN_IF_ERROR(b.fromSource("header-zero-shards", s, header([](H h) { h.set_num_shards(0); })));
    CKPT_RETURN_IF_ERROR(b.fromSource("header-negative-shards", s, header([](H h) { h.set_num_shards(-1); })));
    CKPT_RETURN_IF_ERROR(b.fromSource("header-three-shards", s, header([](H h) { h.set_num_shards(3); })));
    CKPT_RETURN_IF_ERROR(b.fromSource("header-1e8-shards", s, header([](H h) { h.set_num_shards(100000000); })));
    CKPT_RETURN_IF_ERROR(b.fromSource("header-int-max-shards", s, header([](H h) { h.set_num_shards(2147483647); })));
    CKPT_RETURN_IF_ERROR(
        b.fromSource("header-big-endian", s, header([](H h) { h.set_endianness(tensorflow::BundleHeaderProto::BIG); })));
    CKPT_RETURN_IF_ERROR(b.fromSource("header-unknown-endianness", s, header([](H h) {
                                          h.set_endianness(static_cast<tensorflow::BundleHeaderProto::Endianness>(7));
                                      })));
    CKPT_RETURN_IF_ERROR(
        b.fromSource("header-future-min-consumer", s, header([](H h) { h.mutable_version()->set_min_consumer(7); })));
    CKPT_RETURN_IF_ERROR(b.fromSource("header-bad-consumer", s, header([](H h) { h.mutable_version()->add_bad_consumers(1); })));
    CKPT_RETURN_IF_ERROR(b.fromSource("header-garbage", s, [](const std::string& prefix) {
        return editIndex(indexOf(prefix), [](IndexEntries& e) {
            e.front().second = std::string("\xff\xff\xff", 3);
            return okStatus();
        });
    }));
    return b.fromSource("header-missing", s, [](const std::string& prefix) {
        return editIndex(indexOf(prefix), [](IndexEntries& e) {
            e.erase(e.begin());
            return okStatus();
        });
    });
}

// One field of one real entry wrong (the source's float tensor).
Status entryCases(Builder& b, const Source& s) {
    using E = tensorflow::BundleEntryProto&;
    auto entry = [&s](std::function<void(E)> f) {
        return [f, key = s.key](const std::string& prefix) { return editEntry(indexOf(prefix), key, f); };
    };
    CKPT_RETURN_IF_ERROR(
        b.fromSource("entry-unknown-dtype", s, entry([](E e) { e.set_dtype(static_cast<tensorflow::DataType>(77)); })));
    CKPT_RETURN_IF_ERROR(
        b.fromSource("entry-resource-dtype", s, entry([](E e) { e.set_dtype(static_cast<tensorflow::DataType>(kDtResource)); })));
    CKPT_RETURN_IF_ERROR(b.fromSource("entry-reference-dtype", s,
                                      entry([](E e) { e.set_dtype(static_cast<tensorflow::DataType>(kDtFloatRef)); })));
    CKPT_RETURN_IF_ERROR(b.fromSource("entry-negative-dim", s, entry([](E e) { e.mutable_shape()->add_dim()->set_size(-3); })));
    CKPT_RETURN_IF_ERROR(b.fromSource("entry-shape-mismatch", s, entry([](E e) { e.mutable_shape()->add_dim()->set_size(3); })));
    CKPT_RETURN_IF_ERROR(b.fromSource("entry-shape-overflow", s, entry([](E e) {
                                          e.mutable_shape()->add_dim()->set_size(int64_t(1) << 40);
                                          e.mutable_shape()->add_dim()->set_size(int64_t(1) << 40);
                                      })));
    CKPT_RETURN_IF_ERROR(b.fromSource("entry-shard-out-of-range", s, entry([](E e) { e.set_shard_id(5); })));
    CKPT_RETURN_IF_ERROR(b.fromSource("entry-negative-shard", s, entry([](E e) { e.set_shard_id(-1); })));
    CKPT_RETURN_IF_ERROR(
        b.fromSource("entry-offset-past-end", s, entry([](E e) { e.set_offset(e.offset() + (int64_t(1) << 30)); })));
    CKPT_RETURN_IF_ERROR(b.fromSource("entry-negative-offset", s, entry([](E e) { e.set_offset(-8); })));
    CKPT_RETURN_IF_ERROR(b.fromSource("entry-size-too-large", s, entry([](E e) { e.set_size(e.size() + 1); })));
    CKPT_RETURN_IF_ERROR(b.fromSource("entry-crc-mismatch", s, entry([](E e) { e.set_crc32c(e.crc32c() ^ 0x1u); })));
    CKPT_RETURN_IF_ERROR(b.fromSource("entry-bogus-slices", s, entry([](E e) { e.add_slices()->add_extent()->set_start(1); })));
    return b.fromSource("entry-garbage-proto", s, [key = s.key](const std::string& prefix) {
        return editIndex(indexOf(prefix), [&](IndexEntries& entries) {
            for (auto& [k, v] : entries)
                if (k == key) v = std::string("\xff\xff\xff\xff\x0f\x01", 6);
            return okStatus();
        });
    });
}

// Partitioned tensors (the demo run's sharded save stores its kernels in
// slices): a slice missing, out of bounds, orphaned, or a full shape too big.
Status sliceCases(Builder& b, const Source& s) {
    const std::string full = s.partitionedKey;
    auto edit = [full](std::function<Status(IndexEntries&, size_t fullAt)> f) {
        return [f, full](const std::string& prefix) {
            return editIndex(indexOf(prefix), [&](IndexEntries& entries) -> Status {
                for (size_t i = 0; i < entries.size(); ++i)
                    if (entries[i].first == full) return f(entries, i);
                return notFound("no entry " + full);
            });
        };
    };
    auto firstSliceOf = [full](IndexEntries& entries) -> size_t {
        for (size_t i = 0; i < entries.size(); ++i)
            if (format::isSliceKey(entries[i].first) && entries[i].first.find(full) != std::string::npos) return i;
        return entries.size();
    };
    CKPT_RETURN_IF_ERROR(b.fromSource("slice-entry-missing", s, edit([firstSliceOf](IndexEntries& e, size_t) {
                                          const size_t i = firstSliceOf(e);
                                          if (i == e.size()) return notFound("no slice entry");
                                          e.erase(e.begin() + static_cast<std::ptrdiff_t>(i));
                                          return okStatus();
                                      }),
                                      false, true));
    CKPT_RETURN_IF_ERROR(b.fromSource("slice-orphan", s, edit([](IndexEntries& e, size_t at) {
                                          e.erase(e.begin() + static_cast<std::ptrdiff_t>(at));
                                          return okStatus();
                                      }),
                                      false, true));
    auto fullEntry = [](std::function<void(tensorflow::BundleEntryProto&)> f) {
        return [f](IndexEntries& e, size_t at) {
            tensorflow::BundleEntryProto p;
            if (!p.ParseFromString(e[at].second)) return dataLoss("full entry does not parse");
            f(p);
            e[at].second = p.SerializeAsString();
            return okStatus();
        };
    };
    using E = tensorflow::BundleEntryProto&;
    CKPT_RETURN_IF_ERROR(b.fromSource("slice-extent-out-of-bounds", s,
                                      edit(fullEntry([](E p) { p.mutable_slices(0)->mutable_extent(0)->set_start(1000); })),
                                      false, true));
    // The first dimension is the split one: its slices stay consistent and
    // cover a sliver of the claimed full shape.
    auto widen = [](int64_t elements) {
        return [elements](E p) {
            auto* shape = p.mutable_shape();
            int64_t others = 1;
            for (int i = 1; i < shape->dim_size(); ++i) others *= shape->dim(i).size();
            shape->mutable_dim(0)->set_size(elements / others);
        };
    };
    CKPT_RETURN_IF_ERROR(b.fromSource("slice-full-shape-2e26", s, edit(fullEntry(widen(int64_t(1) << 26))), false, true));
    return b.fromSource("slice-full-shape-2e33", s, edit(fullEntry(widen(int64_t(1) << 33))), false, true);
}

// Hand-made one-tensor bundles: what a real writer never stores.
Status handMadeCases(Builder& b) {
    auto bundle = [](IndexEntries entries, std::string data) {
        return [entries, data](const std::string& dir) -> Status {
            CKPT_RETURN_IF_ERROR(writeFile(dir + "/h.data-00000-of-00001", data));
            return writeIndex(dir + "/h.index", entries);
        };
    };
    const std::string eight(8, 'x');
    CKPT_RETURN_IF_ERROR(b.fresh("string-claims-2e40-bytes", "h", "s",
                                 bundle({{"", headerBytes()}, {"s", entryBytes(kDtString, {1}, int64_t(1) << 40)}}, eight)));
    CKPT_RETURN_IF_ERROR(
        b.fresh("string-claims-int64-max-bytes", "h", "s",
                bundle({{"", headerBytes()}, {"s", entryBytes(kDtString, {1}, std::numeric_limits<int64_t>::max())}}, eight)));
    CKPT_RETURN_IF_ERROR(b.fresh("string-2e26-elements", "h", "s",
                                 bundle({{"", headerBytes()}, {"s", entryBytes(kDtString, {int64_t(1) << 26}, 8)}}, eight)));
    // Keys "q" and "r" written in order, then the block's "r" made a second
    // "q" (or an "a" after it) with a fresh block checksum.
    const uint32_t crc = platform::crc32cMask(platform::crc32c(eight));
    const std::string q = entryBytes(kDtFloat, {2}, 8, 0, 0, crc), r = entryBytes(kDtFloat, {2}, 8, 0, 0, crc);
    auto patched = [&](std::string to) {
        return [entries = IndexEntries{{"", headerBytes()}, {"q", q}, {"r", r}}, eight, to,
                length = char(r.size())](const std::string& dir) -> Status {
            CKPT_RETURN_IF_ERROR(writeFile(dir + "/h.data-00000-of-00001", eight));
            CKPT_RETURN_IF_ERROR(writeIndex(dir + "/h.index", entries));
            // An unshared key: 0 shared bytes, 1 new byte, the value's length.
            const std::string stored = std::string("\0\1", 2) + length + "r";
            return patchDataBlock(dir + "/h.index", stored, std::string("\0\1", 2) + length + to);
        };
    };
    CKPT_RETURN_IF_ERROR(b.fresh("index-duplicate-key", "h", "q", patched("q")));
    return b.fresh("index-keys-out-of-order", "h", "q", patched("a"));
}

// Shards missing, swapped, extra, truncated (a two-shard real checkpoint).
Status shardCases(Builder& b, const Source& s) {
    using P = const std::string&;
    CKPT_RETURN_IF_ERROR(b.fromSource("shard-missing", s, [](P p) {
        fs::remove(dataOf(p, 1, 2));
        return okStatus();
    }));
    CKPT_RETURN_IF_ERROR(b.fromSource("shard-all-missing", s, [](P p) {
        fs::remove(dataOf(p, 0, 2));
        fs::remove(dataOf(p, 1, 2));
        return okStatus();
    }));
    CKPT_RETURN_IF_ERROR(b.fromSource("shard-swapped", s, [](P p) {
        fs::rename(dataOf(p, 0, 2), p + ".swap");
        fs::rename(dataOf(p, 1, 2), dataOf(p, 0, 2));
        fs::rename(p + ".swap", dataOf(p, 1, 2));
        return okStatus();
    }));
    CKPT_RETURN_IF_ERROR(b.fromSource("shard-extra-of-three", s, [](P p) { return writeFile(dataOf(p, 2, 3), "extra"); }));
    CKPT_RETURN_IF_ERROR(
        b.fromSource("shard-extra-out-of-range", s, [](P p) { return writeFile(p + ".data-00002-of-00002", "extra"); }));
    CKPT_RETURN_IF_ERROR(b.fromSource("shard-truncated", s, [](P p) { return truncateFile(dataOf(p, 1, 2), 1000); }));
    CKPT_RETURN_IF_ERROR(b.fromSource("shard-empty", s, [](P p) { return truncateFile(dataOf(p, 1, 2), 0); }));
    return b.fromSource("shard-is-directory", s, [](P p) {
        fs::remove(dataOf(p, 1, 2));
        fs::create_directory(dataOf(p, 1, 2));
        return okStatus();
    });
}

// Tensor bytes damaged in the data file.
Status dataCases(Builder& b, const Source& keras, const Source& demo) {
    auto flipKey = [](const std::string& key) {
        return [key](const std::string& prefix) -> Status {
            CKPT_ASSIGN_OR_RETURN(IndexEntries entries, readIndex(indexOf(prefix)));
            for (const auto& [k, v] : entries) {
                tensorflow::BundleEntryProto e;
                if (k != key || !e.ParseFromString(v)) continue;
                return flipBit(dataOf(prefix, e.shard_id(), 1), static_cast<uint64_t>(e.offset() + e.size() - 1), 0x01);
            }
            return notFound("no entry " + key);
        };
    };
    CKPT_RETURN_IF_ERROR(b.fromSource("keras-tensor-byte-flip", keras, flipKey(keras.key)));
    return b.fromSource("demo-object-graph-byte-flip", demo, [](const std::string& prefix) -> Status {
        CKPT_ASSIGN_OR_RETURN(IndexEntries entries, readIndex(indexOf(prefix)));
        tensorflow::BundleHeaderProto h;
        h.ParseFromString(entries.front().second);
        for (const auto& [k, v] : entries) {
            tensorflow::BundleEntryProto e;
            if (k != kGraphKey || !e.ParseFromString(v)) continue;
            return flipBit(dataOf(prefix, e.shard_id(), h.num_shards()), static_cast<uint64_t>(e.offset() + e.size() / 2), 0x01);
        }
        return notFound("no object graph in " + prefix);
    });
}

}  // namespace

Result<std::vector<ZooCase>> buildZoo(const std::string& root, const std::string& realDir) {
    std::vector<ZooCase> cases;
    Source keras{realDir + "/tfx_keras_adam_savedmodel", "variables", {}, {}};
    Source t2t{realDir + "/t2t_transformer_2shards", "model.ckpt-1", {}, {}};
    CKPT_RETURN_IF_ERROR(pickKeys(keras));
    CKPT_RETURN_IF_ERROR(pickKeys(t2t));

    // Our own writer: a short demo run saved in size-capped shards, so that
    // its kernels are partitioned into slices.
    Source demo{root + "/.source-demo", "", {}, {}};
    DemoTrainOptions o;
    o.directory = demo.dir;
    o.steps = 20;
    o.saveEvery = 10;
    o.hidden = 4;
    o.maxShardBytes = 96;
    CKPT_RETURN_IF_ERROR(runDemoTraining(o).status());
    CKPT_ASSIGN_OR_RETURN(auto latest, latestCheckpoint(demo.dir));
    if (!latest) return notFound("the demo run left no checkpoint in " + demo.dir);
    demo.prefixName = fs::path(*latest).filename().string();
    CKPT_RETURN_IF_ERROR(pickKeys(demo));
    if (demo.partitionedKey.empty()) return notFound("the demo run stored no partitioned tensor");

    Builder b(root, cases);
    CKPT_RETURN_IF_ERROR(b.fromSource("control-keras", keras, [](const std::string&) { return okStatus(); }));
    CKPT_RETURN_IF_ERROR(b.fromSource("control-demo", demo, [](const std::string&) { return okStatus(); }));
    CKPT_RETURN_IF_ERROR(indexBlockCases(b, "keras", keras));
    CKPT_RETURN_IF_ERROR(indexBlockCases(b, "demo", demo));
    CKPT_RETURN_IF_ERROR(headerCases(b, keras));
    CKPT_RETURN_IF_ERROR(entryCases(b, keras));
    CKPT_RETURN_IF_ERROR(sliceCases(b, demo));
    CKPT_RETURN_IF_ERROR(handMadeCases(b));
    CKPT_RETURN_IF_ERROR(shardCases(b, t2t));
    CKPT_RETURN_IF_ERROR(dataCases(b, keras, demo));
    Source estimator{realDir + "/tfx_estimator_ckpt1000", "model.ckpt-1000", {}, {}};
    CKPT_RETURN_IF_ERROR(pickKeys(estimator));
    CKPT_RETURN_IF_ERROR(stateFileCases(b, estimator));
    CKPT_RETURN_IF_ERROR(graphCases(b));
    fs::remove_all(demo.dir);
    return cases;
}

}  // namespace ckpt::zoo
