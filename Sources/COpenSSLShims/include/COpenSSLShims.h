#ifndef COPENSSLSHIMS_H
#define COPENSSLSHIMS_H

#include <stddef.h>
#include <stdint.h>
#include <openssl/ssl.h>

// OpenSSL macros and callbacks Swift cannot import or express; the only C library here is OpenSSL.

/// TLS 1.2 minimum, no compression or renegotiation, ALPN selection preferring h2 then http/1.1, no session cache.
int cshim_ssl_ctx_configure_server(SSL_CTX *ctx);
/// TLS 1.2 minimum and ALPN offer of h2 only.
int cshim_ssl_ctx_configure_client(SSL_CTX *ctx);
long cshim_ssl_set_tlsext_host_name(SSL *ssl, const char *name);

/// 1 when OpenSSL was initialised, before main, without its atexit cleanup (OPENSSL_INIT_NO_ATEXIT): threads still
/// running when the process exits may keep using it. See shims.c.
int cshim_openssl_exit_cleanup_disabled(void);

/// SHA-256 without OpenSSL 3's per-call algorithm fetch and context allocation (API keys are hashed on every call).
void cshim_sha256(const void *data, size_t length, unsigned char digest[32]);

/// One rotation period's session-ticket keys, in OpenSSL's ticket format (RFC 5077 §4).
typedef struct {
    unsigned char name[16];
    unsigned char aes_key[32];
    unsigned char hmac_key[32];
} cshim_ticket_key;

/// The session-ticket keys of every period, derived from a secret (see ticket_keys.c). Safe to share between threads.
typedef struct cshim_ticket_keys cshim_ticket_keys;

/// Keys from a copy of `secret` (not empty) for periods of `rotation_seconds` (> 0); NULL when they cannot be made.
cshim_ticket_keys *cshim_ticket_keys_new(const unsigned char *secret, size_t secret_length, int64_t rotation_seconds);
void cshim_ticket_keys_free(cshim_ticket_keys *keys);
/// The key of the period of unix time `now`, which new tickets get: 1, or 0 when it cannot be derived.
int cshim_ticket_keys_current(cshim_ticket_keys *keys, int64_t now, cshim_ticket_key *key);
/// The key named `name` when a ticket made with it is accepted at unix time `now`: 1 for the current period's key,
/// 2 for the previous or next period's (the ticket is renewed); 0 for any other name; -1 when keys cannot be derived.
int cshim_ticket_keys_find(cshim_ticket_keys *keys, const unsigned char name[16], int64_t now, cshim_ticket_key *key);

/// Server tickets made and opened with `keys`, which must outlive `ctx` and every SSL made from it; the session
/// lifetime is one rotation period.
int cshim_ssl_ctx_use_ticket_keys(SSL_CTX *ctx, cshim_ticket_keys *keys);
/// No session tickets (TLS 1.2 or 1.3): with the session cache off, every handshake is a full one.
int cshim_ssl_ctx_disable_tickets(SSL_CTX *ctx);

#endif
