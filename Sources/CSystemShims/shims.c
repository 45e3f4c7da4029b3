#define _GNU_SOURCE
#include "CSystemShims.h"

#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <string.h>
#include <nghttp2/nghttp2.h>
#include <openssl/sha.h>

_Static_assert(CSHIM_EPOLLIN == EPOLLIN && CSHIM_EPOLLOUT == EPOLLOUT && CSHIM_EPOLLERR == EPOLLERR &&
               CSHIM_EPOLLHUP == EPOLLHUP && CSHIM_EPOLLRDHUP == EPOLLRDHUP && CSHIM_EPOLLEXCLUSIVE == EPOLLEXCLUSIVE && CSHIM_EPOLL_CTL_ADD == EPOLL_CTL_ADD &&
               CSHIM_EPOLL_CTL_DEL == EPOLL_CTL_DEL && CSHIM_EPOLL_CTL_MOD == EPOLL_CTL_MOD,
               "epoll constants");

int cshim_epoll_create(void) { return epoll_create1(EPOLL_CLOEXEC); }

int cshim_eventfd(void) { return eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC); }

int cshim_accept4(int fd, struct sockaddr *address, unsigned int *length) {
    return accept4(fd, address, length, SOCK_NONBLOCK | SOCK_CLOEXEC);
}

int cshim_epoll_ctl(int epfd, int op, int fd, uint32_t events) {
    struct epoll_event event;
    memset(&event, 0, sizeof(event));
    event.events = events;
    event.data.fd = fd;
    return epoll_ctl(epfd, op, fd, &event);
}

int cshim_epoll_wait(int epfd, int *fds, uint32_t *events, int max_events, int timeout_ms) {
    struct epoll_event buffer[256];
    if (max_events > 256) max_events = 256;
    int count = epoll_wait(epfd, buffer, max_events, timeout_ms);
    for (int i = 0; i < count; i++) {
        fds[i] = buffer[i].data.fd;
        events[i] = buffer[i].events;
    }
    return count;
}

static int select_alpn(SSL *ssl, const unsigned char **out, unsigned char *outlen, const unsigned char *in,
                       unsigned int inlen, void *arg) {
    (void)ssl;
    (void)arg;
    // nghttp2_select_next_protocol picks h2 first, then http/1.1; anything else proceeds without ALPN.
    if (nghttp2_select_next_protocol((unsigned char **)out, outlen, in, inlen) < 0) {
        return SSL_TLSEXT_ERR_NOACK;
    }
    return SSL_TLSEXT_ERR_OK;
}

int cshim_ssl_ctx_configure_server(SSL_CTX *ctx) {
    if (SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION) != 1) return 0;
    SSL_CTX_set_options(ctx, SSL_OP_NO_COMPRESSION | SSL_OP_NO_RENEGOTIATION | SSL_OP_CIPHER_SERVER_PREFERENCE);
    SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER | SSL_MODE_RELEASE_BUFFERS);
    SSL_CTX_set_alpn_select_cb(ctx, select_alpn, NULL);
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
