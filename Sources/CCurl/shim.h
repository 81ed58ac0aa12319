#ifndef EDGE_CCURL_SHIM_H
#define EDGE_CCURL_SHIM_H
#include <curl/curl.h>

// libcurl is loaded with dlopen on first use (CurlLibrary.swift), so every function arrives as a
// pointer from dlsym. curl_easy_setopt, curl_easy_getinfo and curl_multi_setopt are variadic;
// Swift cannot call a C variadic function, so these wrappers make the call through the pointer
// with the argument type each option takes.

typedef CURLcode (*edge_curl_easy_setopt_fn)(CURL *, CURLoption, ...);
typedef CURLcode (*edge_curl_easy_getinfo_fn)(CURL *, CURLINFO, ...);
typedef CURLMcode (*edge_curl_multi_setopt_fn)(CURLM *, CURLMoption, ...);

/// curl_easy_setopt is variadic: a `long` option (CURLOPTTYPE_LONG).
static inline CURLcode edge_curl_easy_setopt_long(void *fn, CURL *handle, CURLoption option, long value) {
    return ((edge_curl_easy_setopt_fn)fn)(handle, option, value);
}

/// curl_easy_setopt is variadic: a string option (CURLOPTTYPE_STRINGPOINT; curl copies it).
static inline CURLcode edge_curl_easy_setopt_string(void *fn, CURL *handle, CURLoption option, const char *value) {
    return ((edge_curl_easy_setopt_fn)fn)(handle, option, value);
}

/// curl_easy_setopt is variadic: a pointer option (CURLOPTTYPE_OBJECTPOINT, CURLOPTTYPE_CBPOINT, slists, CURLU).
static inline CURLcode edge_curl_easy_setopt_pointer(void *fn, CURL *handle, CURLoption option, void *value) {
    return ((edge_curl_easy_setopt_fn)fn)(handle, option, value);
}

/// curl_easy_setopt is variadic: a `curl_off_t` option (CURLOPTTYPE_OFF_T).
static inline CURLcode edge_curl_easy_setopt_off_t(void *fn, CURL *handle, CURLoption option, curl_off_t value) {
    return ((edge_curl_easy_setopt_fn)fn)(handle, option, value);
}

/// curl_easy_setopt is variadic: a write/header callback (CURLOPTTYPE_FUNCTIONPOINT), passed with its own type.
static inline CURLcode edge_curl_easy_setopt_write_callback(void *fn, CURL *handle, CURLoption option, curl_write_callback value) {
    return ((edge_curl_easy_setopt_fn)fn)(handle, option, value);
}

/// curl_easy_getinfo is variadic: a `long` result (CURLINFO_LONG).
static inline CURLcode edge_curl_easy_getinfo_long(void *fn, CURL *handle, CURLINFO info, long *value) {
    return ((edge_curl_easy_getinfo_fn)fn)(handle, info, value);
}

/// curl_multi_setopt is variadic: a `long` option.
static inline CURLMcode edge_curl_multi_setopt_long(void *fn, CURLM *handle, CURLMoption option, long value) {
    return ((edge_curl_multi_setopt_fn)fn)(handle, option, value);
}

#endif
