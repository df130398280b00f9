#include "objstore/store_settings.h"

#include <algorithm>
#include <charconv>
#include <cstdlib>

#include "objstore/aws_profile.h"
#include "platform/parallel.h"

namespace ckpt::objstore {

namespace {

constexpr std::string_view kGcsEndpoint = "https://storage.googleapis.com";

std::optional<std::string> nonEmpty(const EnvLookup& env, std::string_view name) {
    auto v = env(name);
    if (v && v->empty()) return std::nullopt;
    return v;
}

std::string homeFile(const EnvLookup& env, std::string_view overrideVar, std::string_view relative) {
    if (auto p = nonEmpty(env, overrideVar)) return *p;
    const std::string home = nonEmpty(env, "HOME").value_or("");
    return home + "/" + std::string(relative);
}

struct Profile {
    std::string name;
    std::string credentialsPath;
    std::string configPath;
    ProfileValues credentials;  // from the credentials file
    ProfileValues config;       // from the config file
    bool explicitlyNamed = false;

    std::optional<std::string> get(const std::string& key) const {
        if (auto it = config.find(key); it != config.end() && !it->second.empty()) return it->second;
        return std::nullopt;
    }
};

Result<Profile> loadProfile(const EnvLookup& env, const StoreOverrides& overrides) {
    Profile p;
    if (overrides.profile) {
        p.name = *overrides.profile;
        p.explicitlyNamed = true;
    } else if (auto v = nonEmpty(env, "AWS_PROFILE")) {
        p.name = *v;
        p.explicitlyNamed = true;
    } else {
        p.name = "default";
    }
    p.credentialsPath = homeFile(env, "AWS_SHARED_CREDENTIALS_FILE", ".aws/credentials");
    p.configPath = homeFile(env, "AWS_CONFIG_FILE", ".aws/config");
    auto creds = readProfile(p.credentialsPath, p.name, ProfileFile::Credentials);
    if (!creds) return creds.status();
    auto config = readProfile(p.configPath, p.name, ProfileFile::Config);
    if (!config) return config.status();
    if (p.explicitlyNamed && !*creds && !*config)
        return notFound("profile \"" + p.name + "\" is in neither " + p.credentialsPath + " nor " + p.configPath);
    if (*creds) p.credentials = std::move(**creds);
    if (*config) p.config = std::move(**config);
    return p;
}

// A key pair from two variables: both or neither.
Result<std::optional<Credentials>> credentialsFromVariables(const EnvLookup& env, std::string_view idVar,
                                                            std::string_view secretVar, std::string_view tokenVar) {
    auto id = nonEmpty(env, idVar);
    auto secret = nonEmpty(env, secretVar);
    if (!id && !secret) return std::optional<Credentials>();
    if (!id || !secret)
        return invalidArgument(std::string(id ? idVar : secretVar) + " is set but " + std::string(id ? secretVar : idVar) +
                               " is not");
    Credentials c;
    c.accessKeyId = *id;
    c.secretAccessKey = Secret(*secret);
    if (!tokenVar.empty())
        if (auto token = nonEmpty(env, tokenVar)) c.sessionToken = Secret(*token);
    return std::optional<Credentials>(std::move(c));
}

std::optional<Credentials> credentialsFromProfile(const ProfileValues& values) {
    auto id = values.find("aws_access_key_id");
    auto secret = values.find("aws_secret_access_key");
    if (id == values.end() || secret == values.end() || id->second.empty() || secret->second.empty()) return std::nullopt;
    Credentials c;
    c.accessKeyId = id->second;
    c.secretAccessKey = Secret(secret->second);
    if (auto token = values.find("aws_session_token"); token != values.end() && !token->second.empty())
        c.sessionToken = Secret(token->second);
    return c;
}

Status resolveCredentials(StoreKind kind, const EnvLookup& env, const StoreOverrides& overrides, const Profile& profile,
                          StoreSettings& out) {
    // A profile named on the command line wins over the variables, as in the AWS CLI.
    if (!overrides.profile) {
        if (kind == StoreKind::Gcs) {
            auto gs = credentialsFromVariables(env, "GS_ACCESS_KEY_ID", "GS_SECRET_ACCESS_KEY", "");
            if (!gs) return gs.status();
            if (*gs) {
                out.credentials = std::move(**gs);
                out.credentialSource = "GS_ACCESS_KEY_ID";
                return okStatus();
            }
        }
        auto aws = credentialsFromVariables(env, "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN");
        if (!aws) return aws.status();
        if (*aws) {
            out.credentials = std::move(**aws);
            out.credentialSource = "AWS_ACCESS_KEY_ID";
            return okStatus();
        }
    }
    for (const auto& [values, path] :
         {std::pair{&profile.credentials, &profile.credentialsPath}, std::pair{&profile.config, &profile.configPath}}) {
        if (auto c = credentialsFromProfile(*values)) {
            out.credentials = std::move(*c);
            out.credentialSource = "profile \"" + profile.name + "\" in " + *path;
            return okStatus();
        }
    }
    std::string msg = std::string("no credentials for ") + std::string(out.scheme()) + "://: set ";
    if (kind == StoreKind::Gcs) msg += "GS_ACCESS_KEY_ID and GS_SECRET_ACCESS_KEY (HMAC keys), or ";
    msg += "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE with keys in " + profile.credentialsPath;
    return {StatusCode::PermissionDenied, msg};
}

// A number in [minValue, maxValue], or 0 when the variable is not set.
Result<int> positiveSetting(const EnvLookup& env, std::string_view name, int minValue, int maxValue) {
    auto v = nonEmpty(env, name);
    if (!v) return 0;
    int value = 0;
    const auto [end, ec] = std::from_chars(v->data(), v->data() + v->size(), value);
    if (ec != std::errc() || end != v->data() + v->size() || value < minValue || value > maxValue)
        return invalidArgument(std::string(name) + " must be a number from " + std::to_string(minValue) + " to " +
                               std::to_string(maxValue));
    return value;
}

}  // namespace

EnvLookup processEnvironment() {
    return [](std::string_view name) -> std::optional<std::string> {
        const char* v = std::getenv(std::string(name).c_str());
        if (v == nullptr) return std::nullopt;
        return std::string(v);
    };
}

Result<std::optional<Addressing>> parseAddressing(std::string_view text) {
    if (text == "path") return std::optional<Addressing>(Addressing::Path);
    if (text == "virtual") return std::optional<Addressing>(Addressing::VirtualHost);
    if (text == "auto") return std::optional<Addressing>();
    return invalidArgument("addressing style \"" + std::string(text) + "\" is not path, virtual or auto");
}

int defaultMaxInFlight() { return static_cast<int>(std::clamp<size_t>(2 * platform::hardwareThreads(), 4, 8)); }

Result<StoreSettings> resolveStoreSettings(StoreKind kind, const EnvLookup& env, const StoreOverrides& overrides) {
    StoreSettings s;
    s.kind = kind;
    CKPT_ASSIGN_OR_RETURN(Profile profile, loadProfile(env, overrides));

    // Region.
    if (kind == StoreKind::Gcs) {
        s.region = "auto";
    } else if (auto r = nonEmpty(env, "AWS_REGION")) {
        s.region = *r;
    } else if (auto dr = nonEmpty(env, "AWS_DEFAULT_REGION")) {
        s.region = *dr;
    } else {
        s.region = profile.get("region").value_or("us-east-1");
    }
    for (char c : s.region)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-')
            return invalidArgument("region \"" + s.region + "\" has a character that is not a letter, digit or '-'");

    // Endpoint: the first setting present, named in any error.
    std::optional<std::pair<std::string, std::string>> endpointSetting;  // value, setting name
    auto consider = [&](std::optional<std::string> value, std::string name) {
        if (!endpointSetting && value && !value->empty()) endpointSetting.emplace(std::move(*value), std::move(name));
    };
    consider(overrides.endpointUrl, "--endpoint-url");
    if (kind == StoreKind::Gcs) {
        consider(nonEmpty(env, "CKPT_GS_ENDPOINT_URL"), "CKPT_GS_ENDPOINT_URL");
    } else {
        consider(nonEmpty(env, "AWS_ENDPOINT_URL_S3"), "AWS_ENDPOINT_URL_S3");
        consider(nonEmpty(env, "AWS_ENDPOINT_URL"), "AWS_ENDPOINT_URL");
        consider(profile.get("s3.endpoint_url"), "s3.endpoint_url of profile \"" + profile.name + "\"");
        consider(profile.get("endpoint_url"), "endpoint_url of profile \"" + profile.name + "\"");
    }
    const bool customEndpoint = endpointSetting.has_value();
    if (!endpointSetting) {
        endpointSetting.emplace(kind == StoreKind::Gcs ? std::string(kGcsEndpoint) : "https://s3." + s.region + ".amazonaws.com",
                                "the default endpoint");
    }
    CKPT_ASSIGN_OR_RETURN(s.endpoint, parseEndpoint(endpointSetting->first, endpointSetting->second));
    const bool allowHttp = overrides.allowHttp || nonEmpty(env, "CKPT_S3_ALLOW_HTTP").value_or("") == "1";
    if (s.endpoint.scheme == "http" && !isLoopback(s.endpoint) && !allowHttp)
        return failedPrecondition("plain http to " + s.endpoint.toString() + " (" + endpointSetting->second +
                                  ") is refused: use https, or allow it with --allow-http");

    // Addressing.
    std::optional<Addressing> addressing = overrides.addressing;
    if (!addressing) {
        std::optional<std::string> text = nonEmpty(env, "CKPT_S3_ADDRESSING");
        if (!text) text = profile.get("s3.addressing_style");
        if (text) {
            auto parsed = parseAddressing(*text);
            if (!parsed) return parsed.status();
            addressing = *parsed;
        }
    }
    s.addressing = addressing.value_or(customEndpoint || kind == StoreKind::Gcs ? Addressing::Path : Addressing::VirtualHost);

    CKPT_RETURN_IF_ERROR(resolveCredentials(kind, env, overrides, profile, s));

    CKPT_ASSIGN_OR_RETURN(const int inFlight, positiveSetting(env, "CKPT_S3_MAX_IN_FLIGHT", 1, 64));
    s.transfer.maxInFlight = inFlight > 0 ? inFlight : defaultMaxInFlight();
    // Under S3's 5 MiB minimum part a completion would fail only after every part was sent.
    CKPT_ASSIGN_OR_RETURN(const int partMib, positiveSetting(env, "CKPT_S3_PART_SIZE_MIB", 5, 5120));
    if (partMib > 0) s.transfer.partBytes = uint64_t(partMib) << 20;
    return s;
}

}  // namespace ckpt::objstore
