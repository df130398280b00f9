#pragma once
// Catalog::search with its plan chosen by the caller: the tests run every
// query both ways, whatever the size of their catalog. Engine-internal.

#include <string_view>

#include "catalog/database.h"
#include "ckpt/catalog.h"

namespace ckpt::catalog {

enum class SearchPlan {
    Auto,    // by the expected number of matching rows
    ByKeys,  // each matching key's rows through the key index
    Walk,    // every checkpoint in display order
};

Result<CatalogSearchResult> search(Database& db, std::string_view query, const CatalogSearchOptions& options, SearchPlan plan);

}  // namespace ckpt::catalog
