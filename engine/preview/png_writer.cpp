// writePng: libpng's simplified write API (png_image), 8-bit RGBA.

#include <png.h>

#include "ckpt/preview.h"

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
    if (!png_image_write_to_file(&image, path.c_str(), 0, heatmap.rgba.data(), 0, nullptr)) {
        const std::string message = image.message;
        png_image_free(&image);
        return Status(StatusCode::PermissionDenied, "cannot write PNG " + path + ": " + message);
    }
    return okStatus();
}

}  // namespace ckpt
