#include "COpenSSLShims.h"

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/kdf.h>
#include <openssl/rand.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

// Session-ticket keys, one a rotation period, derived from a secret: every instance given the same secret and period
// makes and accepts the same tickets without telling the others anything, and a restarted one still knows its
// tickets. Period n is floor(unix time / rotation). New tickets get period n's key. Tickets of period n-1 (a ticket
// must live at least one period) and n+1 (another instance's clock may be a little ahead) are accepted and renewed;
// any other ticket is ignored, and the handshake is a full one (RFC 5077 §3.3, RFC 8446 §4.6.1).
//
// The keys of a period are HKDF-SHA256 (RFC 5869) of the secret, with the label and the period (8 bytes, big-endian)
// as info: 80 bytes that are the key name, the AES-256-CBC key and the HMAC-SHA256 key of OpenSSL's ticket format.

_Static_assert(sizeof(cshim_ticket_key) == 80, "cshim_ticket_key is the 80 bytes HKDF derives");

static const char ticket_key_label[] = "entitlementd tls session ticket keys v1";

struct cshim_ticket_keys {
    unsigned char *secret;
    size_t secret_length;
    int64_t rotation_seconds;
    // Fetched once: an implicit fetch on every ticket costs more than encrypting it.
    EVP_CIPHER *cipher;
    // Event loops make and open tickets at the same time; the lock guards the window of derived keys.
    pthread_mutex_t lock;
    int window_derived;
    uint64_t window_period;
    // The keys of periods window_period - 1, window_period and window_period + 1.
    cshim_ticket_key window[3];
};

cshim_ticket_keys *cshim_ticket_keys_new(const unsigned char *secret, size_t secret_length, int64_t rotation_seconds) {
    if (secret_length == 0 || rotation_seconds <= 0) return NULL;
    cshim_ticket_keys *keys = calloc(1, sizeof *keys);
    if (keys == NULL) return NULL;
    keys->secret = OPENSSL_memdup(secret, secret_length);
    keys->secret_length = secret_length;
    keys->rotation_seconds = rotation_seconds;
    keys->cipher = EVP_CIPHER_fetch(NULL, "AES-256-CBC", NULL);
    if (keys->secret == NULL || keys->cipher == NULL || pthread_mutex_init(&keys->lock, NULL) != 0) {
        OPENSSL_clear_free(keys->secret, secret_length);
        EVP_CIPHER_free(keys->cipher);
        free(keys);
        return NULL;
    }
    return keys;
}

void cshim_ticket_keys_free(cshim_ticket_keys *keys) {
    if (keys == NULL) return;
    OPENSSL_clear_free(keys->secret, keys->secret_length);
    EVP_CIPHER_free(keys->cipher);
    pthread_mutex_destroy(&keys->lock);
    OPENSSL_cleanse(keys->window, sizeof keys->window);
    free(keys);
}

static int derive(const cshim_ticket_keys *keys, uint64_t period, cshim_ticket_key *key) {
    unsigned char info[sizeof ticket_key_label - 1 + 8];
    memcpy(info, ticket_key_label, sizeof ticket_key_label - 1);
    for (int index = 0; index < 8; index++) {
        info[sizeof ticket_key_label - 1 + index] = (unsigned char)(period >> (56 - 8 * index));
    }
    EVP_KDF *hkdf = EVP_KDF_fetch(NULL, "HKDF", NULL);
    EVP_KDF_CTX *context = hkdf == NULL ? NULL : EVP_KDF_CTX_new(hkdf);
    EVP_KDF_free(hkdf);
    if (context == NULL) return 0;
    char digest[] = "SHA256";
    OSSL_PARAM parameters[] = {
        OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST, digest, 0),
        OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_KEY, keys->secret, keys->secret_length),
        OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_INFO, info, sizeof info),
        OSSL_PARAM_construct_end(),
    };
    int derived = EVP_KDF_derive(context, (unsigned char *)key, sizeof *key, parameters) == 1;
    EVP_KDF_CTX_free(context);
    return derived;
}

/// floor(now / rotation), as an unsigned number so that the periods either side never overflow.
static uint64_t period_at(const cshim_ticket_keys *keys, int64_t now) {
    int64_t period = now / keys->rotation_seconds;
    if (now % keys->rotation_seconds < 0) period -= 1;
    return (uint64_t)period;
}

/// Under the lock: the window holds the keys of the periods around `period`. The window moves once a period (or
/// back and forth while event loops read clocks either side of a boundary): three derivations each time.
static int derive_window(cshim_ticket_keys *keys, uint64_t period) {
    if (keys->window_derived && keys->window_period == period) return 1;
    keys->window_derived = 0;
    for (int index = 0; index < 3; index++) {
        if (!derive(keys, period - 1 + (uint64_t)index, &keys->window[index])) return 0;
    }
    keys->window_period = period;
    keys->window_derived = 1;
    return 1;
}

int cshim_ticket_keys_current(cshim_ticket_keys *keys, int64_t now, cshim_ticket_key *key) {
    pthread_mutex_lock(&keys->lock);
    int found = derive_window(keys, period_at(keys, now));
    if (found) *key = keys->window[1];
    pthread_mutex_unlock(&keys->lock);
    return found;
}

int cshim_ticket_keys_find(cshim_ticket_keys *keys, const unsigned char name[16], int64_t now, cshim_ticket_key *key) {
    pthread_mutex_lock(&keys->lock);
    int found = derive_window(keys, period_at(keys, now)) ? 0 : -1;
    for (int index = 0; found == 0 && index < 3; index++) {
        if (CRYPTO_memcmp(keys->window[index].name, name, sizeof keys->window[index].name) == 0) {
            *key = keys->window[index];
            found = index == 1 ? 1 : 2;
        }
    }
    pthread_mutex_unlock(&keys->lock);
    return found;
}

/// OpenSSL's ticket callback (SSL_CTX_set_tlsext_ticket_key_evp_cb(3)). Whatever fails here costs the client its
/// resumption, never its connection: 0 makes no ticket (enc 1) or ignores the one offered (enc 0).
static int ticket_key_callback(SSL *ssl, unsigned char key_name[16], unsigned char iv[EVP_MAX_IV_LENGTH],
                               EVP_CIPHER_CTX *cipher, EVP_MAC_CTX *mac, int encrypt) {
    cshim_ticket_keys *keys = SSL_CTX_get_app_data(SSL_get_SSL_CTX(ssl));
    cshim_ticket_key key;
    int outcome;
    if (encrypt) {
        if (!cshim_ticket_keys_current(keys, (int64_t)time(NULL), &key)) return 0;
        memcpy(key_name, key.name, sizeof key.name);
        outcome = RAND_bytes(iv, EVP_CIPHER_get_iv_length(keys->cipher)) == 1
            && EVP_EncryptInit_ex2(cipher, keys->cipher, key.aes_key, iv, NULL) == 1;
    } else {
        outcome = cshim_ticket_keys_find(keys, key_name, (int64_t)time(NULL), &key);
        if (outcome <= 0) return 0;
        if (EVP_DecryptInit_ex2(cipher, keys->cipher, key.aes_key, iv, NULL) != 1) outcome = 0;
    }
    char digest[] = "SHA256";
    OSSL_PARAM parameters[] = {
        OSSL_PARAM_construct_octet_string(OSSL_MAC_PARAM_KEY, key.hmac_key, sizeof key.hmac_key),
        OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, digest, 0),
        OSSL_PARAM_construct_end(),
    };
    if (outcome != 0 && EVP_MAC_CTX_set_params(mac, parameters) != 1) outcome = 0;
    OPENSSL_cleanse(&key, sizeof key);
    // 2 (a ticket of the previous or next period) asks OpenSSL for a new ticket of the current one.
    return outcome;
}

int cshim_ssl_ctx_use_ticket_keys(SSL_CTX *ctx, cshim_ticket_keys *keys) {
    if (SSL_CTX_set_app_data(ctx, keys) != 1) return 0;
    // The lifetime a ticket announces and is checked against when offered: tickets are accepted for at least one
    // period after they are made (up to two), and RFC 8446 §4.6.1 caps a TLS 1.3 ticket's at 7 days.
    SSL_CTX_set_timeout(ctx, (long)keys->rotation_seconds);
    return SSL_CTX_set_tlsext_ticket_key_evp_cb(ctx, ticket_key_callback);
}

int cshim_ssl_ctx_disable_tickets(SSL_CTX *ctx) {
    SSL_CTX_set_options(ctx, SSL_OP_NO_TICKET);
    return SSL_CTX_set_num_tickets(ctx, 0);
}
