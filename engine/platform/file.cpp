#include "platform/file.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace ckpt::platform {

std::string errnoText(int err) { return std::strerror(err); }

Status statusFromErrno(int err, const std::string& message) {
    StatusCode code = StatusCode::DataLoss;
    switch (err) {
    case ENOENT:
    case ENOTDIR: code = StatusCode::NotFound; break;
    case EACCES:
    case EPERM:
    case EROFS: code = StatusCode::PermissionDenied; break;
    case ENOSPC:
    case EDQUOT:
    case ENOMEM:
    case EMFILE: code = StatusCode::ResourceExhausted; break;
    default: break;
    }
    return {code, message + ": " + errnoText(err)};
}

std::string baseName(std::string_view path) {
    while (path.size() > 1 && path.back() == '/') path.remove_suffix(1);
    const auto slash = path.rfind('/');
    return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

std::string dirName(std::string_view path) {
    while (path.size() > 1 && path.back() == '/') path.remove_suffix(1);
    const auto slash = path.rfind('/');
    if (slash == std::string_view::npos) return ".";
    if (slash == 0) return "/";
    return std::string(path.substr(0, slash));
}

std::string canonicalPath(const std::string& path) {
    std::error_code ec;
    std::filesystem::path p = std::filesystem::weakly_canonical(std::filesystem::absolute(path, ec), ec);
    if (ec) p = std::filesystem::absolute(path, ec).lexically_normal();
    std::string text = p.string();
    while (text.size() > 1 && text.back() == '/') text.pop_back();
    return text;
}

std::string lexicallyNormal(std::string_view path) { return std::filesystem::path(path).lexically_normal().string(); }

std::string absolutePath(std::string_view path) {
    std::error_code ec;
    std::filesystem::path p = std::filesystem::absolute(std::filesystem::path(path), ec);
    return ec ? std::string(path) : p.string();
}

bool canWriteInto(const std::string& path) { return ::access(path.c_str(), W_OK | X_OK) == 0; }

std::string executablePath() {
    std::error_code ec;
    const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
    return ec ? std::string() : exe.string();
}

bool isInsideDirectory(std::string_view inner, std::string_view outer) {
    if (outer == "/") return inner != "/";
    return inner.size() > outer.size() && inner.substr(0, outer.size()) == outer && inner[outer.size()] == '/';
}

std::string joinPath(std::string_view dir, std::string_view name) {
    if (dir.empty() || dir == ".") return std::string(name);
    if (!name.empty() && name.front() == '/') return std::string(name);
    std::string out(dir);
    if (out.back() != '/') out += '/';
    out += name;
    return out;
}

}  // namespace ckpt::platform
