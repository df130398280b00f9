// writePng: libpng's simplified write API (png_image), 8-bit RGBA, encoded
// in memory and written through the storage layer.

#include <png.h>

#include "ckpt/preview.h"
#include "storage/dispatch.h"

namespace ckpt {

Status writePng(const Heatmap& heatmap, const std::string& path) {
    if (heatmap.width < 1 || heatmap.height < 1 ||
        heatmap.rgba.size() != static_cast<size_t>(heatmap.width) * static_cast<size_t>(heatmap.height) * 4) {
        return invalidArgument("heatmap has no pixels to write to " + path);
    }
    png_image image{};
    image.version = PNG_IMAGE_VERSION;
    image.width = static_cast<png_uint_32>(heatmap.width);
    image.height = static_cast<png_uint_32>(heatmap.height);
    image.format = PNG_FORMAT_RGBA;
    // Encoded in memory, then written whole through the storage layer (an
    // atomic replace: a failed write never leaves half a PNG).
    png_alloc_size_t size = 0;
    if (!png_image_write_to_memory(&image, nullptr, &size, 0, heatmap.rgba.data(), 0, nullptr)) {
        const std::string message = image.message;
        png_image_free(&image);
        return internalError("cannot encode PNG " + path + ": " + message);
    }
    std::string bytes(size, '\0');
    if (!png_image_write_to_memory(&image, bytes.data(), &size, 0, heatmap.rgba.data(), 0, nullptr)) {
        const std::string message = image.message;
        png_image_free(&image);
        return internalError("cannot encode PNG " + path + ": " + message);
    }
    bytes.resize(size);
    return storage::writeObject(path, bytes).status();
}

}  // namespace ckpt
