#ifndef COPENSSLSHIMS_H
#define COPENSSLSHIMS_H

#include <stddef.h>
#include <openssl/ssl.h>

// OpenSSL macros and callbacks Swift cannot import or express; the only C library here is OpenSSL.

/// TLS 1.2 minimum, no compression or renegotiation, ALPN selection preferring h2 then http/1.1.
int cshim_ssl_ctx_configure_server(SSL_CTX *ctx);
/// TLS 1.2 minimum and ALPN offer of h2 only.
int cshim_ssl_ctx_configure_client(SSL_CTX *ctx);
long cshim_ssl_set_tlsext_host_name(SSL *ssl, const char *name);

/// 1 when OpenSSL was initialised, before main, without its atexit cleanup (OPENSSL_INIT_NO_ATEXIT): threads still
/// running when the process exits may keep using it. See shims.c.
int cshim_openssl_exit_cleanup_disabled(void);

/// SHA-256 without OpenSSL 3's per-call algorithm fetch and context allocation (API keys are hashed on every call).
void cshim_sha256(const void *data, size_t length, unsigned char digest[32]);

#endif
