/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/*
 * The capture stage (ust_capture.h): rx_burst from the inner netif, then
 * a copy of each frame into the file's pool (rte_pcapng_copy(): the
 * Enhanced Packet Block around the bytes) and one rte_pcapng_write_packets()
 * for the burst; tx_burst copies first (once the inner netif has taken a
 * frame it may be freed at once, as net_memif does), hands the burst on,
 * and writes the copies of the frames it took.
 */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_pcapng.h>
#include <rte_version.h>

#include "ust_capture.h"

#define CAP_BURST 64
/* copies in flight: a burst a stage at a time (freed once written) */
#define CAP_POOL 2047
/* an mbuf's data room is 16 bits: a 9216-byte jumbo frame and the
 * pcapng block around it fit */
#define CAP_SNAPLEN_MAX 9216

struct ust_capture_file {
	rte_pcapng_t *pcapng;
	struct rte_mempool *pool;
	uint32_t snaplen;
};

struct ust_capture {
	struct ust_netif inner;
	struct ust_capture_file *file;
	struct ust_capture_stats st;
};

struct ust_capture_file *
ust_capture_open(const char *path, uint32_t snaplen)
{
	struct ust_capture_file *f;
	static unsigned int seq;
	char name[RTE_MEMPOOL_NAMESIZE];
	int fd;

	if (path == NULL) {
		rte_errno = EINVAL;
		return NULL;
	}
	f = rte_zmalloc("ust_capture_file", sizeof(*f), 0);
	if (f == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	if (snaplen > CAP_SNAPLEN_MAX) {
		rte_errno = EINVAL;
		rte_free(f);
		return NULL;
	}
	f->snaplen = snaplen != 0 ? snaplen : CAP_SNAPLEN_MAX;
	snprintf(name, sizeof(name), "ust_cap%u", seq++);
	f->pool = rte_pktmbuf_pool_create(name, CAP_POOL, 128, 0,
					  rte_pcapng_mbuf_size(f->snaplen),
					  (int)rte_socket_id());
	if (f->pool == NULL)
		goto fail;
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0640);
	if (fd < 0) {
		rte_errno = errno;
		goto fail;
	}
	f->pcapng = rte_pcapng_fdopen(fd, NULL, NULL, "ustack",
				      "captured by ustack's capture stage");
	if (f->pcapng == NULL) {
		close(fd);
		goto fail;
	}
	return f;
fail:
	rte_mempool_free(f->pool);
	rte_free(f);
	return NULL;
}

void
ust_capture_close(struct ust_capture_file *f)
{
	if (f == NULL)
		return;
	rte_pcapng_close(f->pcapng); /* closes the descriptor */
	rte_mempool_free(f->pool);
	rte_free(f);
}

/* Copy @pkts[0..n) for @dir; the copies in @cp (NULL where the pool ran
 * dry). */
static void
cap_copy(struct ust_capture *c, struct rte_mbuf **pkts, uint16_t n,
	 struct rte_mbuf **cp, enum rte_pcapng_direction dir)
{
	uint64_t ts = rte_get_tsc_cycles();
	uint16_t i;

	for (i = 0; i < n; i++) {
		cp[i] = rte_pcapng_copy(c->inner.port_id, c->inner.queue_id,
					pkts[i], c->file->pool,
					c->file->snaplen, ts, dir);
		if (cp[i] == NULL)
			c->st.missed++;
	}
}

/* Write the copies cp[0..n) that exist; free them all. */
static void
cap_write(struct ust_capture *c, struct rte_mbuf **cp, uint16_t n,
	  uint64_t *count)
{
	struct rte_mbuf *w[CAP_BURST];
	uint16_t i, k = 0;

	for (i = 0; i < n; i++)
		if (cp[i] != NULL)
			w[k++] = cp[i];
	if (k == 0)
		return;
	if (rte_pcapng_write_packets(c->file->pcapng, w, k) < 0)
		c->st.write_errors++;
	else
		*count += k;
	rte_pktmbuf_free_bulk(w, k);
}

static uint16_t
cap_rx(void *ctx, struct rte_mbuf **pkts, uint16_t n)
{
	struct ust_capture *c = ctx;
	struct rte_mbuf *cp[CAP_BURST];
	uint16_t got;

	if (n > CAP_BURST)
		n = CAP_BURST;
	got = c->inner.ops->rx_burst(c->inner.ctx, pkts, n);
	if (got > 0) {
		cap_copy(c, pkts, got, cp, RTE_PCAPNG_DIRECTION_IN);
		cap_write(c, cp, got, &c->st.rx);
	}
	return got;
}

static uint16_t
cap_tx(void *ctx, struct rte_mbuf **pkts, uint16_t n)
{
	struct ust_capture *c = ctx;
	struct rte_mbuf *cp[CAP_BURST];
	uint16_t sent, i;

	if (n > CAP_BURST)
		n = CAP_BURST;
	cap_copy(c, pkts, n, cp, RTE_PCAPNG_DIRECTION_OUT);
	sent = c->inner.ops->tx_burst(c->inner.ctx, pkts, n);
	/* what the netif did not take is retried later: captured then */
	for (i = sent; i < n; i++)
		if (cp[i] != NULL) {
			rte_pktmbuf_free(cp[i]);
			cp[i] = NULL;
		}
	cap_write(c, cp, sent, &c->st.tx);
	return sent;
}

static const struct ust_netif_ops cap_ops = {
	.rx_burst = cap_rx,
	.tx_burst = cap_tx,
};

struct ust_capture *
ust_capture_create(struct ust_capture_file *file, const struct ust_netif *inner)
{
	struct ust_capture *c;

	if (file == NULL || inner == NULL || inner->ops == NULL) {
		rte_errno = EINVAL;
		return NULL;
	}
	c = rte_zmalloc("ust_capture", sizeof(*c), RTE_CACHE_LINE_SIZE);
	if (c == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	c->inner = *inner;
	c->file = file;
	return c;
}

void
ust_capture_netif(struct ust_capture *c, struct ust_netif *out)
{
	*out = c->inner;
	out->ops = &cap_ops;
	out->ctx = c;
}

void
ust_capture_stats_get(const struct ust_capture *c, struct ust_capture_stats *s)
{
	*s = c->st;
}

void
ust_capture_free(struct ust_capture *c)
{
	rte_free(c);
}
