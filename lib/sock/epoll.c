/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/*
 * Event sets: readiness for many sockets at once, as epoll(7) with
 * EPOLLIN/EPOLLOUT/EPOLLERR/EPOLLHUP/EPOLLRDHUP, level-triggered or
 * edge-triggered (EPOLLET), and EPOLLONESHOT.
 *
 * Like Linux's rdllist, a set keeps a list of the sockets that may be
 * ready. The protocols call ust_sock_wakeup() when a socket may have become
 * ready (a datagram queued into an empty queue, an error, send space back);
 * ust_epoll_wait() walks only that list, reports what is ready now and
 * unlinks what is not. A wait costs O(sockets on the list), never
 * O(sockets in the set). Reported sockets rotate to the tail, so that a
 * caller asking for fewer events than are ready does not starve the rest.
 *
 * Edge-triggered, as Linux's ep_poll_callback: every wake-up (each
 * segment or datagram in, not only the first into an empty queue; send
 * space back after a write was refused or cut short) marks the socket
 * changed (ep_edge); a wait reports a changed socket once, with what is
 * ready then, and forgets it until the next change. One-shot: after a
 * report the socket's events are disarmed until UST_EPOLL_CTL_MOD.
 */

#include <errno.h>

#include <rte_malloc.h>

#include "sock_private.h"

/* reported whether asked for or not, as epoll(7) does */
#define UST_EP_ALWAYS (UST_EPOLLERR | UST_EPOLLHUP)
/* the events a socket may report (not the mode flags) */
#define UST_EP_MODE (UST_EPOLLET | UST_EPOLLONESHOT)

static void
ep_link(struct ust_epoll *ep, struct ust_sock *s)
{
	s->ep_next = NULL;
	s->ep_prev = ep->tail;
	if (ep->tail != NULL)
		ep->tail->ep_next = s;
	else
		ep->head = s;
	ep->tail = s;
	s->ep_listed = true;
}

static void
ep_unlink(struct ust_epoll *ep, struct ust_sock *s)
{
	if (s->ep_prev != NULL)
		s->ep_prev->ep_next = s->ep_next;
	else
		ep->head = s->ep_next;
	if (s->ep_next != NULL)
		s->ep_next->ep_prev = s->ep_prev;
	else
		ep->tail = s->ep_prev;
	s->ep_next = NULL;
	s->ep_prev = NULL;
	s->ep_listed = false;
}

/* A socket that wants EPOLLOUT and is refused only because the stack's TX
 * staging area is full must hear when it drains: no sndbuf crossing of
 * its own will tell it. */
static void
ep_tx_wait_if_staging_full(struct ust_sock *s)
{
	if ((s->ep_events & UST_EPOLLOUT) && !ust_tx_send_room(s->stk))
		ust_sock_tx_wait(s);
}

void
ust_sock_wakeup(struct ust_sock *s)
{
	if (s->ep == NULL)
		return;
	s->ep_edge = true;
	if (!s->ep_listed)
		ep_link(s->ep, s);
}

/* what @s would report now */
static uint32_t
ep_mask(struct ust_sock *s)
{
	uint32_t want = s->ep_events & ~UST_EP_MODE;

	/* a disarmed one-shot socket reports nothing, errors included */
	if ((s->ep_events & UST_EPOLLONESHOT) && want == 0)
		return 0;
	if ((s->ep_events & UST_EPOLLET) && !s->ep_edge)
		return 0;
	return ust_sock_events(s) & (want | UST_EP_ALWAYS);
}

void
ust_epoll_detach(struct ust_sock *s)
{
	struct ust_epoll *ep = s->ep;

	if (ep == NULL)
		return;
	if (s->ep_listed)
		ep_unlink(ep, s);
	ep->members--;
	s->ep = NULL;
}

void
ust_epoll_destroy(struct ust_epoll *ep)
{
	struct ust_stack *stk = ep->base.stk;
	uint32_t i;

	for (i = 0; ep->members > 0 && i < stk->sd_cap; i++) {
		struct ust_sock *s = stk->sds[i].s;

		if (s != NULL && s->ep == ep)
			ust_epoll_detach(s);
	}
	rte_free(ep);
}

int
ust_epoll_create(struct ust_stack *stk)
{
	struct ust_epoll *ep;
	int sd;

	if (stk == NULL)
		return -EINVAL;
	ep = rte_zmalloc_socket("ust_epoll", sizeof(*ep), RTE_CACHE_LINE_SIZE,
				stk->conf.socket_id);
	if (ep == NULL)
		return -ENOMEM;
	ep->base.kind = UST_SK_EPOLL;
	sd = ust_sd_alloc(stk, &ep->base);
	if (sd < 0)
		rte_free(ep);
	return sd;
}

static struct ust_epoll *
ep_get(struct ust_stack *stk, int epd, int *err)
{
	struct ust_sock *s = ust_sd_lookup(stk, epd);

	if (s == NULL) {
		*err = -EBADF;
		return NULL;
	}
	if (s->kind != UST_SK_EPOLL) {
		*err = -EINVAL;
		return NULL;
	}
	return (struct ust_epoll *)s;
}

int
ust_epoll_ctl(struct ust_stack *stk, int epd, int op, int sd,
	      const struct ust_epoll_event *ev)
{
	struct ust_epoll *ep;
	struct ust_sock *s;
	int err = 0;

	ep = ep_get(stk, epd, &err);
	if (ep == NULL)
		return err;
	s = ust_sd_lookup(stk, sd);
	if (s == NULL)
		return -EBADF;
	if (s->kind == UST_SK_EPOLL)
		return -EINVAL; /* no nested sets */
	switch (op) {
	case UST_EPOLL_CTL_ADD:
		if (ev == NULL)
			return -EFAULT;
		if (s->ep == ep)
			return -EEXIST;
		if (s->ep != NULL)
			return -EBUSY; /* one set per socket in ustack */
		if (s->flags & (UST_SKF_SPLIT | UST_SKF_SHARED))
			return -EINVAL; /* read or fed on another lcore */
		s->ep = ep;
		s->ep_events = ev->events;
		s->ep_data = ev->data;
		s->ep_edge = true; /* what is ready now is news to the set */
		ep->members++;
		if (ep_mask(s) != 0)
			ep_link(ep, s);
		else
			ep_tx_wait_if_staging_full(s);
		return 0;
	case UST_EPOLL_CTL_MOD:
		if (ev == NULL)
			return -EFAULT;
		if (s->ep != ep)
			return -ENOENT;
		s->ep_events = ev->events;
		s->ep_data = ev->data;
		s->ep_edge = true; /* Linux re-checks readiness on MOD */
		if (!s->ep_listed && ep_mask(s) != 0)
			ep_link(ep, s);
		else if (!s->ep_listed)
			ep_tx_wait_if_staging_full(s);
		return 0;
	case UST_EPOLL_CTL_DEL:
		if (s->ep != ep)
			return -ENOENT;
		ust_epoll_detach(s);
		return 0;
	default:
		return -EINVAL;
	}
}

int
ust_epoll_wait(struct ust_stack *stk, int epd, struct ust_epoll_event *events,
	       int max)
{
	struct ust_epoll *ep;
	struct ust_sock *s, *next;
	struct ust_sock *first_reported = NULL, *last_reported = NULL;
	int err = 0, n = 0;

	ep = ep_get(stk, epd, &err);
	if (ep == NULL)
		return err;
	if (events == NULL || max <= 0)
		return -EINVAL;
	for (s = ep->head; s != NULL && n < max; s = next) {
		uint32_t mask = ep_mask(s);

		next = s->ep_next;
		if (mask == 0) {
			ep_tx_wait_if_staging_full(s);
			ep_unlink(ep, s);
			continue;
		}
		events[n].events = mask;
		events[n].data = s->ep_data;
		n++;
		if (s->ep_events & UST_EP_MODE) {
			/* reported once: off the list until the next change
			 * (EPOLLET) or the next MOD (EPOLLONESHOT) */
			s->ep_edge = false;
			if (s->ep_events & UST_EPOLLONESHOT)
				s->ep_events &= UST_EP_MODE;
			ep_unlink(ep, s);
			continue;
		}
		if (first_reported == NULL)
			first_reported = s;
		last_reported = s;
	}
	/* rotate what was reported to the tail (level-triggered fairness) */
	if (first_reported != NULL && last_reported->ep_next != NULL &&
	    first_reported == ep->head) {
		struct ust_sock *new_head = last_reported->ep_next;

		new_head->ep_prev = NULL;
		last_reported->ep_next = NULL;
		ep->tail->ep_next = first_reported;
		first_reported->ep_prev = ep->tail;
		ep->tail = last_reported;
		ep->head = new_head;
	}
	return n;
}
