/* The loop's own model: members, pools and their tables, listeners (engine.c, select.c, tcp.c,
 * udp.c and sock.c). The addon sees none of it: engine.h is its API. */
#ifndef LBDESK_MODEL_H
#define LBDESK_MODEL_H

#include "engine.h"

#define REPLAY_LIMIT (64 * 1024)
#define SMALL_BUF (16 * 1024)
#define BIG_BUF (64 * 1024)
#define SWEEP_MS 250
#define UDP_MAX_FLOWS 10000
#define UDP_QUEUE 64

/* Counters are written by the loop thread only and read by JavaScript's thread: relaxed atomics. */
#define LOAD(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)
#define STORE(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELAXED)
#define BUMP(x, d) STORE(x, LOAD(x) + (d))

typedef struct member {
  uint32_t id;
  int64_t active, total, errors, bytes_in, bytes_out, chunks_in;
  int64_t connect_ms[NBUCKETS];
} member_t;

/* A published row with its member resolved, and what the algorithms remember of it. */
typedef struct entry {
  member_t *m;
  int index;
  int weight;
  int score;
  int eligible;
  int has2;
  struct sockaddr_storage addr, addr2;
  int port;
  uint32_t hash;
  uint32_t connect_ms;
  double current;        /* smooth weighted round-robin memory */
} entry_t;

typedef struct pool {
  uint32_t id;
  int algo;
  uint64_t idle_ms;
  entry_t *entries;
  int n;
  int last;              /* index of the last choice (rotating algorithms) */
  int64_t accepted, refused, redispatched;
} pool_t;

typedef struct listener {
  uv_tcp_t tcp;
  uv_udp_t udp;
  int is_udp;
  int fd;                /* the epoll loop's TCP listener */
  int paused;            /* out of descriptors: accepting again at the next sweep */
  uint32_t id;
  pool_t *pool;          /* under engine.mu: a reload points it elsewhere */
  int secondary;
  int port;
  int closed;            /* 1 closing, 2 closed */
  int refs;              /* connections and flows still using it */
  struct listener *next;
  struct flow **buckets; /* UDP flows by client address */
} listener_t;

/* What the epoll loop calls for an event on a descriptor: each registers its own (sock.c). */
typedef void (*ep_cb)(engine_t *e, void *p, uint32_t events);

/* select.c */
entry_t *choose(pool_t *p, int secondary, const uint32_t *tried, int ntried, uint32_t client_hash);
uint32_t hash_client(const char *addr, int port);
uint32_t fmix32(uint32_t h);

/* engine.c */
void engine_lock(engine_t *e);
void engine_unlock(engine_t *e);
member_t *engine_member(engine_t *e, uint32_t id);
pool_t *engine_pool(engine_t *e, uint32_t id);
void engine_emit(engine_t *e, event_t *ev);

#endif
