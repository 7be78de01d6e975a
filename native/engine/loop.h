/* The engine's own epoll loop (Linux): descriptors registered with the function that handles
 * their events, deferred calls, and libuv's loop (timers, the wake-up, UDP) polled as one more
 * source of the set. It knows no socket or listener: each registers its own callback. */
#ifndef LBDESK_LOOP_H
#define LBDESK_LOOP_H

#include "model.h"

/* `ready`: the socket layer's ready queue, run (one item per call, 0 when empty) before the
 * deferred calls of each turn. */
int ep_init(engine_t *e, int (*ready)(engine_t *));
void ep_run(engine_t *e);
/* Called after this turn's events (closes free what those events may still name). */
void ep_later(engine_t *e, void (*fn)(engine_t *, void *), void *arg);
/* Registers `fd` for `events` (EPOLL*), handled by `on(e, p, events)`; its event id in `*id`. */
int ep_add(engine_t *e, int fd, uint32_t events, void *p, ep_cb on, uint64_t *id);
/* Level-triggered, for reading (listeners: accept takes a bounded batch per event). */
int ep_watch(engine_t *e, int fd, void *p, ep_cb on);
int ep_unwatch(engine_t *e, int fd);
/* The descriptor is about to be closed (closing it removes it from the set). */
void ep_forget(engine_t *e, int fd);
/* Calls fn(e, p) after the next wait (which then does not block), if `id` still names a
 * descriptor registered with `on` (p is what it was registered with). */
void ep_after_wait(engine_t *e, uint64_t id, ep_cb on, void (*fn)(engine_t *, void *));

#endif
