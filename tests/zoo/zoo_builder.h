#pragma once
// How corruption_zoo.cpp and its case files make one case: copy a healthy
// source into the case's directory (or start from an empty one) and apply
// one edit. Internal to tests/zoo.

#include <functional>
#include <string>
#include <vector>

#include "corruption_zoo.h"

namespace ckpt::zoo {

// A healthy source: a directory and the prefix inside it.
struct Source {
    std::string dir;
    std::string prefixName;
    std::string key;             // a plain float tensor
    std::string partitionedKey;  // a tensor stored in slices, where there is one
};

// Copies a directory tree, made writable (the corpus may be read-only).
Status copyTree(const std::string& from, const std::string& to);

class Builder {
public:
    Builder(std::string root, std::vector<ZooCase>& cases) : m_root(std::move(root)), m_cases(cases) {}

    // A case copied from 'source', damaged by 'edit' (given the prefix).
    // The case opens its directory instead of the prefix when
    // 'openDirectory'; its key is the source's partitioned one when
    // 'partitionedKey'.
    Status fromSource(const std::string& name, const Source& source, const std::function<Status(const std::string&)>& edit,
                      bool openDirectory = false, bool partitionedKey = false);
    // A case written from nothing into its empty directory by 'write'
    // (given the directory); it opens <dir>/<prefixName>.
    Status fresh(const std::string& name, const std::string& prefixName, const std::string& key,
                 const std::function<Status(const std::string&)>& write);

private:
    std::string m_root;
    std::vector<ZooCase>& m_cases;
};

// Cases in zoo_graph_cases.cpp: object graphs, and state files (on a copy
// of a real checkpoint directory that has one).
Status graphCases(Builder& b);
Status stateFileCases(Builder& b, const Source& withStateFile);

}  // namespace ckpt::zoo
