#pragma once
// An exchange whose 2xx answer is small (listings, PUT, DELETE and the
// multipart requests' answers): the head and the body are kept whole,
// bounded by kMaxXmlBytes. The request is built anew, and signed anew, for
// every attempt. Internal to the object client.

#include <functional>
#include <string>

#include "objstore/http_transport.h"

namespace ckpt::objstore {

class SmallExchange : public HttpExchange {
public:
    SmallExchange(std::string what, std::function<HttpRequest()> build) : m_what(std::move(what)), m_build(std::move(build)) {}
    HttpRequest prepare(int /*attempt*/) override {
        body_.clear();
        return m_build();
    }
    Status begin(const HttpResponseHead& h) override {
        head = h;
        return okStatus();
    }
    Status body(const char* data, size_t n) override {
        if (body_.size() + n > kMaxXmlBytes)
            return dataLoss(m_what + ": response body over " + std::to_string(kMaxXmlBytes) + " bytes");
        body_.append(data, n);
        return okStatus();
    }
    Status finish(const HttpResponseHead& h) override {
        head = h;
        return okStatus();
    }
    std::string what() const override { return m_what; }

    HttpResponseHead head;
    std::string body_;

private:
    std::string m_what;
    std::function<HttpRequest()> m_build;
};

}  // namespace ckpt::objstore
