/* The native data path's API to the addon (addon.c): one libuv loop on its own thread forwards
 * TCP (and UDP) connections. JavaScript keeps control: it publishes per-pool selection tables
 * and listeners; the loop reads them per connection, counts, and reports events back through
 * one queue. The loop's own model is in model.h. */
#ifndef LBDESK_ENGINE_H
#define LBDESK_ENGINE_H

#include <stdint.h>
#include <uv.h>

typedef struct engine engine_t;

/* The algorithms the loop decides alone; A_JS asks JavaScript once per connection. Names and
 * numbers are exported to JavaScript (addon.c, `layout`): never restated there. */
#define ENGINE_ALGORITHMS(X) X(A_RR, "round-robin") X(A_WRR, "weighted-round-robin") X(A_LC, "least-connections") \
  X(A_HW, "health-weighted") X(A_HASH, "hash") X(A_JS, "js")
#define ENGINE_ENUM(id, name) id,
enum algo { ENGINE_ALGORITHMS(ENGINE_ENUM) A_COUNT };

#define NBUCKETS 15            /* CONNECT_BUCKETS_MS (14 bounds) + one for slower */
/* Per member, engine_member_stats writes these, then NBUCKETS connect-time counts. */
#define MEMBER_FIELDS(X) X("active") X("total") X("errors") X("bytesIn") X("bytesOut") X("chunksIn")
#define MEMBER_STATS (6 + NBUCKETS)
/* Per pool, engine_pool_stats writes these. */
#define POOL_FIELDS(X) X("accepted") X("refused") X("redispatched")
#define POOL_STATS 3

/* One member of a published pool (a row of JavaScript's table, in table order). */
#define ROW_FIELDS(X) X("id") X("index") X("weight") X("score") X("eligible") X("address") X("address2") X("port") X("hash") X("connectMs")
typedef struct row {
  uint32_t member;
  int index, weight, score;
  int eligible;          /* in the tier JavaScript computed (available, else degraded; weight > 0) */
  int has2;              /* has a secondary address */
  struct sockaddr_storage addr, addr2;
  int port;              /* 0 = the port the connection arrived on */
  uint32_t hash;
  uint32_t connect_ms;
} row_t;

/* Events to JavaScript, in order. */
enum ev_type { EV_REFUSED, EV_REDISPATCH, EV_CHOOSE, EV_END, EV_ERROR };
#define MAX_TRIED 64

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

engine_t *engine_new(void);
void engine_free(engine_t *e);
void engine_set_notify(engine_t *e, void (*fn)(void *), void *arg);
event_t *engine_take_events(engine_t *e);
/* An IPv4 or IPv6 address and port; 0, or -1 when it is not one. */
int engine_parse_addr(const char *addr, int port, struct sockaddr_storage *ss);
/* `shared`: other engines listen on the same port (SO_REUSEPORT). */
int engine_listen(engine_t *e, uint32_t id, const char *addr, int port, int udp, int shared, int *bound, char *err, size_t errlen);
void engine_unlisten(engine_t *e, uint32_t id);
void engine_set_listener(engine_t *e, uint32_t id, uint32_t pool, int secondary);
/* Swaps a pool's selection table whole (`rows` is copied). */
void engine_publish(engine_t *e, uint32_t pool, int algo, uint64_t idle_ms, const row_t *rows, int n);
void engine_chosen(engine_t *e, int udp, uint32_t slot, uint32_t gen, uint32_t member, const char *reason);
/* Counters, MEMBER_STATS or POOL_STATS doubles per id into `out`. */
void engine_member_stats(engine_t *e, const uint32_t *ids, size_t n, double *out);
void engine_pool_stats(engine_t *e, const uint32_t *ids, size_t n, double *out);
void engine_stop_all(engine_t *e);
int engine_live(engine_t *e, int64_t *sessions, int64_t *flows);
const char *engine_loop_name(engine_t *e);

#endif
