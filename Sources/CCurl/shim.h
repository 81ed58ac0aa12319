#ifndef EDGE_CCURL_SHIM_H
#define EDGE_CCURL_SHIM_H
#include <curl/curl.h>

// curl_easy_setopt, curl_easy_getinfo and curl_multi_setopt are variadic; Swift cannot call C
// variadic functions, so each argument type the transport passes gets a typed wrapper.

/// curl_easy_setopt is variadic: a `long` option (CURLOPTTYPE_LONG).
static inline CURLcode edge_curl_easy_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

/// curl_easy_setopt is variadic: a string option (CURLOPTTYPE_STRINGPOINT; curl copies it).
static inline CURLcode edge_curl_easy_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}

/// curl_easy_setopt is variadic: a pointer option (CURLOPTTYPE_OBJECTPOINT, CURLOPTTYPE_CBPOINT, slists, CURLU).
static inline CURLcode edge_curl_easy_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}

/// curl_easy_setopt is variadic: a `curl_off_t` option (CURLOPTTYPE_OFF_T).
static inline CURLcode edge_curl_easy_setopt_off_t(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}

/// curl_easy_setopt is variadic: a write/header callback (CURLOPTTYPE_FUNCTIONPOINT), passed with its own type.
static inline CURLcode edge_curl_easy_setopt_write_callback(CURL *handle, CURLoption option, curl_write_callback value) {
    return curl_easy_setopt(handle, option, value);
}

/// curl_easy_getinfo is variadic: a `long` result (CURLINFO_LONG).
static inline CURLcode edge_curl_easy_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}

/// curl_multi_setopt is variadic: a `long` option.
static inline CURLMcode edge_curl_multi_setopt_long(CURLM *handle, CURLMoption option, long value) {
    return curl_multi_setopt(handle, option, value);
}

#endif
