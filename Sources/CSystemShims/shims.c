#define _GNU_SOURCE
#include "CSystemShims.h"

#include <malloc.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <string.h>

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

int cshim_malloc_trim(void) { return malloc_trim(0); }

uint64_t cshim_thread_random64(void) {
    static _Thread_local uint64_t state;
    static _Thread_local int seeded;
    if (!seeded) {
        while (getrandom(&state, sizeof(state), 0) != sizeof(state)) {}
        seeded = 1;
    }
    // SplitMix64 (Steele, Lea, Flood 2014): a Weyl sequence through a bijective mixer, so no value repeats within
    // a thread for 2^64 calls.
    uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static _Thread_local const void *thread_binding;

const void *cshim_thread_binding(void) { return thread_binding; }

void cshim_set_thread_binding(const void *value) { thread_binding = value; }

static _Thread_local struct cshim_second_text thread_second_text;

struct cshim_second_text *cshim_thread_second_text(void) { return &thread_second_text; }
