/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/*
 * lib/group: sibling stacks on the queues of one port (ust_group.h says
 * what they share and why; doc/scale-out.md the design).
 *
 * How it is called: ust_group_create() on the main lcore makes the stacks
 * (each with its lcore, NUMA node and slice of the ephemeral ports) and
 * registers four hooks on each (struct ust_sibling_ops, stack_private.h),
 * which the layers call on the stack's own lcore:
 *  - steer (TCP and UDP input, when a segment or datagram finds no socket):
 *    with a predictable hash, the stack it names owns the flow; without,
 *    a local port in a sibling's slice does, and a TCP segment whose port
 *    is in none goes round the siblings (so does IPv6, which the hash
 *    leaves out, with port steering); the frame gets its Ethernet header
 *    back and is staged for the owner;
 *  - arp_copy (ARP input): a copy of the frame staged for every sibling;
 *  - rx (ust_stack_poll(), after the netif's burst): the stages go out,
 *    one burst per sibling, then the stack reads its own rings;
 *  - port_ok (TCP connect, UDP auto-bind): with a predictable hash, only
 *    ports whose reply hashes to the stack's queue (each stack then draws
 *    from the whole ephemeral range: one port in N qualifies for a given
 *    peer, as many as a slice would give, where slices and steering
 *    together would leave one in N squared).
 *
 * Rings: one single-producer single-consumer rte_ring per ordered pair
 * (sender, owner), allocated on the owner's NUMA node. A stack writes only
 * its own rings' producer side and reads only its own inbound rings: no
 * lock, no atomic read-modify-write, one release store per burst.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_ip.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_ring.h>
#include <rte_thash.h>

#include "stack_private.h"
#include "telemetry_private.h"
#include "ust_group.h"
#include "ust_socket.h"

RTE_LOG_REGISTER(ust_group_logtype, ustack.group, INFO);
#define GRP_LOG(level, fmt, ...) \
	UST_LOG_TO(ust_group_logtype, "ustack.group", level, fmt, \
		   ##__VA_ARGS__)

/* frames staged for one sibling before they go to its ring in a burst */
#define GRP_STAGE 32

struct grp_stage {
	uint16_t n;
	struct rte_mbuf *m[GRP_STAGE];
};

/* One stack of the group and its side of the rings: written by its lcore
 * only (the rings' other ends are the siblings'). */
struct grp_member {
	struct ust_stack *stk;
	struct ust_group *g;
	uint16_t idx;
	uint16_t in_next;             /* inbound ring read first next time */
	unsigned int lcore;
	uint16_t staged;              /* frames in all stages */
	struct rte_ring *out[UST_GROUP_MAX]; /* to sibling j; NULL for us */
	struct rte_ring *in[UST_GROUP_MAX];  /* from sibling j */
	struct grp_stage stage[UST_GROUP_MAX];
	char name[32];
} __rte_cache_aligned;

struct ust_group {
	uint16_t n;
	bool steer_ports;            /* RSS predictable and L4 hashed: every
				      * stack draws from the whole ephemeral
				      * range the ports whose replies hash to
				      * its queue; else one slice a stack */
	uint16_t eph_lo;             /* the whole ephemeral range ... */
	uint32_t eph_span;
	uint32_t slice;              /* ... cut in n slices of this size */
	struct ust_rss rss;
	char name[24];
	struct grp_member *m[UST_GROUP_MAX];
	struct ust_stack *stks[UST_GROUP_MAX];
	struct ust_tel_group tel;    /* telemetry's view: name, stacks */
};

void
ust_group_conf_defaults(struct ust_group_conf *c)
{
	unsigned int i;

	memset(c, 0, sizeof(*c));
	c->name = "ust";
	c->nb_stacks = 1;
	for (i = 0; i < UST_GROUP_MAX; i++)
		c->lcores[i] = LCORE_ID_ANY;
	ust_stack_conf_defaults(&c->stack);
	c->rss.kind = UST_RSS_NONE;
	c->ring_size = 1024;
	c->steer_ports = true;
}

/* ---- the RSS hash ---- */

uint32_t
ust_rss_hash(const struct ust_rss *rss, rte_be32_t src, rte_be32_t dst,
	     rte_be16_t sport, rte_be16_t dport)
{
	/* rte_softrss() reads its key 4 bytes past the tuple: a key shorter
	 * than 16 bytes is padded with zeros */
	uint8_t key[UST_RSS_KEY_MAX];
	uint32_t t[3];
	uint32_t len = (sport | dport) != 0 ? 3 : 2;

	if (rss->key_len < 16) {
		memset(key, 0, sizeof(key));
		memcpy(key, rss->key, rss->key_len);
	}
	t[0] = rte_be_to_cpu_32(src);
	t[1] = rte_be_to_cpu_32(dst);
	t[2] = ((uint32_t)rte_be_to_cpu_16(sport) << 16) |
		rte_be_to_cpu_16(dport);
	return rte_softrss(t, len, rss->key_len < 16 ? key : rss->key);
}

int
ust_group_rx_stack(const struct ust_group *g, rte_be32_t laddr,
		   rte_be16_t lport, rte_be32_t raddr, rte_be16_t rport)
{
	uint16_t q, i;

	if (g->rss.kind != UST_RSS_TOEPLITZ)
		return -1;
	q = ust_rss_queue(&g->rss, ust_rss_hash(&g->rss, raddr, laddr,
						rport, lport));
	for (i = 0; i < g->n; i++)
		if (g->m[i]->stk->netif.queue_id == q)
			return i;
	return -1;
}

int
ust_group_port_owner(const struct ust_group *g, rte_be16_t lport)
{
	uint32_t off = (uint32_t)rte_be_to_cpu_16(lport) - g->eph_lo;
	uint32_t i;

	if (g->steer_ports || off >= g->eph_span) /* (below eph_lo wraps) */
		return -1;
	i = off / g->slice;
	return i < g->n ? (int)i : -1;
}

/* ---- the hooks ---- */

static void
grp_flush_one(struct grp_member *gm, uint16_t j)
{
	struct grp_stage *st = &gm->stage[j];
	unsigned int k;

	if (st->n == 0)
		return;
	k = rte_ring_sp_enqueue_burst(gm->out[j], (void **)st->m, st->n,
				      NULL);
	/* a full ring: the rest is dropped here, counted once each */
	for (; k < st->n; k++)
		ust_drop(gm->stk, st->m[k], UST_DROP_HANDOFF_FULL);
	gm->staged -= st->n;
	st->n = 0;
}

static void
grp_stage(struct grp_member *gm, uint16_t j, struct rte_mbuf *m)
{
	struct grp_stage *st = &gm->stage[j];

	if (st->n == GRP_STAGE)
		grp_flush_one(gm, j);
	st->m[st->n++] = m;
	gm->staged++;
}

static void
grp_flush(struct grp_member *gm)
{
	uint16_t j;

	for (j = 0; j < gm->g->n && gm->staged > 0; j++)
		grp_flush_one(gm, j);
}

static uint16_t
grp_rx(struct ust_stack *stk, struct rte_mbuf **pkts, uint16_t n)
{
	struct grp_member *gm = stk->sib_ctx;
	uint16_t nb = gm->g->n, got = 0, k;

	if (gm->staged > 0)
		grp_flush(gm);
	/* round robin over the inbound rings, so that one busy sibling
	 * cannot starve the others */
	for (k = 0; k < nb && got < n; k++) {
		uint16_t j = (uint16_t)((gm->in_next + k) % nb);

		if (gm->in[j] != NULL)
			got += (uint16_t)rte_ring_sc_dequeue_burst(gm->in[j],
				(void **)pkts + got, n - got, NULL);
	}
	gm->in_next = (uint16_t)((gm->in_next + 1) % nb);
	stk->mib[UST_MIB_GROUP_HANDOFFIN] += got;
	return got;
}

/* The stack the device's hash gives a TCP segment or UDP datagram (data at
 * its IPv4 header, which input validated with its ports). */
static int
grp_hash_owner(const struct ust_group *g, const struct rte_mbuf *m)
{
	const struct rte_ipv4_hdr *ih =
		rte_pktmbuf_mtod(m, const struct rte_ipv4_hdr *);
	const rte_be16_t *ports = (const rte_be16_t *)
		((const uint8_t *)ih + (ih->version_ihl & 0xf) * 4);

	return ust_group_rx_stack(g, ih->dst_addr, ports[1], ih->src_addr,
				  ports[0]);
}

static bool
grp_steer(struct ust_stack *stk, struct rte_mbuf *m, rte_be16_t lport,
	  bool walk)
{
	struct grp_member *gm = stk->sib_ctx;
	struct ust_mbuf_meta *meta = ust_meta(stk->meta_off, m);
	int owner = ust_group_port_owner(gm->g, lport);
	uint16_t n = gm->g->n;

	if (!stk->sib_in) {
		/* the owner: the stack the device's hash names, or without
		 * a known hash the one whose slice holds the port; IPv6 is
		 * not in the hash (drivers/port hashes IPv4 only, and a NIC
		 * gives what it does not hash to one queue), so with port
		 * steering its owner is unknown and it goes round */
		if (gm->g->steer_ports)
			owner = (*rte_pktmbuf_mtod(m, const uint8_t *) >> 4) ==
				4 ? grp_hash_owner(gm->g, m) : -1;
		if (owner >= 0 && owner != gm->idx) {
			meta->rx_hops = n;  /* at its owner: no further */
		} else if (walk && (owner < 0 || gm->g->steer_ports)) {
			/* no owner known, or the hash names us while a
			 * connection from a port chosen without its peer
			 * (bind, then connect) may be a sibling's: round
			 * the siblings */
			meta->rx_hops = 1;
			owner = (gm->idx + 1) % n;
		} else {
			return false;
		}
	} else {
		/* handed over: a walk goes on until every stack has seen
		 * it; the owner answers for the rest */
		if (!walk || meta->rx_hops + 1 >= n)
			return false;
		meta->rx_hops++;
		owner = (gm->idx + 1) % n;
	}
	/* the Ethernet header is still in the headroom (ust_eth_input()
	 * only moved past it): the owner gets the frame as received */
	if (rte_pktmbuf_prepend(m, UST_ETH_HDR_LEN) == NULL)
		return false;
	grp_stage(gm, (uint16_t)owner, m);
	stk->mib[UST_MIB_GROUP_HANDOFFOUT]++;
	ust_consumed(stk);
	return true;
}

static bool
grp_steer_err(struct ust_stack *stk, struct rte_mbuf *m, rte_be16_t lport,
	      rte_be32_t raddr, rte_be16_t rport)
{
	struct grp_member *gm = stk->sib_ctx;
	int owner = gm->g->steer_ports ?
		ust_group_rx_stack(gm->g, stk->addr, lport, raddr, rport) :
		ust_group_port_owner(gm->g, lport);

	/* (ICMP is hashed by its own addresses: the flow it quotes may be
	 * any stack's) */
	if (owner < 0 || owner == gm->idx ||
	    rte_pktmbuf_prepend(m, UST_ETH_HDR_LEN) == NULL)
		return false;
	ust_meta(stk->meta_off, m)->rx_hops = gm->g->n;
	grp_stage(gm, (uint16_t)owner, m);
	stk->mib[UST_MIB_GROUP_HANDOFFOUT]++;
	ust_consumed(stk);
	return true;
}

static void
grp_arp_copy(struct ust_stack *stk, const struct rte_mbuf *m)
{
	struct grp_member *gm = stk->sib_ctx;
	uint16_t j;

	for (j = 0; j < gm->g->n; j++) {
		struct rte_mbuf *c;

		if (j == gm->idx)
			continue;
		/* copies come out of the reserve's share, as replies do: an
		 * ARP flood cannot take the mbufs RX refills from */
		c = ust_reply_room(stk, 1) ?
			rte_pktmbuf_copy(m, stk->pool, 0, UINT32_MAX) : NULL;
		if (c == NULL) {
			stk->mib[UST_MIB_GROUP_ARPCOPYFAILS]++;
			continue;
		}
		grp_stage(gm, j, c);
		stk->mib[UST_MIB_GROUP_ARPCOPIES]++;
	}
}

static bool
grp_port_ok(const struct ust_stack *stk, rte_be16_t lport, rte_be32_t raddr,
	    rte_be16_t rport)
{
	const struct grp_member *gm = stk->sib_ctx;
	const struct ust_group *g = gm->g;

	if (!g->steer_ports)
		return true;
	return ust_rss_queue(&g->rss, ust_rss_hash(&g->rss, raddr, stk->addr,
						   rport, lport)) ==
		stk->netif.queue_id;
}

static const struct ust_sibling_ops grp_ops = {
	.rx = grp_rx,
	.steer = grp_steer,
	.steer_err = grp_steer_err,
	.arp_copy = grp_arp_copy,
	.port_ok = grp_port_ok,
};

/* ---- create, destroy ---- */

static int
grp_check(const struct ust_group_conf *c)
{
	const struct ust_rss *r = &c->rss;
	uint32_t span;
	uint16_t i, j;

	if (c->nb_stacks == 0 || c->nb_stacks > UST_GROUP_MAX) {
		GRP_LOG(ERR, "%u stacks: 1 to %u", c->nb_stacks,
			UST_GROUP_MAX);
		return -EINVAL;
	}
	if (c->name == NULL || strlen(c->name) > 20) {
		GRP_LOG(ERR, "the group's name must have 1 to 20 characters");
		return -EINVAL;
	}
	if (c->ring_size < 2 || !rte_is_power_of_2(c->ring_size)) {
		GRP_LOG(ERR, "ring_size %u: a power of two", c->ring_size);
		return -EINVAL;
	}
	if (c->stack.ephemeral_hi < c->stack.ephemeral_lo)
		return -EINVAL;
	span = (uint32_t)c->stack.ephemeral_hi - c->stack.ephemeral_lo + 1;
	if (span / c->nb_stacks < 64) {
		GRP_LOG(ERR, "ephemeral ports %u-%u: fewer than 64 a stack",
			c->stack.ephemeral_lo, c->stack.ephemeral_hi);
		return -EINVAL;
	}
	for (i = 0; i < c->nb_stacks; i++) {
		if (c->netifs[i].ops == NULL) {
			GRP_LOG(ERR, "stack %u has no netif", i);
			return -EINVAL;
		}
		if (c->lcores[i] >= RTE_MAX_LCORE ||
		    !rte_lcore_is_enabled(c->lcores[i])) {
			GRP_LOG(ERR, "stack %u: lcore %u is not an EAL lcore",
				i, c->lcores[i]);
			return -EINVAL;
		}
		for (j = 0; j < i; j++) {
			if (c->lcores[j] == c->lcores[i]) {
				GRP_LOG(ERR, "stacks %u and %u on one lcore "
					"(%u)", j, i, c->lcores[i]);
				return -EINVAL;
			}
			if (c->netifs[j].port_id == c->netifs[i].port_id &&
			    c->netifs[j].port_id != UINT16_MAX &&
			    c->netifs[j].queue_id == c->netifs[i].queue_id) {
				GRP_LOG(ERR, "stacks %u and %u on one queue "
					"(%u)", j, i, c->netifs[i].queue_id);
				return -EINVAL;
			}
		}
	}
	if (r->kind == UST_RSS_TOEPLITZ) {
		if (r->key_len == 0 || r->key_len > UST_RSS_KEY_MAX ||
		    r->reta_size == 0 || r->reta_size > UST_RSS_RETA_MAX) {
			GRP_LOG(ERR, "RSS: key of %u bytes, RETA of %u",
				r->key_len, r->reta_size);
			return -EINVAL;
		}
		for (i = 0; i < r->reta_size; i++) {
			for (j = 0; j < c->nb_stacks; j++)
				if (c->netifs[j].queue_id == r->reta[i])
					break;
			if (j == c->nb_stacks) {
				GRP_LOG(ERR, "RSS: RETA entry %u sends flows "
					"to queue %u, which no stack polls", i,
					r->reta[i]);
				return -EINVAL;
			}
		}
	} else if (r->kind != UST_RSS_NONE) {
		return -EINVAL;
	}
	return 0;
}

static struct rte_ring *
grp_ring(const struct ust_group *g, uint16_t from, uint16_t to,
	 uint32_t size, int socket)
{
	char name[RTE_RING_NAMESIZE];
	ssize_t sz = rte_ring_get_memsize(size);
	struct rte_ring *r;

	if (sz < 0)
		return NULL;
	/* rte_ring_init() on our own memory: not in the process-wide ring
	 * list, so two groups never clash on a name */
	r = rte_zmalloc_socket("ust_group_ring", (size_t)sz,
			       RTE_CACHE_LINE_SIZE, socket);
	if (r == NULL)
		return NULL;
	snprintf(name, sizeof(name), "%.16s_%u_%u", g->name, from, to);
	if (rte_ring_init(r, name, size, RING_F_SP_ENQ | RING_F_SC_DEQ) != 0) {
		rte_free(r);
		return NULL;
	}
	return r;
}

struct ust_group *
ust_group_create(const struct ust_group_conf *c)
{
	struct ust_group *g;
	uint16_t i, j;
	int rc;

	rc = grp_check(c);
	if (rc != 0) {
		rte_errno = -rc;
		return NULL;
	}
	g = rte_zmalloc("ust_group", sizeof(*g), RTE_CACHE_LINE_SIZE);
	if (g == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	g->n = c->nb_stacks;
	snprintf(g->name, sizeof(g->name), "%s", c->name);
	g->rss = c->rss;
	g->steer_ports = c->steer_ports && c->rss.kind == UST_RSS_TOEPLITZ &&
		c->nb_stacks > 1 &&
		(c->rss.hf & RTE_ETH_RSS_NONFRAG_IPV4_TCP) &&
		(c->rss.hf & RTE_ETH_RSS_NONFRAG_IPV4_UDP);
	g->eph_lo = c->stack.ephemeral_lo;
	g->eph_span = (uint32_t)c->stack.ephemeral_hi - g->eph_lo + 1;
	g->slice = g->eph_span / g->n;
	for (i = 0; i < g->n; i++) {
		unsigned int lc = c->lcores[i];
		int sock = c->stack.socket_id == SOCKET_ID_ANY ?
			(int)rte_lcore_to_socket_id(lc) : c->stack.socket_id;
		struct grp_member *gm;

		gm = rte_zmalloc_socket("ust_group_member", sizeof(*gm),
					RTE_CACHE_LINE_SIZE, sock);
		if (gm == NULL)
			goto nomem;
		g->m[i] = gm;
		gm->g = g;
		gm->idx = i;
		gm->lcore = lc;
		snprintf(gm->name, sizeof(gm->name), "%s%u", g->name, i);
	}
	/* the rings, each on its reader's node */
	for (i = 0; i < g->n && g->n > 1; i++) {
		for (j = 0; j < g->n; j++) {
			struct rte_ring *r;

			if (i == j)
				continue;
			r = grp_ring(g, i, j, c->ring_size,
				     (int)rte_lcore_to_socket_id(g->m[j]->lcore));
			if (r == NULL)
				goto nomem;
			g->m[i]->out[j] = r;
			g->m[j]->in[i] = r;
		}
	}
	for (i = 0; i < g->n; i++) {
		struct grp_member *gm = g->m[i];
		struct ust_stack_conf sc = c->stack;

		sc.name = gm->name;
		sc.netif = c->netifs[i];
		if (c->pools[i] != NULL)
			sc.pool = c->pools[i];
		sc.lcore = gm->lcore;
		if (sc.socket_id == SOCKET_ID_ANY)
			sc.socket_id = (int)rte_lcore_to_socket_id(gm->lcore);
		/* without a predictable hash, the stack's slice: the local
		 * port names the owner */
		if (!g->steer_ports) {
			sc.ephemeral_lo = (uint16_t)(g->eph_lo + i * g->slice);
			sc.ephemeral_hi = (uint16_t)(sc.ephemeral_lo +
						     g->slice - 1);
		}
		gm->stk = ust_stack_create(&sc);
		if (gm->stk == NULL) {
			rc = rte_errno;
			GRP_LOG(ERR, "stack %u: %s", i, rte_strerror(rc));
			ust_group_destroy(g);
			rte_errno = rc;
			return NULL;
		}
		if (g->n > 1)
			ust_stack_set_siblings(gm->stk, &grp_ops, gm);
		g->stks[i] = gm->stk;
	}
	g->tel.name = g->name;
	g->tel.stks = g->stks;
	g->tel.n = g->n;
	rc = ust_telemetry_group_register(&g->tel);
	if (rc != 0) {
		GRP_LOG(ERR, "%s: %s", g->name, rc == -EEXIST ?
			"a stack or group of this process has this name" :
			"too many groups in this process");
		ust_group_destroy(g);
		rte_errno = -rc;
		return NULL;
	}
	return g;
nomem:
	ust_group_destroy(g);
	rte_errno = ENOMEM;
	return NULL;
}

void
ust_group_destroy(struct ust_group *g)
{
	struct rte_mbuf *m;
	uint16_t i, j;

	if (g == NULL)
		return;
	ust_telemetry_group_unregister(&g->tel);
	/* frames still staged or in a ring: the owner counts them as
	 * received and dropped (the sender counted them handed over) */
	for (i = 0; i < g->n; i++) {
		struct grp_member *gm = g->m[i];

		if (gm == NULL)
			continue;
		for (j = 0; j < g->n; j++) {
			struct grp_stage *st = &gm->stage[j];
			struct ust_stack *owner = g->m[j] != NULL ?
				g->m[j]->stk : NULL;

			while (st->n > 0) {
				m = st->m[--st->n];
				if (owner != NULL) {
					owner->mib[UST_MIB_ETH_INFRAMES]++;
					owner->mib[UST_MIB_GROUP_HANDOFFIN]++;
					ust_drop(owner, m,
						 UST_DROP_HANDOFF_FULL);
				} else {
					rte_pktmbuf_free(m);
				}
			}
			if (gm->in[j] == NULL)
				continue;
			while (rte_ring_sc_dequeue(gm->in[j],
						   (void **)&m) == 0) {
				if (gm->stk != NULL) {
					gm->stk->mib[UST_MIB_ETH_INFRAMES]++;
					gm->stk->mib[UST_MIB_GROUP_HANDOFFIN]++;
					ust_drop(gm->stk, m,
						 UST_DROP_HANDOFF_FULL);
				} else {
					rte_pktmbuf_free(m);
				}
			}
		}
	}
	for (i = 0; i < g->n; i++) {
		struct grp_member *gm = g->m[i];

		if (gm == NULL)
			continue;
		if (gm->stk != NULL) {
			ust_stack_set_siblings(gm->stk, NULL, NULL);
			ust_stack_destroy(gm->stk);
		}
		for (j = 0; j < g->n; j++)
			rte_free(gm->in[j]);
	}
	for (i = 0; i < g->n; i++)
		rte_free(g->m[i]);
	rte_free(g);
}

/* ---- accessors, launch ---- */

uint16_t
ust_group_size(const struct ust_group *g)
{
	return g->n;
}

struct ust_stack *
ust_group_stack(const struct ust_group *g, uint16_t i)
{
	return i < g->n ? g->m[i]->stk : NULL;
}

unsigned int
ust_group_lcore(const struct ust_group *g, uint16_t i)
{
	return i < g->n ? g->m[i]->lcore : LCORE_ID_ANY;
}

struct ust_stack *
ust_group_self(const struct ust_group *g)
{
	unsigned int lc = rte_lcore_id();
	uint16_t i;

	for (i = 0; i < g->n; i++)
		if (g->m[i]->lcore == lc)
			return g->m[i]->stk;
	return NULL;
}

int
ust_group_index(const struct ust_group *g, const struct ust_stack *stk)
{
	uint16_t i;

	for (i = 0; i < g->n; i++)
		if (g->m[i]->stk == stk)
			return i;
	return -1;
}

struct grp_launch {
	ust_group_worker_t fn;
	void *arg;
	struct ust_stack *stk;
	uint16_t idx;
};

static int
grp_trampoline(void *p)
{
	struct grp_launch *l = p;

	return l->fn(l->stk, l->idx, l->arg);
}

int
ust_group_launch(struct ust_group *g, ust_group_worker_t fn, void *arg)
{
	struct grp_launch l[UST_GROUP_MAX];
	int rcs[UST_GROUP_MAX] = { 0 };
	bool launched[UST_GROUP_MAX] = { false };
	unsigned int self = rte_lcore_id();
	int self_idx = -1, busy = 0, r;
	uint16_t i;

	for (i = 0; i < g->n; i++) {
		l[i].fn = fn;
		l[i].arg = arg;
		l[i].stk = g->m[i]->stk;
		l[i].idx = i;
		if (g->m[i]->lcore == self) {
			self_idx = i;
			continue;
		}
		r = rte_eal_remote_launch(grp_trampoline, &l[i],
					  g->m[i]->lcore);
		if (r != 0) {
			GRP_LOG(ERR, "stack %u: lcore %u cannot be launched: "
				"%s", i, g->m[i]->lcore, rte_strerror(-r));
			busy = -EBUSY;
			break;
		}
		launched[i] = true;
	}
	if (busy == 0 && self_idx >= 0)
		rcs[self_idx] = grp_trampoline(&l[self_idx]);
	for (i = 0; i < g->n; i++)
		if (launched[i])
			rcs[i] = rte_eal_wait_lcore(g->m[i]->lcore);
	if (busy != 0)
		return busy;
	for (i = 0; i < g->n; i++)
		if (rcs[i] != 0)
			return rcs[i];
	return 0;
}

void
ust_group_stats_get(const struct ust_group *g, struct ust_stats *st)
{
	struct ust_stats one;
	uint16_t i;

	memset(st, 0, sizeof(*st));
	for (i = 0; i < g->n; i++) {
		ust_stack_stats_get(g->m[i]->stk, &one);
		ust_stats_add(st, &one);
	}
}

int
ust_group_udp_share(struct ust_group *g, uint16_t owner, int sd)
{
	uint16_t i, j;
	int rc;

	if (owner >= g->n)
		return -EINVAL;
	for (i = 0; i < g->n; i++) {
		if (i == owner)
			continue;
		rc = ust_socket_attach(g->m[i]->stk, g->m[owner]->stk, sd);
		if (rc != 0) {
			for (j = 0; j < i; j++)
				if (j != owner)
					ust_socket_detach(g->m[j]->stk,
							  g->m[owner]->stk, sd);
			return rc;
		}
	}
	return 0;
}
