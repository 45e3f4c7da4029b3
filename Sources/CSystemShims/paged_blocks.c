#define _GNU_SOURCE
#include "CSystemShims.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

// Every HTTP/2 connection holds a 16 KiB frame buffer (nghttp2's) for its whole life, and an idle device's
// connection writes a few hundred bytes of it at a time. From malloc, such a block sits among other blocks whose
// pages are resident anyway (the heap reuses what a TLS handshake freed), so all of it costs memory. Here it is a
// slot of whole pages in one region of address space reserved at first use: a page costs memory only once written,
// and a slot given back is returned to the kernel (MADV_DONTNEED) before its next owner, so it starts untouched
// (and zero) again. The owner (one per nghttp2 session, its user data) lists its slots, so that their pages can be
// given back while the session holds no frame in them.
//
// Only nghttp2's buffers come here: it makes them with realloc(NULL, size), and nothing else it allocates that way is
// this large. Its other blocks of this size (a long header value being decoded, a large frame's payload) come from
// malloc and live across reads, with their own bookkeeping inside: those must never be given back while in use.
// Everything else goes to malloc, as does everything when the region cannot be reserved.

enum { PAGED_MIN_BYTES = 12 * 1024, PAGED_CONTENT_BYTES = 16 * 1024 + 64, RESERVED_SLOTS = 1 << 22 };

// nghttp2's frame buffers keep one chunk between frames and may chain three more for a large header block.
struct cshim_paged_owner {
    void *slots[4];
};

static struct {
    pthread_once_t once;
    pthread_mutex_t lock;
    unsigned char *base;  // NULL: no region, malloc serves every size
    size_t slot_bytes;    // PAGED_CONTENT_BYTES rounded up to whole pages
    size_t handed_out;    // slots below this index have been used at least once
    size_t *released;     // indices of slots given back, reused first
    size_t released_count;
    size_t released_capacity;
} pool = {PTHREAD_ONCE_INIT, PTHREAD_MUTEX_INITIALIZER, NULL, 0, 0, NULL, 0, 0};

static void reserve_region(void) {
    long page = sysconf(_SC_PAGESIZE);
    if (page <= 0) return;
    size_t slot = ((size_t)PAGED_CONTENT_BYTES + (size_t)page - 1) / (size_t)page * (size_t)page;
    // Address space only: with MAP_NORESERVE no memory is committed until a page is written.
    void *base = mmap(NULL, slot * RESERVED_SLOTS, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (base == MAP_FAILED) return;
    pool.slot_bytes = slot;
    pool.base = base;
}

static int is_paged(const void *pointer) {
    const unsigned char *address = pointer;
    return pool.base != NULL && address >= pool.base && address < pool.base + pool.slot_bytes * RESERVED_SLOTS;
}

static int fits_slot(size_t size) { return size >= PAGED_MIN_BYTES && size <= PAGED_CONTENT_BYTES; }

static void *take_slot(void) {
    pthread_once(&pool.once, reserve_region);
    if (pool.base == NULL) return NULL;
    void *slot = NULL;
    pthread_mutex_lock(&pool.lock);
    if (pool.released_count > 0) {
        slot = pool.base + pool.released[--pool.released_count] * pool.slot_bytes;
    } else if (pool.handed_out < RESERVED_SLOTS) {
        slot = pool.base + pool.handed_out++ * pool.slot_bytes;
    }
    pthread_mutex_unlock(&pool.lock);
    return slot;
}

static void give_back(void *pointer) {
    size_t index = (size_t)((unsigned char *)pointer - pool.base) / pool.slot_bytes;
    madvise(pool.base + index * pool.slot_bytes, pool.slot_bytes, MADV_DONTNEED);
    pthread_mutex_lock(&pool.lock);
    if (pool.released_count == pool.released_capacity) {
        size_t capacity = pool.released_capacity ? pool.released_capacity * 2 : 1024;
        size_t *grown = realloc(pool.released, capacity * sizeof(size_t));
        if (grown == NULL) {
            // Out of memory for the list: the slot stays unused (address space, no memory).
            pthread_mutex_unlock(&pool.lock);
            return;
        }
        pool.released = grown;
        pool.released_capacity = capacity;
    }
    pool.released[pool.released_count++] = index;
    pthread_mutex_unlock(&pool.lock);
}

struct cshim_paged_owner *cshim_paged_owner_new(void) { return calloc(1, sizeof(struct cshim_paged_owner)); }

void cshim_paged_owner_free(struct cshim_paged_owner *owner) { free(owner); }

void cshim_paged_owner_release(struct cshim_paged_owner *owner) {
    for (size_t index = 0; index < sizeof(owner->slots) / sizeof(owner->slots[0]); index++) {
        if (owner->slots[index] != NULL) madvise(owner->slots[index], pool.slot_bytes, MADV_DONTNEED);
    }
}

static void **free_entry(struct cshim_paged_owner *owner, void *slot) {
    for (size_t index = 0; index < sizeof(owner->slots) / sizeof(owner->slots[0]); index++) {
        if (owner->slots[index] == slot) return &owner->slots[index];
    }
    return NULL;
}

void *cshim_paged_malloc(size_t size, void *owner) {
    (void)owner;
    return malloc(size);
}

void *cshim_paged_calloc(size_t count, size_t size, void *owner) {
    (void)owner;
    return calloc(count, size);
}

void cshim_paged_free(void *pointer, void *owner) {
    if (!is_paged(pointer)) {
        free(pointer);
        return;
    }
    void **entry = owner != NULL ? free_entry(owner, pointer) : NULL;
    if (entry != NULL) *entry = NULL;
    give_back(pointer);
}

void *cshim_paged_realloc(void *pointer, size_t size, void *owner) {
    if (pointer == NULL) {
        void **entry = owner != NULL && fits_slot(size) ? free_entry(owner, NULL) : NULL;
        void *slot = entry != NULL ? take_slot() : NULL;
        if (slot == NULL) return malloc(size);
        *entry = slot;
        return slot;
    }
    if (!is_paged(pointer)) return realloc(pointer, size);
    if (fits_slot(size)) return pointer;
    // Grown or shrunk out of its slot (nghttp2 does neither with its frame buffers): moved to malloc.
    void *moved = malloc(size);
    if (moved == NULL) return NULL;
    memcpy(moved, pointer, size < pool.slot_bytes ? size : pool.slot_bytes);
    cshim_paged_free(pointer, owner);
    return moved;
}
