/* The native data path: one libuv loop on its own thread forwards TCP (and UDP) connections.
 * JavaScript keeps control: it publishes per-pool selection tables and listeners; this side
 * reads them per connection, counts, and reports events back through one queue. */
#ifndef LBDESK_ENGINE_H
#define LBDESK_ENGINE_H

#include <stdint.h>
#include <uv.h>

#define NBUCKETS 15            /* CONNECT_BUCKETS_MS (14 bounds) + one for slower */
#define REPLAY_LIMIT (64 * 1024)
#define SMALL_BUF (16 * 1024)
#define BIG_BUF (64 * 1024)
#define MAX_TRIED 64
#define SWEEP_MS 250
#define UDP_MAX_FLOWS 10000
#define UDP_QUEUE 64

enum algo { A_RR, A_WRR, A_LC, A_HW, A_HASH, A_JS };

/* Counters are written by the loop thread only and read by JavaScript's thread: relaxed atomics. */
#define LOAD(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)
#define STORE(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELAXED)
#define BUMP(x, d) STORE(x, LOAD(x) + (d))

typedef struct member {
  uint32_t id;
  int64_t active, total, errors, bytes_in, bytes_out, chunks_in;
  int64_t connect_ms[NBUCKETS];
} member_t;

typedef struct entry {
  member_t *m;
  int index;
  int weight;
  int score;
  int eligible;          /* in the tier JavaScript computed (available, else degraded; weight > 0) */
  int has2;              /* has a secondary address */
  struct sockaddr_storage addr, addr2;
  int port;              /* 0 = the port the connection arrived on */
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

/* Events to JavaScript, in order. */
enum ev_type { EV_REFUSED, EV_REDISPATCH, EV_CHOOSE, EV_END, EV_ERROR };

typedef struct event {
  int type;
  uint32_t pool, member, to;  /* to: 0 = none */
  uint32_t slot, gen;         /* EV_CHOOSE: the waiting connection */
  int js;                     /* about a connection whose server JavaScript chose */
  int udp;                    /* slot and gen name a UDP flow, not a TCP connection */
  int secondary;              /* arrived on a target set's secondary address */
  int lport;                  /* the port it arrived on (a server without a port gets it) */
  char client[64];
  int client_port;
  char reason[96];
  uint32_t tried[MAX_TRIED];
  int ntried;
  struct event *next;
} event_t;

typedef struct engine engine_t;

/* select.c */
entry_t *choose(pool_t *p, int secondary, const uint32_t *tried, int ntried, uint32_t client_hash);
uint32_t hash_client(const char *addr, int port);
uint32_t fmix32(uint32_t h);

/* engine.c */
engine_t *engine_new(void);
void engine_free(engine_t *e);
void engine_lock(engine_t *e);
void engine_unlock(engine_t *e);
member_t *engine_member(engine_t *e, uint32_t id);
pool_t *engine_pool(engine_t *e, uint32_t id);
void engine_emit(engine_t *e, event_t *ev);
event_t *engine_take_events(engine_t *e);
void engine_set_notify(engine_t *e, void (*fn)(void *), void *arg);
int engine_listen(engine_t *e, uint32_t id, const char *addr, int port, int udp, int *bound, char *err, size_t errlen);
void engine_unlisten(engine_t *e, uint32_t id);
void engine_set_listener(engine_t *e, uint32_t id, uint32_t pool, int secondary);
void engine_chosen(engine_t *e, int udp, uint32_t slot, uint32_t gen, uint32_t member, const char *reason);
void engine_stop_all(engine_t *e);
int engine_live(engine_t *e, int64_t *sessions, int64_t *flows);
const char *engine_loop_name(engine_t *e);

#endif
