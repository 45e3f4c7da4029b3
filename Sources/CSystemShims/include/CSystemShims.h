#ifndef CSYSTEMSHIMS_H
#define CSYSTEMSHIMS_H

#include <stddef.h>
#include <stdint.h>

// Linux system calls (no libraries): epoll, eventfd and accept4 are extensions the Glibc module does not
// export; glibc's malloc_trim, which it does not export either; and a per-thread generator of IDs (Swift has no
// thread-local storage).
enum {
    CSHIM_EPOLLIN = 0x001,
    CSHIM_EPOLLOUT = 0x004,
    CSHIM_EPOLLERR = 0x008,
    CSHIM_EPOLLHUP = 0x010,
    CSHIM_EPOLLRDHUP = 0x2000,
    CSHIM_EPOLLEXCLUSIVE = 1u << 28,
    CSHIM_EPOLL_CTL_ADD = 1,
    CSHIM_EPOLL_CTL_DEL = 2,
    CSHIM_EPOLL_CTL_MOD = 3,
};
int cshim_epoll_create(void);
int cshim_eventfd(void);
struct sockaddr;
int cshim_accept4(int fd, struct sockaddr *address, unsigned int *length);

// epoll without the packed `struct epoll_event` crossing into Swift: the fd is the event's data.
int cshim_epoll_ctl(int epfd, int op, int fd, uint32_t events);
int cshim_epoll_wait(int epfd, int *fds, uint32_t *events, int max_events, int timeout_ms);

// glibc's malloc_trim(0): hands the heap's free pages back to the system.
int cshim_malloc_trim(void);

// 64 random-looking bits from a generator private to the calling thread (SplitMix64, seeded once per thread from
// getrandom(2)): distinct on each call within a thread, with no system call and no state shared between cores. Not
// for secrets; for IDs that must differ (request IDs, made for every call).
uint64_t cshim_thread_random64(void);

// One pointer private to the calling thread, for a value bound to it for a while (the request ID of a call that
// runs synchronously on it): binding a task-local value outside a task allocates twice, on every call.
const void *cshim_thread_binding(void);
void cshim_set_thread_binding(const void *value);

// The calling thread's last log timestamp up to its seconds (`2026-11-30T12:00:00`): lines in the same second copy it
// rather than redo the calendar arithmetic. `length` is 0 until the thread writes one.
struct cshim_second_text {
    int64_t second;
    int64_t length;
    unsigned char text[48];
};
struct cshim_second_text *cshim_thread_second_text(void);

// An allocator for nghttp2 sessions (paged_blocks.c): their frame buffers are whole pages that cost memory only once
// written, listed by the session's owner so that they can be given back while it is idle; every other block is
// malloc's. The signatures are nghttp2_mem's, whose user data is the owner.
struct cshim_paged_owner;
struct cshim_paged_owner *cshim_paged_owner_new(void);
// After the session that used it is gone.
void cshim_paged_owner_free(struct cshim_paged_owner *owner);
// Returns the pages of the owner's buffers to the kernel; they read as zeros afterwards. Only between frames.
void cshim_paged_owner_release(struct cshim_paged_owner *owner);
void *cshim_paged_malloc(size_t size, void *owner);
void cshim_paged_free(void *pointer, void *owner);
void *cshim_paged_calloc(size_t count, size_t size, void *owner);
void *cshim_paged_realloc(void *pointer, size_t size, void *owner);

#endif
