#include "COpenSSLShims.h"

#include <openssl/crypto.h>
#include <openssl/sha.h>

// OpenSSL frees its global state (providers, method stores, ex_data and error tables, their locks) from an atexit
// handler, OPENSSL_cleanup, unless it is first initialised with OPENSSL_INIT_NO_ATEXIT. Our processes call exit(3)
// while other threads still free OpenSSL objects: after SIGTERM, entitlementd's main thread runs the exit handlers
// while a dispatch thread releases the server (its TLS contexts, certificates and keys) and the outbound HTTP client's
// event-loop thread frees its SSL_CTX. OpenSSL forbids cleaning up while another thread uses the library (the cleanup
// frees what the other thread's free still reads and writes). Initialising before main with that option, as the
// process's first OpenSSL call, keeps the state until the process is gone, so nothing exit(3) frees can be reached by
// a thread that is still running.
static int openssl_exit_cleanup_disabled = 0;

__attribute__((constructor)) static void cshim_openssl_init_without_exit_cleanup(void) {
    openssl_exit_cleanup_disabled = OPENSSL_init_crypto(OPENSSL_INIT_NO_ATEXIT, NULL);
}

int cshim_openssl_exit_cleanup_disabled(void) { return openssl_exit_cleanup_disabled; }

static int select_alpn(SSL *ssl, const unsigned char **out, unsigned char *outlen, const unsigned char *in,
                       unsigned int inlen, void *arg) {
    (void)ssl;
    (void)arg;
    // The server's order decides: h2 when the client offers it, else http/1.1 (what nghttp2_select_next_protocol
    // picked before this shim stopped linking nghttp2); anything else proceeds without ALPN.
    static const unsigned char preferred[] = {2, 'h', '2', 8, 'h', 't', 't', 'p', '/', '1', '.', '1'};
    unsigned char *selected = NULL;
    if (SSL_select_next_proto(&selected, outlen, preferred, sizeof(preferred), in, inlen) != OPENSSL_NPN_NEGOTIATED) {
        return SSL_TLSEXT_ERR_NOACK;
    }
    *out = selected;
    return SSL_TLSEXT_ERR_OK;
}

int cshim_ssl_ctx_configure_server(SSL_CTX *ctx) {
    if (SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION) != 1) return 0;
    SSL_CTX_set_options(ctx, SSL_OP_NO_COMPRESSION | SSL_OP_NO_RENEGOTIATION | SSL_OP_CIPHER_SERVER_PREFERENCE);
    SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER | SSL_MODE_RELEASE_BUFFERS);
    SSL_CTX_set_alpn_select_cb(ctx, select_alpn, NULL);
    // Resumption is by tickets only (cshim_ssl_ctx_use_ticket_keys): OpenSSL's stateful cache would hold every
    // session in memory, up to 20,480 of them, for session IDs that only this process can resume.
    SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_OFF);
    return 1;
}

int cshim_ssl_ctx_configure_client(SSL_CTX *ctx) {
    static const unsigned char protos[] = {2, 'h', '2'};
    if (SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION) != 1) return 0;
    SSL_CTX_set_options(ctx, SSL_OP_NO_COMPRESSION | SSL_OP_NO_RENEGOTIATION);
    SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
    return SSL_CTX_set_alpn_protos(ctx, protos, sizeof(protos)) == 0;
}

long cshim_ssl_set_tlsext_host_name(SSL *ssl, const char *name) {
    return SSL_set_tlsext_host_name(ssl, name);
}

// The low-level SHA256_* functions are deprecated in OpenSSL 3 in favour of EVP, whose implicit fetch per call
// costs several times the hash of a short input. They remain the same FIPS 180-4 implementation.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
void cshim_sha256(const void *data, size_t length, unsigned char digest[32]) {
    SHA256_CTX context;
    SHA256_Init(&context);
    SHA256_Update(&context, data, length);
    SHA256_Final(digest, &context);
}
#pragma GCC diagnostic pop
