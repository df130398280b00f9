#pragma once
// Lets fuzz_index reach past the index's block checksums: after a mutation
// the footer's metaindex and index blocks and every data block the index
// block names get their trailer checksum recomputed (docs/format.md, "Block trailer and checksum"),
// so the table, header and entry parsing see the mutated bytes instead of
// stopping at a checksum mismatch. Blocks that cannot be located (a broken
// footer or handle) are left as they are: the reader's own checks get them.

#include <string>

namespace ckpt::fuzz {

void refreshBlockChecksums(std::string& table);

}  // namespace ckpt::fuzz
