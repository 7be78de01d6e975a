/* Server choice from a published table: the same formulas as main/services/engine/algorithms
 * (round-robin, smooth weighted round-robin, least connections, health-weighted, rendezvous
 * hash). Called with the engine lock held; the table's tier flags come from JavaScript. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "model.h"

uint32_t fmix32(uint32_t h) {
  h ^= h >> 16;
  h *= 0x85ebca6bu;
  h ^= h >> 13;
  h *= 0xc2b2ae35u;
  h ^= h >> 16;
  return h;
}

/* FNV-1a over the UTF-16 code units of `addr|port` (ASCII here): hash32 in hash.ts. */
static uint32_t fnv(uint32_t h, const char *s) {
  for (; *s; s++) {
    h ^= (unsigned char)*s;
    h *= 0x01000193u;
  }
  return h;
}

uint32_t hash_client(const char *addr, int port) {
  char p[16];
  snprintf(p, sizeof p, "|%d", port);
  return fmix32(fnv(fnv(0x811c9dc5u, addr), p));
}

static int tried_has(const uint32_t *tried, int n, uint32_t id) {
  for (int i = 0; i < n; i++)
    if (tried[i] == id) return 1;
  return 0;
}

static int usable(const entry_t *c, int secondary, const uint32_t *tried, int ntried) {
  return c->eligible && c->weight > 0 && (!secondary || c->has2) && !tried_has(tried, ntried, c->m->id);
}

static double health_weight(const entry_t *c) {
  double s = floor(c->score + 0.5);
  if (s < 1) s = 1;
  if (s > 10) s = 10;
  return c->weight * s;
}

static entry_t *smooth(pool_t *p, int secondary, const uint32_t *tried, int ntried, int by_health) {
  double total = 0, best_cur = -INFINITY;
  entry_t *best = NULL;
  for (int i = 0; i < p->n; i++) {
    entry_t *c = &p->entries[i];
    if (!usable(c, secondary, tried, ntried)) continue;
    double w = by_health ? health_weight(c) : c->weight;
    c->current += w;
    total += w;
    if (c->current > best_cur) {
      best = c;
      best_cur = c->current;
    }
  }
  if (best) best->current -= total;
  return best;
}

static entry_t *least_conn(pool_t *p, int secondary, const uint32_t *tried, int ntried) {
  entry_t *best = NULL, *tied_after = NULL;
  for (int i = 0; i < p->n; i++) {
    entry_t *c = &p->entries[i];
    if (!usable(c, secondary, tried, ntried)) continue;
    int64_t cmp = best == NULL ? -1 : LOAD(c->m->active) * best->weight - LOAD(best->m->active) * c->weight;
    if (cmp < 0) {
      best = c;
      tied_after = c->index > p->last ? c : NULL;
    } else if (cmp == 0 && tied_after == NULL && c->index > p->last) {
      tied_after = c;
    }
  }
  return tied_after ? tied_after : best;
}

static entry_t *rendezvous(pool_t *p, int secondary, const uint32_t *tried, int ntried, uint32_t client) {
  entry_t *best = NULL;
  double best_score = -INFINITY;
  for (int i = 0; i < p->n; i++) {
    entry_t *c = &p->entries[i];
    if (!usable(c, secondary, tried, ntried)) continue;
    double u = ((double)fmix32(client ^ fmix32(c->hash + 0x9e3779b9u)) + 0.5) / 4294967296.0;
    double s = -c->weight / log(u);
    if (s > best_score) {
      best = c;
      best_score = s;
    }
  }
  return best;
}

entry_t *choose(pool_t *p, int secondary, const uint32_t *tried, int ntried, uint32_t client_hash) {
  entry_t *pick = NULL;
  switch (p->algo) {
    case A_RR:
      for (int i = 0; i < p->n; i++) {
        entry_t *c = &p->entries[i];
        if (!usable(c, secondary, tried, ntried)) continue;
        if (!pick) pick = c;
        if (c->index > p->last) {
          pick = c;
          break;
        }
      }
      break;
    case A_WRR: pick = smooth(p, secondary, tried, ntried, 0); break;
    case A_HW: pick = smooth(p, secondary, tried, ntried, 1); break;
    case A_LC: pick = least_conn(p, secondary, tried, ntried); break;
    case A_HASH: return rendezvous(p, secondary, tried, ntried, client_hash);
    default: return NULL;
  }
  if (pick) p->last = pick->index;
  return pick;
}
