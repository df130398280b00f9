// The versions of the libraries the engine is built with (ckpt/build_info.h),
// for `ckpt --version` and the explorer's About dialog. It names libraries
// every module uses (and asks preview/ for the CUDA runtime), so it sits
// above all of them rather than in platform/.

#include "ckpt/build_info.h"

#include <google/protobuf/stubs/common.h>
#include <leveldb/db.h>
#include <png.h>
#include <sqlite3.h>
#include <zip.h>

#include "preview/preview_backend.h"

namespace ckpt {

std::vector<LibraryVersion> libraryVersions() {
    std::vector<LibraryVersion> out;
    out.push_back({"protobuf", google::protobuf::internal::VersionString(GOOGLE_PROTOBUF_VERSION)});
    out.push_back({"LevelDB", std::to_string(leveldb::kMajorVersion) + "." + std::to_string(leveldb::kMinorVersion)});
    out.push_back({"SQLite", sqlite3_libversion()});
    out.push_back({"libpng", png_get_libpng_ver(nullptr)});
    out.push_back({"libzip", zip_libzip_version()});
    out.push_back({"CUDA runtime", preview::cudaRuntimeDescription()});
    return out;
}

}  // namespace ckpt
