/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/*
 * Internals of ustack's TCP: the control block (RFC 9293's names), the
 * half-open and TIME_WAIT entries, the per-stack TCP state, and the calls
 * between the TCP files:
 *
 *  tcp_input.c    segment arrival: lookup, then one handler per state
 *                 (RFC 9293 3.10.7)
 *  tcp_output.c   what to send now, and ust_tcp_seg_build(), the one function
 *                 that decides a segment's mbuf layout
 *  tcp_listen.c   listeners: SYN queue, SYN cookies, accept queue
 *  tcp_timer.c    retransmission, persist, keepalive, delayed ACK,
 *                 FIN_WAIT_2 and TIME_WAIT timers on the stack's wheel
 *  tcp_sack.c     the receiver's SACK blocks, the sender's scoreboard
 *                 (RFC 2018, RFC 6675)
 *  tcp_rack.c     loss detection by RACK-TLP (RFC 8985) and PRR (RFC 6937)
 *  tcp_reass.c    the out-of-order queue
 *  tcp_cc.c, cc/  congestion control behind struct ust_tcp_cc_ops
 *  tcp_isn.c      SipHash-2-4 for initial sequence numbers (RFC 6528),
 *                 timestamps offsets and SYN cookies
 *  tcp_icmp.c     ICMP errors about our segments (RFC 1122 4.2.3.9,
 *                 RFC 1191, RFC 5927); TCP_USER_TIMEOUT and TCP_CORK's
 *                 timers
 *  tcp_info.c     TCP_INFO in Linux's struct tcp_info
 *  tcp_sock.c     the socket calls
 *  tcp_tx.c       TX layouts of data segments (linear, chained, first-linear,
 *                 copy-small)
 *  tcp_zc.c       zero-copy sends, their DMA mapping and completions
 *                 (tcp_zc_private.h)
 */

#ifndef UST_TCP_PRIVATE_H
#define UST_TCP_PRIVATE_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <rte_reciprocal.h>

#include "ip_private.h"
#include "sock_private.h"
#include "timer_private.h"
#include "ust_mem.h"
#include "ust_tcp.h"
#include "ust_tcp_tx.h"
#include "ust_wire.h"

/* "ustack.tcp" (registered in tcp.c; see UST_LOG_TO()) */
extern int ust_tcp_logtype;
#define TCP_LOG(level, fmt, ...) \
	UST_LOG_TO(ust_tcp_logtype, "ustack.tcp", level, fmt, ##__VA_ARGS__)

/* ---- sequence arithmetic (RFC 9293 3.4), modulo 2^32 ---- */
#define SEQ_LT(a, b) ((int32_t)((uint32_t)(a) - (uint32_t)(b)) < 0)
#define SEQ_LEQ(a, b) ((int32_t)((uint32_t)(a) - (uint32_t)(b)) <= 0)
#define SEQ_GT(a, b) ((int32_t)((uint32_t)(a) - (uint32_t)(b)) > 0)
#define SEQ_GEQ(a, b) ((int32_t)((uint32_t)(a) - (uint32_t)(b)) >= 0)
#define SEQ_MAX(a, b) (SEQ_GT(a, b) ? (a) : (b))
#define SEQ_MIN(a, b) (SEQ_LT(a, b) ? (a) : (b))

#define UST_TCP_DEFAULT_MSS 536     /* RFC 9293 3.7.1 without the option */
#define UST_TCP_MIN_MSS 88
#define UST_TCP_MAX_WIN 65535u
#define UST_TCP_SB_MAX 13           /* scoreboard ranges kept (RACK's
				     * records hold what the scoreboard
				     * drops; 13 with the receiver's blocks
				     * make a SACK block of 144 bytes) */
#define UST_TCP_RACK_CAP_MIN 8u     /* RACK's first record array */
#define UST_TCP_RACK_SLABS 4        /* record arrays of 8 to 64 from slabs */
#define UST_TCP_DUPTHRESH 3
#define UST_TCP_COALESCE_MAX 1024  /* payload copied into the tail mbuf */
#define UST_TCP_PAWS_IDLE_MS (24ull * 24 * 3600 * 1000) /* RFC 7323 5.5 */

/* timer kinds on the stack's wheel */
enum ust_tcp_timer_kind {
	UST_TT_RTX = 1,   /* retransmission, persist, keepalive, fin/syn */
	UST_TT_DELACK,
	UST_TT_REQ,       /* SYN-ACK retransmission of a half-open entry */
	UST_TT_TW,        /* end of TIME_WAIT */
	UST_TT_CORK,      /* TCP_CORK's 200 ms ceiling */
};

/* TCP_CORK holds a partial segment at most this long (Linux's ceiling,
 * tcp(7)) */
#define UST_TCP_CORK_MS 200
/* Linux's tcp_min_snd_mss: the send MSS a path MTU can lower to */
#define UST_TCP_MIN_SND_MSS 48
/* RFC 791: every IPv4 link carries 68 bytes */
#define UST_IPV4_MIN_MTU 68

/* what the connection's rtx timer is counting */
enum ust_tcp_rtx_mode {
	UST_RTX_NONE = 0,
	UST_RTX_RTO,        /* data, SYN or FIN unacknowledged */
	UST_RTX_PERSIST,    /* zero window, data waiting */
	UST_RTX_KEEPALIVE,
	UST_RTX_FIN_WAIT2,  /* orphaned FIN_WAIT_2 */
	UST_RTX_TLP,        /* tail loss probe (RFC 8985 7), then RTO */
	UST_RTX_REO,        /* RACK's reordering timer (RFC 8985 6.3) */
};

/* connection flags */
#define TF_ACK_NOW     (1u << 0)  /* send an ACK at the next output */
#define TF_DELACK      (1u << 1)  /* an ACK is owed, the timer runs */
#define TF_NODELAY     (1u << 2)  /* TCP_NODELAY: no Nagle */
#define TF_SACK_OK     (1u << 3)  /* SACK permitted both ways */
#define TF_TS_OK       (1u << 4)  /* timestamps in use */
#define TF_WS_OK       (1u << 5)  /* window scaling in use */
#define TF_FIN_QUEUED  (1u << 6)  /* shutdown(SHUT_WR): FIN after data */
#define TF_FIN_SENT    (1u << 7)
#define TF_FIN_RCVD    (1u << 8)  /* the peer's FIN was accepted */
#define TF_RECOVERY    (1u << 9)  /* fast recovery (RFC 6582 / 6675) */
#define TF_RTT_TIMING  (1u << 10) /* timing rtt_seq (no timestamps) */
#define TF_ORPHAN      (1u << 11) /* closed by the application */
#define TF_KEEPALIVE   (1u << 12) /* SO_KEEPALIVE */
#define TF_QUICKACK    (1u << 13) /* TCP_QUICKACK: never delay ACKs */
#define TF_SHUT_RD     (1u << 14) /* shutdown(SHUT_RD) */
#define TF_OFO_FIN     (1u << 15) /* a FIN waits beyond a hole */
#define TF_LOSS        (1u << 16) /* after an RTO: go-back-N */
#define TF_NEED_OUTPUT (1u << 17) /* staging was full: retry output */
#define TF_PASSIVE     (1u << 18) /* from a listener */
#define TF_WIN_UPDATE  (1u << 19) /* reading opened the window */
#define TF_PORT_REF    (1u << 20) /* holds a port_refs count */
#define TF_WAS_CONN    (1u << 21) /* reached ESTABLISHED once */
#define TF_TLP_SENT    (1u << 22) /* a loss probe is out, unanswered */
#define TF_FIRST_LIN   (1u << 23) /* fl_start..fl_end is first-linear */
#define TF_CWND_LIMITED (1u << 24) /* the current window's flight was
				    * limited by cwnd (Linux's
				    * is_cwnd_limited) */
#define TF_MORE        (1u << 25) /* the send queue's tail came with
				   * MSG_MORE: its end is no PSH mark */
#define TF_MORE_HOLD   (1u << 26) /* this send's push holds a partial
				   * segment (MSG_MORE, Linux's
				   * TCP_NAGLE_CORK for one push) */
#define TF_PROBE_PSH   (1u << 27) /* the held data goes on the probe
				   * timer, with PSH (tcp_write_wakeup) */
#define TF_EOR_USED    (1u << 28) /* MSG_EOR marks may be in the send
				   * queue (ust_tcp_sndq_eor_cut()) */
#define TF_NOSPACE     (1u << 29) /* a send found the send buffer full
				   * (Linux's SOCK_NOSPACE), until room
				   * frees */
#define TF_DSACK       (1u << 30) /* rcv_dsack waits for the next ACK */
#define TF_FPUSH       (1u << 31) /* forced-push marks may be in the
				   * send queue (tcp_sock.c) */

/* A coarse 32-bit clock for the times TCP_INFO reports in milliseconds:
 * the stack's nanoseconds >> 20 (1.05 ms units), taken with a shift on the
 * data path and converted to milliseconds only when asked. */
#define UST_TCP_T(ns) ((uint32_t)((ns) >> 20))
#define UST_TCP_T_MS(t) ((uint32_t)(((uint64_t)(t) << 20) / 1000000u))

struct ust_tcp_cc_ops;
struct ust_tcp_listen;

/* A range of sequence space [start, end). */
struct ust_seq_range {
	uint32_t start;
	uint32_t end;
};

/*
 * The SACK state of a connection, in a block of its own (struct
 * ust_tcp_sock's sack) while it holds something: the sender's scoreboard
 * (n_sb ranges), the blocks the receiver announces (n_rcv_sack) and the
 * D-SACK to report (TF_DSACK). Loss and reordering are what fill it: most
 * connections never have one, and an idle connection gives its block back
 * (ust_tcp_sack_release()), so it costs 8 bytes, not 144.
 */
struct ust_tcp_sack {
	struct ust_seq_range sb[UST_TCP_SB_MAX];          /* SACKed by peer */
	struct ust_seq_range rcv_sack[UST_TCP_MAX_SACK]; /* to announce */
	struct ust_seq_range rcv_dsack; /* a duplicate to report (RFC 2883),
					 * while TF_DSACK */
};

/* A transmission of a segment, for RACK (RFC 8985): the sequence range
 * it sent (a FIN counts one), when, and what became of it. */
struct ust_tcp_txrec {
	uint64_t xmit_ns;       /* Segment.xmit_ts */
	uint32_t seq;
	uint32_t end;           /* Segment.end_seq */
	uint16_t flags;         /* UST_TXR_* */
};

#define UST_TXR_SACKED  (1u << 0) /* SACKed: delivered, not in flight */
#define UST_TXR_LOST    (1u << 1) /* marked lost, not yet sent again */
#define UST_TXR_RETRANS (1u << 2) /* this transmission is a retransmission */
#define UST_TXR_FIN     (1u << 3) /* ends with our FIN */
#define UST_TXR_DEAD    (1u << 4) /* acknowledged or sent again: unused */
#define UST_TXR_PARTIAL (1u << 5) /* acknowledged in part (tcp_rack.c) */
#define UST_TXR_PKT_MORE (1u << 6) /* the packet this went in goes on in
				    * the record that starts at its end
				    * (ust_tcp_rack_join()) */

/* RACK-TLP's state (RFC 8985 5.2, its names) and PRR's (RFC 6937). */
struct ust_tcp_rack {
	/* the transmissions in flight, in no particular order (a small
	 * array compacted and grown as needed; NULL until the first) */
	struct ust_tcp_txrec *recs;
	uint32_t n;
	uint32_t cap;
	uint32_t live;          /* records not DEAD (Linux's packets_out) */
	uint32_t head;          /* records below are DEAD (when sorted) */
	bool sorted : 1;        /* records in sequence order, and sent in
				 * that order: an ACK without SACK blocks
				 * delivers a prefix and can show no loss */
	bool reordering_seen : 1; /* RACK.reordering_seen */
	bool dsack_round_set : 1; /* dsack_round is set */
	bool tlp_is_retrans : 1; /* TLP.is_retrans */
	bool tlp_out : 1;       /* TLP.end_seq is set: an episode's probe
				 * is unresolved (Linux's tlp_high_seq) */
	uint8_t reo_wnd_mult;   /* RACK.reo_wnd_mult */
	uint16_t reordering;    /* the largest reordering seen, segments
				 * (Linux's tp->reordering, from 3: only
				 * reported, TCP_INFO's tcpi_reordering) */
	uint32_t flight;        /* bytes of those neither SACKed nor lost */
	uint32_t flight_segs;   /* and how many (Linux's
				 * tcp_packets_in_flight()) */
	uint32_t end_seq;       /* RACK.end_seq */
	uint64_t xmit_ns;       /* RACK.xmit_ts */
	uint32_t fack;          /* RACK.fack */
	uint32_t dsack_round;   /* RACK.dsack_round, with dsack_round_set */
	int64_t rtt_ns;         /* RACK.rtt, whole us (1 us below 0 when
				 * the clock did not move and a stamp
				 * crossed a us: ust_tcp_rack_ack()) */
	uint64_t min_rtt_ns;    /* RACK.min_RTT, 0: none */
	uint32_t segs_sacked;   /* RACK.segs_sacked */
	uint8_t reo_wnd_persist; /* RACK.reo_wnd_persist */
	uint16_t reord_seen;    /* reorderings seen (TCP_INFO's
				 * tcpi_reord_seen; saturates) */
	/* TLP (RFC 8985 7) */
	uint32_t tlp_end_seq;   /* TLP.end_seq: snd_max after the probe */
	/* PRR (RFC 6937), segments (tcp_rack.c) */
	uint32_t prr_delivered;
	uint32_t prr_out;
	uint32_t recover_fs;    /* RecoverFS: cwnd when recovery began, as
				 * Linux's prior_cwnd */
};

/*
 * The transmission control block. Field names are RFC 9293's (snd_una,
 * snd_nxt, snd_wnd, snd_wl1, snd_wl2, iss, rcv_nxt, rcv_wnd, irs),
 * RFC 6298's (srtt, rttvar, rto), RFC 5681's (cwnd, ssthresh) and RFC
 * 6582's (recover).
 */
struct ust_tcp_sock {
	struct ust_sock base;

	/* state and sequence numbers: read and written per segment */
	uint8_t state;
	uint8_t rtx_mode;
	uint8_t backoff;        /* RTO backoff shift */
	uint8_t probes;         /* keepalive / persist / SYN retries */
	uint32_t tflags;
	uint32_t snd_una;
	uint32_t snd_nxt;
	uint32_t snd_max;       /* highest sequence sent + 1 */
	uint32_t snd_wnd;       /* scaled */
	uint32_t snd_wnd_max;   /* largest window the peer offered */
	uint32_t snd_wl1;
	uint32_t snd_wl2;
	uint32_t iss;
	uint32_t rcv_nxt;
	uint32_t rcv_wnd;       /* advertised, scaled */
	uint32_t rcv_adv;       /* right edge advertised: rcv_nxt + rcv_wnd */
	uint32_t irs;
	uint16_t mss;           /* send MSS, payload bytes */
	uint16_t rcv_mss;       /* the MSS we announced */
	uint8_t snd_wscale;     /* the peer's shift */
	uint8_t rcv_wscale;     /* ours */
	uint8_t dupacks;
	uint8_t quickack;       /* segments still ACKed at once */
	uint32_t unacked_segs;  /* full segments received since our ACK */
	uint32_t chrono_start;  /* when the chronograph running started
				 * (below), UST_TCP_T units */
	/* our last ACK to an invalid segment (out of window, PAWS, challenge:
	 * ust_tcp_oow_rate_limited()): the clock + 1, 0: none yet */
	uint64_t oow_ack_ns;

	/* timestamps (RFC 7323) */
	uint32_t ts_offset;
	uint32_t ts_recent;
	uint64_t ts_recent_ns;
	uint32_t ts_rto;        /* our clock at the last timeout: older
				 * echoes time a go-back-N duplicate */
	uint32_t ts_data_tx;    /* our clock at the last segment with data
				 * (or SYN, FIN): a newer echo is of a pure
				 * ACK, and times the peer's silence */

	/* RTT (RFC 6298), microseconds */
	uint32_t srtt_us;       /* << 3 */
	uint32_t rttvar_us;     /* << 2 */
	uint32_t rto_us;
	uint32_t rtt_seq;       /* Karn: the segment being timed */
	uint32_t rtt_start_us;  /* when it went (stk->now / 1000, mod 2^32) */
	uint32_t pushed_seq;    /* the last PSH mark a write made (Linux's
				 * pushed_seq: forced pushes, tcp_sock.c) */

	/* congestion control */
	uint32_t cwnd;
	uint32_t ssthresh;
	uint32_t recover;       /* RFC 6582 */
	uint32_t bytes_acked;   /* RFC 3465 byte counting in CA */
	uint32_t max_flight;    /* largest flight of the current window,
				 * bytes (Linux's max_packets_out) */
	uint32_t cwnd_usage_seq; /* the current window ends when this is
				  * acknowledged (Linux's cwnd_usage_seq) */
	uint64_t lsnd_ns;       /* last data sent (Linux's lsndtime); its
				 * stamp, which may be a few ns ahead of
				 * stk->now (ust_tcp_send_segment()) */
	const struct ust_tcp_cc_ops *cc;
	uint64_t cc_priv[8];

	/* SACK (RFC 2018 receiver, RFC 6675 sender): the ranges in sack
	 * (NULL while n_rcv_sack and n_sb are 0 and TF_DSACK is off) */
	uint8_t n_rcv_sack;
	uint8_t n_sb;
	uint16_t fp_tail;       /* bytes in Linux's last skb of the write
				 * queue (65535: that or more): the next
				 * write fills it to the size goal first
				 * (forced pushes, tcp_sock.c) */
	uint32_t fp_next;       /* the lowest forced-push mark that new
				 * data has not passed, if beyond snd_max
				 * (TF_FPUSH) */
	struct ust_tcp_sack *sack;
	/* receive-buffer autotuning (Linux's rcvq_space) */
	uint32_t rcvq_space;    /* bytes read in the last RTT measured */
	uint32_t rcvq_seq;      /* what had been read when it started */
	uint32_t rcvq_time;     /* when it started (ns >> 10) */
	uint32_t sacked_bytes;
	uint32_t high_rxt;      /* RFC 6675 HighRxt */
	uint32_t high_sacked;   /* highest SACKed sequence */
	/* a connection over IPv6: its addresses (the stack's a6 slab), for
	 * its lifetime; NULL over IPv4 (mapped addresses too), whose
	 * addresses are base.laddr and base.raddr */
	struct ust_tcp_addr6 *a6;
	struct ust_tcp_rack rack; /* RACK-TLP and PRR (tcp_rack.c) */

	/* the send queue: payload mbufs from snd_buf_seq on */
	struct ust_pktq sndq;
	uint32_t snd_buf_seq;   /* sequence of the first byte in sndq */
	uint32_t snd_buffered;  /* bytes in sndq */
	/* where the last segment's payload was found: the next one is in
	 * the same mbuf or after it, so finding it costs O(1), not a walk
	 * of the queue (NULL: from the head) */
	struct rte_mbuf *snd_cur;
	uint32_t snd_cur_seq;   /* sequence of snd_cur's first byte */
	uint32_t snd_psh;       /* end of the last application write: the
				 * segment holding it carries PSH */
	uint32_t snd_sml;       /* end of the last small segment sent
				 * (Minshall's Nagle, Linux's snd_sml) */
	uint32_t lrcv_t;        /* when data last came in order (and at
				 * establishment), in UST_TCP_T units:
				 * TCP_INFO's last_data_recv */

	/* the receive queues: in order, and out of order (by sequence) */
	struct ust_pktq rcvq;
	uint32_t rcv_buffered;  /* payload bytes in rcvq */
	uint32_t rcv_head_off;  /* bytes already read from rcvq's head */
	struct ust_pktq ofoq;
	uint32_t ofo_segs;
	uint32_t rcv_fin_seq;   /* with TF_OFO_FIN */
	uint32_t rcvbuf;
	uint32_t rmem_alloc;    /* truesize in rcvq and ofoq */
	int32_t fwd_alloc;      /* pages charged to the TCP pool, in bytes */
	uint32_t notsent_lowat;  /* TCP_NOTSENT_LOWAT, bytes: 0, off */

	/* timers */
	struct ust_timer rtx_timer;
	struct ust_timer delack_timer;
	uint64_t last_rcv_ns;   /* keepalive idle clock */
	/* TCP_INFO's chronographs (tcpi_busy_time, tcpi_rwnd_limited,
	 * tcpi_sndbuf_limited; Linux's tcp_chrono_*): time accumulated
	 * busy, rwnd-limited, sndbuf-limited, in UST_TCP_T units; with
	 * chrono_start above and chrono_type below, in holes of the layout */
	uint32_t chrono_stat[3];
	uint32_t keep_idle_ms;
	uint32_t keep_intvl_ms;
	int32_t linger_s;       /* SO_LINGER: -1 off */

	/* listening, and the road from a listener to accept() */
	struct ust_tcp_listen *listen;
	struct ust_tcp_sock *parent;       /* listener, until accepted */
	struct ust_tcp_sock *accept_next;

	/* waiting for TX staging room (TF_NEED_OUTPUT) */
	struct ust_tcp_sock *out_next;
	struct ust_tcp_sock *out_prev;

	/* TX layout (ust_tcp_tx.h): the stack's unless set on the socket;
	 * the first-linear range: the bytes of a write made while the write
	 * queue was empty, and short enough (valid with TF_FIRST_LIN) */
	uint8_t tx_layout;
	uint8_t keep_cnt;       /* TCP_KEEPCNT (1..127) */
	uint16_t copy_small;
	uint32_t fl_start;
	uint32_t fl_end;
	uint32_t user_timeout_ms; /* TCP_USER_TIMEOUT (RFC 5482): 0, off */

	/* per-connection counters, for UST_TCP_INFO */
	uint64_t tx_pkts;
	uint64_t tx_segs;
	uint64_t tx_pages;
	uint64_t tx_copied;
	uint64_t segs_in;
	uint64_t segs_out;
	uint64_t retrans;
	uint64_t bytes_acked_total;
	uint64_t bytes_received;

	/* socket options of issue 12 (tcp_sock.c) and ICMP (tcp_icmp.c) */
	uint8_t pmtudisc;        /* IP_MTU_DISCOVER: IP_PMTUDISC_* */
	uint8_t tos;             /* IP_TOS, without the ECN bits */
	bool corked;             /* TCP_CORK */
	bool inq;                /* TCP_INQ: 0 or 1, as set */
	bool cork_push;          /* pushing a partial segment once: the
				  * cork's ceiling, or uncorking */
	uint8_t chrono_type;     /* enum ust_tcp_chrono running */
	uint16_t pmtu;           /* path MTU (RFC 1191): 0, the netif's */
	int soft_err;            /* RFC 1122 4.2.3.9: a soft ICMP error,
				  * reported if the connection times out */
	uint32_t lsnd_t;         /* when data last went out (and at
				  * establishment), UST_TCP_T units:
				  * TCP_INFO's last_data_sent */
	uint64_t ut_start_ns;    /* since when the head has gone unacked,
				  * as the RTO timer saw it (0: not timing) */
	struct ust_timer cork_timer;
};

/* A listener's queues. */
struct ust_tcp_listen {
	uint32_t backlog;
	uint32_t synq_len;                 /* half-open entries */
	struct ust_tcp_req *synq;          /* their list */
	struct ust_tcp_sock *acceptq_head;
	struct ust_tcp_sock *acceptq_tail;
	uint32_t acceptq_len;
};

/* A half-open connection (SYN-RECEIVED on a listener): a mini socket, as
 * Linux's request socks, until the handshake's last ACK. */
struct ust_tcp_req {
	struct ust_timer timer;
	struct ust_tcp_sock *listener;
	struct ust_tcp_req *next;
	struct ust_tcp_req *prev;
	rte_be32_t laddr;
	rte_be32_t raddr;
	rte_be16_t lport;
	rte_be16_t rport;
	struct ust_tcp_addr6 *a6; /* over IPv6 (laddr, raddr: folds) */
	uint32_t iss;
	uint32_t irs;
	uint32_t ts_offset;
	uint32_t ts_recent;
	uint16_t peer_mss;
	uint16_t peer_window;
	uint8_t snd_wscale;
	uint8_t rcv_wscale;
	uint8_t opts;           /* UST_TCPOPT_* agreed */
	uint8_t retries;
	uint64_t sent_ns;       /* first SYN-ACK, for an RTT sample */
	uint64_t oow_ack_ns;    /* last SYN-ACK for a duplicate SYN, or ACK
				 * for a segment out of the window */
};

/* TIME_WAIT, compact: what is needed to answer the peer and to refuse or
 * allow reuse (RFC 9293 3.10.7.4, RFC 6191). */
struct ust_tcp_tw {
	struct ust_timer timer;
	rte_be32_t laddr;
	rte_be32_t raddr;
	rte_be16_t lport;
	rte_be16_t rport;
	struct ust_tcp_addr6 *a6; /* over IPv6 (laddr, raddr: folds) */
	uint32_t snd_nxt;
	uint32_t rcv_nxt;
	uint32_t ts_offset;
	uint32_t ts_recent;
	uint64_t ts_recent_ns;
	uint16_t rcv_wnd;       /* unscaled, as last announced */
	bool ts_ok;
	uint64_t oow_ack_ns;    /* last ACK to an old duplicate or data */
};

/* A connection's IPv6 addresses: its own (local) and its peer's. */
struct ust_tcp_addr6 {
	uint8_t local[16];
	uint8_t remote[16];
};

/*
 * The 4-tuple key of a connection (network order). Over IPv4 its first
 * UST_TCP_KEY4_LEN bytes are the key of the connection hash (conns). Over
 * IPv6, a6 points to the addresses (a segment's, a control block's, a
 * half-open or TIME_WAIT entry's: valid while they are) and the key of
 * conns6 is made from them and the ports (tcp.c); laddr and raddr then
 * hold folds of the addresses (ust_tcp_fold6()), which the burst's
 * grouping and the port selection's hash read as they read IPv4's.
 */
struct ust_tcp_key {
	rte_be32_t laddr;
	rte_be32_t raddr;
	rte_be16_t lport;
	rte_be16_t rport;
	const struct ust_tcp_addr6 *a6; /* NULL: IPv4 */
};

#define UST_TCP_KEY4_LEN 12

/* The bytes of IP header before a connection's TCP header. */
static inline uint32_t
tcp_l3_hdr_len(const struct ust_tcp_sock *tp)
{
	return tp->a6 != NULL ? (uint32_t)UST_IPV6_HDR_LEN :
		(uint32_t)UST_IPV4_HDR_LEN;
}

/* The 32 bits an IPv6 address contributes to laddr or raddr of a key. */
static inline rte_be32_t
ust_tcp_fold6(const uint8_t *a)
{
	uint32_t w[4];

	memcpy(w, a, sizeof(w));
	return w[0] ^ w[1] ^ w[2] ^ w[3];
}

/* @k over IPv6 from @a6 and the ports (network order). */
static inline void
ust_tcp_key6(struct ust_tcp_key *k, const struct ust_tcp_addr6 *a6,
	     rte_be16_t lport, rte_be16_t rport)
{
	k->laddr = ust_tcp_fold6(a6->local);
	k->raddr = ust_tcp_fold6(a6->remote);
	k->lport = lport;
	k->rport = rport;
	k->a6 = a6;
}

/* What the connection hash holds: a tagged pointer. */
enum ust_tcp_obj {
	UST_TCP_OBJ_SOCK = 0,
	UST_TCP_OBJ_REQ = 1,
	UST_TCP_OBJ_TW = 2,
};

static inline void *
tcp_obj_tag(void *p, enum ust_tcp_obj kind)
{
	return (void *)((uintptr_t)p | (uintptr_t)kind);
}

static inline enum ust_tcp_obj
tcp_obj_kind(void *data)
{
	return (enum ust_tcp_obj)((uintptr_t)data & 3);
}

static inline void *
tcp_obj_ptr(void *data)
{
	return (void *)((uintptr_t)data & ~(uintptr_t)3);
}

/*
 * A slab of fixed-size objects, per stack (tcp.c): chunks of the stack's
 * own taken from the DPDK heap as objects are needed, and kept until the
 * stack is destroyed; the free objects are a list through their first
 * word, so getting and putting one is a pointer move, with no lock and no
 * atomic. Control blocks, TIME_WAIT entries, SACK blocks and RACK's
 * records come from slabs: only what connections use is allocated (a
 * table of TIME_WAIT entries for every connection slot, made at creation,
 * was 112 bytes a slot), and no connection takes the heap's lock, which
 * every lcore shares.
 */
struct ust_tcp_chunk;

struct ust_tcp_slab {
	void *free;                   /* free objects */
	struct ust_tcp_chunk *chunks; /* every chunk, for the end */
	uint32_t size;                /* object bytes (8-byte multiple) */
	uint32_t per_chunk;           /* objects a chunk */
	uint64_t in_use;              /* objects taken */
	uint64_t total;               /* objects made */
	const char *name;
	int socket_id;
};

int ust_tcp_slab_grow(struct ust_tcp_slab *s);

/* an object, or NULL when the heap has no room for another chunk */
static inline void *
ust_tcp_slab_get(struct ust_tcp_slab *s)
{
	void *o;

	if (unlikely(s->free == NULL) && ust_tcp_slab_grow(s) != 0)
		return NULL;
	o = s->free;
	s->free = *(void **)o;
	s->in_use++;
	return o;
}

static inline void
ust_tcp_slab_put(struct ust_tcp_slab *s, void *o)
{
	*(void **)o = s->free;
	s->free = o;
	s->in_use--;
}

/* Per-stack TCP state. */
/* entries of ust_tcp_stack.port_perturb: as Linux's since 5.19 (2^16; with
 * 2^8 destinations shared counters, which let an observer of one of them
 * count the connections to the others: Klein and Pinkas, "Device
 * tracking via Linux's new TCP source port selection algorithm") */
#define UST_TCP_PERTURB_SIZE (1u << 16)

struct ust_tcp_stack {
	struct rte_hash *conns;       /* 4-tuple -> tagged object */
	/* the last 4-tuple found in conns and what it held: a stream's
	 * segments one after another cost one hash lookup; kept true by
	 * ust_tcp_hash_add() and _del(), the only writers of conns */
	struct ust_tcp_key hit_key;
	void *hit_data;               /* NULL: nothing cached */
	/* ... and the last one found in conns6 (its addresses copied) */
	struct ust_tcp_addr6 hit6_a6;
	rte_be16_t hit6_lport;
	rte_be16_t hit6_rport;
	void *hit6_data;              /* NULL: nothing cached */
	uint32_t conns_gen;           /* bumped by every add and delete:
				       * what a burst looked up is still
				       * true while it stays */
	/* TCP input of a burst (ust_tcp_input_burst()): while burst_more,
	 * more segments of the connection at hand follow in this burst, and
	 * ust_tcp_rcv_established() may leave its output for the last of
	 * them, in burst_tp (one ACK per connection per burst) */
	bool burst_more;
	struct ust_tcp_sock *burst_tp;
	struct rte_hash *listeners;   /* local port -> listener */
	uint32_t tw_isn;              /* while a SYN that reused a TIME_WAIT
				       * entry goes to its listener: the ISN
				       * to give it (0: none; Linux's
				       * tcp_tw_isn) */
	struct ust_wheel wheel;
	/* a whole receive mbuf's truesize (struct, private area, data room:
	 * ust_tcp_rcv_window()) and its reciprocal, so that the window of
	 * every segment sent takes no division */
	uint32_t rx_mbuf_size;
	struct rte_reciprocal rx_mbuf_size_r;
	struct rte_mempool *req_pool;
	struct ust_tcp_slab tp_slab;  /* control blocks */
	struct ust_tcp_slab tw_slab;  /* TIME_WAIT entries */
	struct ust_tcp_slab sack_slab; /* SACK blocks (struct ust_tcp_sack) */
	struct ust_tcp_slab a6_slab;  /* IPv6 connections' addresses */
	struct rte_hash *conns6;      /* IPv6 4-tuple -> tagged object (NULL:
				       * IPv6 is off) */
	/* RACK's record arrays of 8, 16, 32 and 64 records (tcp_rack.c) */
	struct ust_tcp_slab rack_slab[UST_TCP_RACK_SLABS];
	struct ust_mem_pool *mem;
	const struct ust_tcp_cc_ops *cc_default;
	uint64_t secret[2];           /* SipHash key (per boot) */
	uint32_t n_conns;             /* sockets in the hash */
	uint32_t n_req;
	uint32_t n_req_stale;         /* half-open entries whose SYN-ACK was
				       * sent again (no ACK within the
				       * initial RTO): a SYN flood's mark */
	uint32_t n_tw;
	uint32_t n_acceptq;           /* connections in accept queues: each
				       * will take a descriptor */
	/* the stack-wide challenge ACK budget (RFC 5961 7): what is left of
	 * this second's, randomised each second; chack_sec is the second + 1 */
	uint64_t chack_sec;
	uint32_t chack_count;
	uint32_t synack_budget;       /* SYN-ACK retransmissions left in this
				       * poll (synack_rtx_burst) */
	uint64_t rand_ctr;            /* ust_tcp_rand() */
	/* connections whose output waits for TX staging room, run again by
	 * ust_tcp_poll() (never from inside a flush: no re-entry) */
	struct ust_tcp_sock *out_head;
	/* local ports held by bind(), listen() and accepted connections
	 * (ephemeral ports of connect() are not held: the 4-tuple in the
	 * connection hash is what must be unique); an array, not a hash:
	 * 128 KiB for O(1) with no collisions */
	uint16_t *port_refs;
	/* connect()'s ephemeral port selection, RFC 6056 algorithm 4
	 * (double hash, as Linux's __inet_hash_connect()): the counter of
	 * each destination's class, indexed by a keyed hash of it */
	uint32_t *port_perturb;
	/* TX layouts and zero copy (tcp_tx.c) */
	struct ust_tcp_tx_stats tx;
	struct rte_mempool *small_pool; /* copy-small buffers, or NULL */
	struct tcp_zc *zc;              /* zero-copy state, or NULL */
	struct ust_dma_mapper mapper;
	bool mapper_set;                /* installed: else zero copy refused */
};

static inline struct ust_tcp_sock *
tcp_sk(struct ust_sock *s)
{
	return (struct ust_tcp_sock *)s;
}

/* milliseconds and the timestamp clock of a connection */
static inline uint32_t
tcp_now_ms(const struct ust_stack *stk)
{
	return (uint32_t)(stk->now / 1000000u);
}

static inline uint32_t
tcp_ts_now(const struct ust_stack *stk, uint32_t offset)
{
	return tcp_now_ms(stk) + offset;
}

/* first sequence number after the data queued to send */
static inline uint32_t
tcp_snd_data_end(const struct ust_tcp_sock *tp)
{
	return tp->snd_buf_seq + tp->snd_buffered;
}

/* bytes queued and never sent (TCP_NOTSENT_LOWAT, tcpi_notsent_bytes) */
static inline uint32_t
tcp_notsent_bytes(const struct ust_tcp_sock *tp)
{
	uint32_t end = tcp_snd_data_end(tp);

	return SEQ_GT(end, tp->snd_max) ? end - tp->snd_max : 0;
}

/*
 * TCP_INFO's chronographs, as Linux's tcp_chrono_start()/_stop(): the time
 * with data to send (busy), and the parts of it the peer's window
 * (rwnd-limited) or the application's send buffer (sndbuf-limited)
 * limited. One runs at a time, the higher of the conditions that hold.
 */
enum ust_tcp_chrono {
	UST_CHRONO_NONE,
	UST_CHRONO_BUSY,     /* data queued or in flight */
	UST_CHRONO_RWND,     /* the next segment does not fit the window */
	UST_CHRONO_SNDBUF,   /* all sent, not cwnd-limited, and the
			      * application found the buffer full */
};

static inline void
tcp_chrono_set(const struct ust_stack *stk, struct ust_tcp_sock *tp,
	       enum ust_tcp_chrono type)
{
	uint32_t now = UST_TCP_T(stk->now);

	if (tp->chrono_type != UST_CHRONO_NONE)
		tp->chrono_stat[tp->chrono_type - 1] += now - tp->chrono_start;
	tp->chrono_start = now;
	tp->chrono_type = (uint8_t)type;
}

/* @type starts: it runs when it is more interesting than the one running */
static inline void
tcp_chrono_start(const struct ust_stack *stk, struct ust_tcp_sock *tp,
		 enum ust_tcp_chrono type)
{
	if (type > tp->chrono_type)
		tcp_chrono_set(stk, tp, type);
}

/* @type ends: with nothing left to send or acknowledge, no chronograph
 * runs; else busy takes over from @type if @type was running */
static inline void
tcp_chrono_stop(const struct ust_stack *stk, struct ust_tcp_sock *tp,
		enum ust_tcp_chrono type)
{
	if (tp->snd_una == tp->snd_max &&
	    SEQ_GEQ(tp->snd_max, tcp_snd_data_end(tp))) {
		if (tp->chrono_type != UST_CHRONO_NONE)
			tcp_chrono_set(stk, tp, UST_CHRONO_NONE);
	} else if (type == tp->chrono_type) {
		tcp_chrono_set(stk, tp, UST_CHRONO_BUSY);
	}
}

/* bytes in flight (RFC 6675's pipe without the SACK refinements) */
static inline uint32_t
tcp_flight(const struct ust_tcp_sock *tp)
{
	return tp->snd_max - tp->snd_una;
}

/* ---- tcp.c (glue: init, hash, memory; ust_tcp_init(), ust_tcp_fini(),
 * ust_tcp_poll() are declared in stack_private.h) ---- */
int ust_tcp_hash_add(struct ust_stack *stk, const struct ust_tcp_key *k,
		 void *obj, enum ust_tcp_obj kind);
void ust_tcp_hash_del(struct ust_stack *stk, const struct ust_tcp_key *k);
void *ust_tcp_hash_lookup(struct ust_stack *stk, const struct ust_tcp_key *k);
void ust_tcp_key_of(const struct ust_tcp_sock *tp, struct ust_tcp_key *k);
void ust_tcp_set_state(struct ust_stack *stk, struct ust_tcp_sock *tp,
		   uint8_t state);
/* the connection is over: unhash, cancel timers, free queues; frees the
 * control block too when the application has closed it */
void ust_tcp_done(struct ust_stack *stk, struct ust_tcp_sock *tp);
void ust_tcp_purge_queues(struct ust_stack *stk, struct ust_tcp_sock *tp,
		      bool rcv);
/* abort with an error for the application (ECONNRESET, ETIMEDOUT...) */
void ust_tcp_abort(struct ust_stack *stk, struct ust_tcp_sock *tp, int err,
	       bool send_rst);
/* receive memory, in the socket-memory model */
bool ust_tcp_rmem_charge(struct ust_stack *stk, struct ust_tcp_sock *tp,
		     uint32_t truesize);
void ust_tcp_rmem_uncharge(struct ust_stack *stk, struct ust_tcp_sock *tp,
		       uint32_t truesize, uint32_t partial);
void ust_tcp_wakeup(struct ust_tcp_sock *tp);
struct ust_tcp_sock *ust_tcp_sock_alloc(struct ust_stack *stk);
void ust_tcp_sock_free(struct ust_stack *stk, struct ust_tcp_sock *tp);
/* A received segment's payload mbuf keeps its sequence number in the
 * metadata's address field (the 4-tuple is the connection's) and its
 * truesize in truesize. */
static inline uint32_t
tcp_mseq(int off, struct rte_mbuf *m)
{
	return ust_meta(off, m)->addr;
}

static inline void
tcp_mseq_set(int off, struct rte_mbuf *m, uint32_t seq)
{
	ust_meta(off, m)->addr = seq;
}

/* ---- tcp_isn.c ---- */
uint64_t ust_siphash24(const uint64_t key[2], const void *data, size_t len);
uint32_t ust_tcp_isn(struct ust_stack *stk, const struct ust_tcp_key *k);
uint32_t ust_tcp_ts_offset(struct ust_stack *stk, const struct ust_tcp_key *k);
uint32_t ust_tcp_cookie_make(struct ust_stack *stk, const struct ust_tcp_key *k,
			 uint32_t irs, uint8_t mss_idx);
/* the MSS index a valid cookie carries, or -1 */
int ust_tcp_cookie_check(struct ust_stack *stk, const struct ust_tcp_key *k,
		     uint32_t irs, uint32_t cookie);
/* the MSS values a cookie of @k's family can carry, by index (8) */
const uint16_t *ust_tcp_cookie_mss(const struct ust_tcp_key *k);
/* 64 unpredictable bits from the stack's secret and a counter */
uint64_t ust_tcp_rand(struct ust_stack *stk);

/* ---- tcp_input.c ---- */
/* a segment for a synchronized connection (RFC 9293 3.10.7.4); the mbuf
 * holds the payload */
void ust_tcp_rcv_established(struct ust_stack *stk, struct ust_tcp_sock *tp,
			 struct rte_mbuf *m, const struct ust_tcp_repr *th,
			 uint32_t seg_len);
/* the MSS we announce: what one mbuf and the MTU carry (over IPv6, 20
 * bytes less of the MTU) */
uint16_t ust_tcp_local_mss(const struct ust_stack *stk);
uint16_t ust_tcp_local_mss6(const struct ust_stack *stk);
/* our window scale for a receive buffer of up to rmem_max */
uint8_t ust_tcp_choose_wscale(const struct ust_stack *stk);
/* the receive window a SYN or SYN-ACK announced becomes the one to check
 * segments against */
void ust_tcp_rcv_init(struct ust_tcp_sock *tp, uint32_t wnd);
void ust_tcp_options_from_peer(struct ust_stack *stk, struct ust_tcp_sock *tp,
			   const struct ust_tcp_opts *o, bool syn);
void ust_tcp_established(struct ust_stack *stk, struct ust_tcp_sock *tp);
/* fast recovery begins (RFC 6582 3.2, RFC 8985 with PRR) */
void ust_tcp_enter_recovery(struct ust_stack *stk, struct ust_tcp_sock *tp);

/* ---- tcp_output.c ---- */
void ust_tcp_output(struct ust_stack *stk, struct ust_tcp_sock *tp);
/* (re)send [seq, seq + len) of the send queue, with @flags */
int ust_tcp_send_segment(struct ust_stack *stk, struct ust_tcp_sock *tp,
		     uint32_t seq, uint32_t len, uint8_t flags, bool rtx);
void ust_tcp_send_ack(struct ust_stack *stk, struct ust_tcp_sock *tp);
void ust_tcp_send_syn(struct ust_stack *stk, struct ust_tcp_sock *tp);
void ust_tcp_send_rst(struct ust_stack *stk, struct ust_tcp_sock *tp);
/* a reply without a control block: RST or ACK (TIME_WAIT, no socket) */
void ust_tcp_send_reply(struct ust_stack *stk, const struct ust_tcp_key *k,
		    uint32_t seq, uint32_t ack, uint8_t flags, uint16_t win,
		    const struct ust_tcp_opts *opts);
/* the same, DF as @df says (a listener's IP_MTU_DISCOVER, for its
 * SYN-ACKs) */
void ust_tcp_send_reply_df(struct ust_stack *stk, const struct ust_tcp_key *k,
			   uint32_t seq, uint32_t ack, uint8_t flags,
			   uint16_t win, const struct ust_tcp_opts *opts,
			   bool df);
/* the RST RFC 9293 3.10.7.1 prescribes for a segment with no connection */
void ust_tcp_reset_reply(struct ust_stack *stk, const struct ust_tcp_key *k,
		     const struct ust_tcp_repr *th, uint32_t seg_len);
/* Linux's ust_tcp_oow_rate_limited(): true (and @mib counted) when an ACK to
 * an invalid segment must be skipped, at most one per invalid_ratelimit_ms
 * per @last_ns (a connection, a half-open or TIME_WAIT entry) */
bool ust_tcp_oow_rate_limited(struct ust_stack *stk, uint64_t *last_ns,
			  enum ust_mib mib);
/* an RFC 5961 challenge ACK, within the connection's and the stack's
 * limits */
void ust_tcp_challenge_ack(struct ust_stack *stk, struct ust_tcp_sock *tp);
/* output waits for staging room; ust_tcp_poll() runs it again */
void ust_tcp_output_defer(struct ust_stack *stk, struct ust_tcp_sock *tp);
void ust_tcp_output_undefer(struct ust_stack *stk, struct ust_tcp_sock *tp);
uint32_t ust_tcp_rcv_window(const struct ust_tcp_sock *tp);
uint16_t ust_tcp_window_field(struct ust_tcp_sock *tp);
/* the one place a segment's mbuf layout is decided */
int ust_tcp_send_state_error(struct ust_tcp_sock *tp);
/* how many full segments Linux's pacing puts in one TSO packet now (its
 * tcp_tso_autosize(), tcp_output.c) */
unsigned int ust_tcp_tso_autosize(const struct ust_tcp_sock *tp,
				  uint32_t mss_now);
/* the same, at most half of cwnd (a TSO packet of a burst) */
unsigned int ust_tcp_tso_segs(const struct ust_tcp_sock *tp,
			      uint32_t mss_now);
/* tcp_tx.c */
int ust_tcp_tx_init(struct ust_stack *stk);
void ust_tcp_tx_fini(struct ust_stack *stk);
int ust_tcp_tx_small_pool(struct ust_stack *stk);
int ust_tcp_tx_layout_check(struct ust_stack *stk, unsigned int layout);
void ust_tcp_tx_note_write(struct ust_tcp_sock *tp, uint32_t seq, uint32_t len,
		       bool queue_was_empty);
/* forced-push marks in buffers queued whole after @prev from @seq
 * (tcp_sock.c) */
void ust_tcp_fpush_burst(struct ust_stack *stk, struct ust_tcp_sock *tp,
			 struct rte_mbuf *prev, uint32_t seq);

/* The send queue's buffers: one whose last byte ends a MSG_EOR write, or
 * is a forced-push mark (tcp_sock.c), is marked in its metadata's port
 * field (RX-only otherwise), and no later write is appended to it; every
 * buffer enters the queue through ust_tcp_sndq_push(), which clears the
 * marks. */
#define UST_SNDQ_EOR    1u
#define UST_SNDQ_FPUSH  2u

static inline void
ust_tcp_sndq_push(struct ust_stack *stk, struct ust_tcp_sock *tp,
		  struct rte_mbuf *m)
{
	ust_meta(stk->meta_off, m)->port = 0;
	ust_pktq_push(stk->meta_off, &tp->sndq, m);
}

static inline bool
ust_tcp_sndq_is_eor(const struct ust_stack *stk, struct rte_mbuf *m)
{
	return (ust_meta(stk->meta_off, m)->port & UST_SNDQ_EOR) != 0;
}

static inline void
ust_tcp_sndq_mark_eor(const struct ust_stack *stk, struct rte_mbuf *m)
{
	ust_meta(stk->meta_off, m)->port |= UST_SNDQ_EOR;
}

static inline bool
ust_tcp_sndq_is_fpush(const struct ust_stack *stk, struct rte_mbuf *m)
{
	return (ust_meta(stk->meta_off, m)->port & UST_SNDQ_FPUSH) != 0;
}

static inline void
ust_tcp_sndq_mark_fpush(const struct ust_stack *stk, struct rte_mbuf *m)
{
	ust_meta(stk->meta_off, m)->port |= UST_SNDQ_FPUSH;
}

/* no later write joins this buffer */
static inline bool
ust_tcp_sndq_closed(const struct ust_stack *stk, struct rte_mbuf *m)
{
	return ust_meta(stk->meta_off, m)->port != 0;
}

/* Is a forced-push mark in (@seq, @seq + @len]? Moves the send queue's
 * cursor to @seq, as building the segment does. */
bool ust_tcp_sndq_fpush_in(struct ust_stack *stk, struct ust_tcp_sock *tp,
			   uint32_t seq, uint32_t len);
/* the lowest forced-push mark above @seq; @seq when there is none (the
 * cursor stays) */
uint32_t ust_tcp_sndq_fpush_after(struct ust_stack *stk,
				  const struct ust_tcp_sock *tp, uint32_t seq);

/* @len, or less so that the segment [@seq, @seq + @len) does not cross
 * the end of a MSG_EOR write (Linux's tcp_skb_can_collapse_to(): a record
 * never shares a segment with what follows it); *@at_eor: the segment
 * ends one. Only called when TF_EOR_USED. */
uint32_t ust_tcp_sndq_eor_cut(struct ust_stack *stk, struct ust_tcp_sock *tp,
			      uint32_t seq, uint32_t len, bool *at_eor);
/* tcp_zc.c (the rest in tcp_zc_private.h) */
ssize_t ust_tcp_send_zc(struct ust_stack *stk, struct ust_sock *s,
			const void *buf, size_t len, uint64_t cookie);
struct rte_mbuf *ust_tcp_seg_build(struct ust_stack *stk, struct ust_tcp_sock *tp,
			       struct ust_tcp_repr *th, uint32_t payload_off,
			       uint32_t len, uint64_t *ol_flags);

/* ---- tcp_timer.c ---- */
void ust_tcp_timer_fire(struct ust_timer *t, void *ctx);
void ust_tcp_rtx_arm(struct ust_stack *stk, struct ust_tcp_sock *tp,
		 enum ust_tcp_rtx_mode mode, uint64_t delay_ns);
void ust_tcp_rtx_stop(struct ust_stack *stk, struct ust_tcp_sock *tp);
/* data is outstanding: (re)arm the tail loss probe when it may be used
 * (RFC 8985 7.2), else the RTO if it is not running; @restart restarts a
 * running RTO (an ACK of new data, RFC 6298 5.3) */
void ust_tcp_rtx_rearm(struct ust_stack *stk, struct ust_tcp_sock *tp,
		   bool restart);
void ust_tcp_rtt_sample(struct ust_tcp_sock *tp, uint32_t rtt_us,
		    const struct ust_tcp_conf *c);
/*
 * A connection as telemetry shows it (/ustack/tcp_conns, lib/tcp/
 * tcp_info.c), read from the telemetry thread while the stack's lcore
 * runs: scalar fields only, no queue or record array walked, so that
 * nothing the reader touches can be freed under it (the socket itself is
 * held by its descriptor, under the stack's ctl_lock); a value may be
 * mid-update, as /proc's are.
 */
struct ust_tcp_view {
	rte_be32_t laddr;       /* IPv4 (v6 false) */
	rte_be32_t raddr;
	bool v6;                /* over IPv6: the addresses below */
	uint8_t laddr6[16];
	uint8_t raddr6[16];
	rte_be16_t lport;
	rte_be16_t rport;
	uint8_t state;
	uint8_t backoff;
	uint32_t snd_una;
	uint32_t snd_nxt;
	uint32_t snd_max;
	uint32_t snd_wnd;
	uint32_t rcv_nxt;
	uint32_t rcv_wnd;
	uint32_t mss;
	uint32_t cwnd;          /* bytes */
	uint32_t ssthresh;      /* bytes */
	uint32_t srtt_us;
	uint32_t rttvar_us;
	uint32_t rto_us;
	uint64_t retrans;       /* segments retransmitted */
	uint32_t snd_queued;    /* bytes written, not yet acknowledged */
	uint32_t rcv_queued;    /* bytes received, not yet read */
	uint32_t rcvbuf;
	uint32_t rmem_alloc;
	int32_t fwd_alloc;      /* bytes charged to the TCP pool, unused */
	uint32_t sndbuf;
	uint32_t acceptq;       /* a listener: established, not accepted */
	uint32_t synq;          /* ... and half-open */
	uint32_t backlog;
	uint32_t timer_ms;      /* until the connection's timer (RTO, probe,
				 * FIN_WAIT_2, SYN-ACK, 2 MSL) fires; 0: none */
	bool accept_wait;       /* established, in a listener's accept
				 * queue */
};

void ust_tcp_view_get(const struct ust_sock *s, struct ust_tcp_view *v);
/*
 * The connections no descriptor holds, as ss lists them beside the rest:
 * those closed by the application and still finishing (orphans), those
 * waiting in a listener's accept queue, half-open ones (SYN_RECEIVED)
 * and TIME_WAIT entries. Walks the connection hashes (IPv4's, then from
 * 2^30 on IPv6's) from *@pos (0 at the start; advanced past the entry
 * returned) and fills @v with the next
 * such entry: 0, or -ENOENT at the end. Read from the telemetry thread
 * while the lcore runs, without a lock: the hash never moves and the
 * objects it points to stay mapped until the stack is destroyed (slabs
 * and a mempool), so a racing read yields a stale or mixed entry at worst
 * (a sample, as /proc's), never a fault; nothing is followed beyond the
 * object itself.
 */
int ust_tcp_view_next(const struct ust_stack *stk, uint32_t *pos,
		      struct ust_tcp_view *v);

uint64_t ust_tcp_rto_ns(const struct ust_tcp_sock *tp);
void ust_tcp_delack_arm(struct ust_stack *stk, struct ust_tcp_sock *tp);
void ust_tcp_keepalive_arm(struct ust_stack *stk, struct ust_tcp_sock *tp);

/* After activity: keepalive's idle clock restarts. Called for every
 * segment and every emptied flight, so the test of a flag that is mostly
 * off is inline (a call per segment was 2 % of a 200-connection RR). */
static inline void
ust_tcp_keepalive_reset(struct ust_stack *stk, struct ust_tcp_sock *tp)
{
	if (unlikely(tp->tflags & TF_KEEPALIVE))
		ust_tcp_keepalive_arm(stk, tp);
}
void ust_tcp_enter_time_wait(struct ust_stack *stk, struct ust_tcp_sock *tp);
void ust_tcp_tw_input(struct ust_stack *stk, struct ust_tcp_tw *tw,
		  struct rte_mbuf *m, const struct ust_tcp_repr *th,
		  uint32_t seg_len);
void ust_tcp_tw_free(struct ust_stack *stk, struct ust_tcp_tw *tw);

/* ---- tcp_listen.c ---- */
/* a segment for listener @lp, of the 4-tuple @k (the segment's) */
void ust_tcp_listen_input(struct ust_stack *stk, struct ust_tcp_sock *lp,
		      struct rte_mbuf *m, const struct ust_tcp_key *k,
		      const struct ust_tcp_repr *th, uint32_t seg_len);
/* whether listener @lp takes a connection of @k's family and address
 * (IPV6_V6ONLY, an AF_INET socket, a bound IPv6 address) */
bool ust_tcp_listen_takes(const struct ust_tcp_sock *lp,
			  const struct ust_tcp_key *k);
void ust_tcp_req_input(struct ust_stack *stk, struct ust_tcp_req *rq,
		   struct rte_mbuf *m, const struct ust_tcp_repr *th,
		   uint32_t seg_len);
void ust_tcp_req_timeout(struct ust_stack *stk, struct ust_tcp_req *rq);
void ust_tcp_req_free(struct ust_stack *stk, struct ust_tcp_req *rq,
		  bool unhash);
void ust_tcp_listen_close(struct ust_stack *stk, struct ust_tcp_sock *lp);
void ust_tcp_acceptq_add(struct ust_stack *stk, struct ust_tcp_sock *tp);

/* ---- tcp_sack.c ---- */
void ust_tcp_sack_rcv_update(struct ust_tcp_sock *tp, uint32_t seq,
			 uint32_t end);
void ust_tcp_sack_rcv_trim(struct ust_tcp_sock *tp);
void ust_tcp_dsack_set(struct ust_stack *stk, struct ust_tcp_sock *tp,
		       uint32_t seq, uint32_t end);
/* the connection's SACK block, taken from the stack's slab if it has none
 * (NULL: no memory; the caller then records nothing) */
struct ust_tcp_sack *ust_tcp_sack_get(struct ust_tcp_sock *tp);
void ust_tcp_sack_put(struct ust_tcp_sock *tp);

/* The SACK block goes back to the slab once it holds nothing: no
 * scoreboard range, no block to announce, no D-SACK to report. Called
 * wherever one of those three becomes empty. */
static inline void
ust_tcp_sack_release(struct ust_tcp_sock *tp)
{
	if (tp->sack != NULL && tp->n_sb == 0 && tp->n_rcv_sack == 0 &&
	    !(tp->tflags & TF_DSACK))
		ust_tcp_sack_put(tp);
}
void ust_tcp_rcv_space_init(struct ust_stack *stk, struct ust_tcp_sock *tp);

/* Bytes of the SACK option the next segment carries (0: none): the D-SACK
 * block and the blocks to announce, as many as fit beside the timestamps
 * (3 of them, or 4 without). */
static inline unsigned int
ust_tcp_sack_opt_len(const struct ust_tcp_sock *tp)
{
	unsigned int n, max = (tp->tflags & TF_TS_OK) ? 3 : 4;

	if (likely(tp->n_rcv_sack == 0 && !(tp->tflags & TF_DSACK)) ||
	    !(tp->tflags & TF_SACK_OK))
		return 0;
	n = tp->n_rcv_sack + ((tp->tflags & TF_DSACK) ? 1 : 0);
	return 4 + 8 * RTE_MIN(n, max);
}

/* The payload of a full segment now (Linux's tcp_current_mss()): tp->mss
 * (room left for timestamps) less the SACK option, so that data segments
 * carry the blocks as pure ACKs do. RFC 2018 4 asks for them on every ACK
 * while data waits beyond a hole, and in a two-way transfer most ACKs are
 * data segments: a sender that learns of its losses only from the pure
 * ACKs learns late, or (when one is lost) at its RTO. */
static inline uint32_t
ust_tcp_mss_now(const struct ust_tcp_sock *tp)
{
	unsigned int opt = ust_tcp_sack_opt_len(tp);

	return tp->mss > opt + 64u ? tp->mss - opt : tp->mss;
}
void ust_tcp_sack_sender_update(struct ust_tcp_sock *tp,
			    const struct ust_tcp_opts *o);
void ust_tcp_sack_sender_clean(struct ust_tcp_sock *tp);
bool ust_tcp_sack_is_sacked(const struct ust_tcp_sock *tp, uint32_t seq);
/* RFC 6675 NextSeg(): the start of the next range to retransmit in
 * recovery, its length in *len; false when there is none */
bool ust_tcp_sack_next_seg(const struct ust_tcp_sock *tp, uint32_t *seq,
		       uint32_t *len);
uint32_t ust_tcp_sack_pipe(const struct ust_tcp_sock *tp);
/* the end of the SACKed range holding @seq, or @seq when none does */
uint32_t ust_tcp_sack_skip(const struct ust_tcp_sock *tp, uint32_t seq);
/* the start of the first SACKed range above @seq, or snd_max */
uint32_t ust_tcp_sack_next_start(const struct ust_tcp_sock *tp, uint32_t seq);
/* bytes SACKed below @seq */
uint32_t ust_tcp_sack_below(const struct ust_tcp_sock *tp, uint32_t seq);

/* ---- tcp_rack.c: RACK-TLP loss detection (RFC 8985), PRR (RFC 6937) ----
 * (for connections with SACK; NewReno's stay with duplicate ACKs) */
/* a segment [seq, end) left (@rtx: again) at @ns (the connection's
 * transmissions in the order they left: tcp_output.c) */
void ust_tcp_rack_xmit(struct ust_stack *stk, struct ust_tcp_sock *tp,
		       uint32_t seq, uint32_t end, bool fin, bool rtx,
		       uint64_t ns);
/* an acceptable ACK was processed (snd_una and the scoreboard updated;
 * @dsack: it carried a D-SACK): RACK's update and loss detection (RFC
 * 8985 6.2); returns the bytes newly delivered, and in *lost whether
 * segments were newly marked lost, in *reo_ns the reordering timeout to
 * arm (0: none), in *rtt_ns this ACK's RTT sample (0: none), in
 * *delivered_segs the segments newly delivered (PRR's unit) */
uint32_t ust_tcp_rack_ack(struct ust_stack *stk, struct ust_tcp_sock *tp,
			  bool dsack, bool *lost, uint64_t *reo_ns,
			  uint64_t *rtt_ns, uint32_t *delivered_segs);
/* the reordering timer expired: detect again (RFC 8985 6.3) */
bool ust_tcp_rack_reo_timeout(struct ust_stack *stk, struct ust_tcp_sock *tp,
			      uint64_t *reo_ns);
/* bytes in flight: sent, neither delivered nor marked lost (RFC 6675's
 * pipe with RACK's losses, Linux's tcp_packets_in_flight()) */
uint32_t ust_tcp_rack_in_flight(const struct ust_tcp_sock *tp);
/* the same in segments (PRR's pipe) */
uint32_t ust_tcp_rack_in_flight_segs(const struct ust_tcp_sock *tp);
/* segments sent and not cumulatively acknowledged (Linux's
 * packets_out) */
uint32_t ust_tcp_rack_packets_out(const struct ust_tcp_sock *tp);
/* the segment just recorded by ust_tcp_rack_xmit() went in one packet
 * with the one recorded before it (a TSO packet on Linux's wire) */
void ust_tcp_rack_join(struct ust_tcp_sock *tp);
/* the lowest segment marked lost: false when none */
bool ust_tcp_rack_next_lost(const struct ust_tcp_sock *tp, uint32_t *seq,
			    uint32_t *end, bool *fin);
/* how many lost segments from the one at @seq on went in one packet and
 * can go again as one (Linux's skb, sent again whole: PSH on its last
 * segment when it has two and more), each of at most @len bytes; at most
 * @max, at least 1 */
uint32_t ust_tcp_rack_lost_pkt(const struct ust_tcp_sock *tp, uint32_t seq,
			       uint32_t len, uint32_t max);
/* the segment sent last by sequence (a loss probe's, RFC 8985 7.3) */
bool ust_tcp_rack_last(const struct ust_tcp_sock *tp, uint32_t *seq,
		       uint32_t *end, bool *fin);
/* Trim the SACK block [*start, *end) to whole segments as they were sent:
 * a block that covers part of a segment does not SACK it (Linux's
 * tcp_match_skb_to_sack(): an skb is SACKed whole or in whole MSSes), so
 * that what goes again is the segment as it went. */
void ust_tcp_rack_sack_trim(const struct ust_tcp_sock *tp, uint32_t *start,
			    uint32_t *end);
/* the peer reneged (or we forget its SACKs): nothing is SACKed */
void ust_tcp_rack_unsack(struct ust_tcp_sock *tp);
/* after a timeout: every segment in flight is lost (go-back-N) */
void ust_tcp_rack_all_lost(struct ust_tcp_sock *tp);
/* a recovery ended (RFC 8985 6.2 step 4: reo_wnd_persist) */
void ust_tcp_rack_recovery_end(struct ust_tcp_sock *tp);
void ust_tcp_rack_free(struct ust_tcp_sock *tp);
/* PRR (RFC 6937): recovery begins; then per ACK, cwnd for the ACK
 * (@delivered: segments newly delivered) */
void ust_tcp_prr_init(struct ust_tcp_sock *tp);
void ust_tcp_prr_ack(struct ust_tcp_sock *tp, uint32_t delivered,
		     bool una_advanced, bool newly_lost);

/* ---- tcp_reass.c ---- */
/* queue an out-of-order segment (payload mbuf, data at the payload) */
bool ust_tcp_reass_insert(struct ust_stack *stk, struct ust_tcp_sock *tp,
		      struct rte_mbuf *m, uint32_t seq, uint32_t len);
/* move what became in order to rcvq; returns bytes moved */
uint32_t ust_tcp_reass_pull(struct ust_stack *stk, struct ust_tcp_sock *tp);
void ust_tcp_reass_purge(struct ust_stack *stk, struct ust_tcp_sock *tp,
		     enum ust_drop_reason r);

/* ---- tcp_sock.c: the socket calls, dispatched from lib/sock ---- */
struct ust_sock *ust_tcp_create(struct ust_stack *stk);
void ust_tcp_close(struct ust_stack *stk, struct ust_sock *s);
int ust_tcp_bind(struct ust_stack *stk, struct ust_sock *s,
		 const struct ust_saddr *a);
int ust_tcp_listen(struct ust_stack *stk, struct ust_sock *s, int backlog);
int ust_tcp_accept(struct ust_stack *stk, struct ust_sock *s,
		   struct ust_saddr *peer);
int ust_tcp_connect(struct ust_stack *stk, struct ust_sock *s,
		    const struct ust_saddr *a);
ssize_t ust_tcp_send(struct ust_stack *stk, struct ust_sock *s,
		     const void *buf, size_t len, int flags);
ssize_t ust_tcp_recv(struct ust_stack *stk, struct ust_sock *s, void *buf,
		     size_t len, int flags);
int ust_tcp_recv_burst(struct ust_stack *stk, struct ust_sock *s,
		       struct rte_mbuf **pkts, unsigned int n);
int ust_tcp_send_burst(struct ust_stack *stk, struct ust_sock *s,
		       struct rte_mbuf **pkts, unsigned int n);
int ust_tcp_shutdown(struct ust_stack *stk, struct ust_sock *s, int how);
int ust_tcp_setsockopt(struct ust_sock *s, int level, int name,
		       const void *val, socklen_t len);
int ust_tcp_getsockopt(struct ust_sock *s, int level, int name, void *val,
		       socklen_t *len);
uint32_t ust_tcp_events(const struct ust_sock *s);
/* A TCP segment (data at the IPv4 header); consumes @m. */
void ust_tcp_input(struct ust_stack *stk, struct rte_mbuf *m,
		   const struct ust_ipv4_repr *ip);
/* The TCP segments of an RX burst, in arrival order; consumes them. TCP's
 * IPv4 input, registered by ust_tcp_init(): one lookup per connection per
 * burst, and one output (one ACK) per connection per burst where the
 * segments are in order. */
void ust_tcp_input_burst(struct ust_stack *stk, struct rte_mbuf **pkts,
			 const struct ust_ipv4_repr *ips, uint16_t n);
/* A TCP segment over IPv6 (@m at the TCP header, @ip6 its fixed header):
 * TCP's IPv6 input, registered by ust_tcp_init() when IPv6 is on; one
 * segment a call. Consumes @m. */
void ust_tcp6_input(struct ust_stack *stk, struct rte_mbuf *m,
		    const struct ust_ipv6_repr *ip6, uint32_t l3_len);

/* The socket-ops table of TCP sockets, registered by ust_tcp_init(). */
int ust_tcp_sock_register(struct ust_stack *stk);
void ust_tcp_meminfo(const struct ust_sock *s, struct ust_sock_meminfo *mi);

/* ---- tcp_icmp.c ---- */
/* TCP's IPv4 error handler (RFC 1122 4.2.3.9, RFC 1191, RFC 5927) */
void ust_tcp_icmp_error(struct ust_stack *stk, const struct ust_icmp_repr *ic);
/* and its IPv6 one (RFC 4443, RFC 8201) */
void ust_tcp_icmp6_error(struct ust_stack *stk,
			 const struct ust_icmp6_repr *ic);
/* the path MTU in use: the one ICMP taught, else the interface's */
uint16_t ust_tcp_pmtu(const struct ust_tcp_sock *tp);
/* TCP_USER_TIMEOUT (RFC 5482), from the retransmission timer when it
 * expires: true when the connection has been aborted (ETIMEDOUT, or the
 * soft error it had) */
bool ust_tcp_user_timeout_expired(struct ust_stack *stk,
				  struct ust_tcp_sock *tp);
/* the next RTO, no later than the user timeout's end */
uint64_t ust_tcp_user_timeout_clamp(struct ust_stack *stk,
				    const struct ust_tcp_sock *tp,
				    uint64_t rto_ns);
/* TCP_CORK and MSG_MORE: may a partial segment go now? No while corked, within the
 * 200 ms ceiling (armed here) */
bool ust_tcp_cork_allows(struct ust_stack *stk, struct ust_tcp_sock *tp);
/* the ceiling expired, or the socket was uncorked: push what is held */
void ust_tcp_cork_expired(struct ust_stack *stk, struct ust_tcp_sock *tp);

/* ---- tcp_info.c ---- */
/* getsockopt(IPPROTO_TCP, TCP_INFO): Linux's struct tcp_info, its first
 * min(*len, sizeof) bytes */
int ust_tcp_info_linux(const struct ust_tcp_sock *tp, void *val,
		       socklen_t *len);

/* ---- tcp_cc.c ---- */
const struct ust_tcp_cc_ops *ust_tcp_cc_find(const char *name);

/* ---- for lib/stack ---- */

int ust_tcp_init(struct ust_stack *stk);
void ust_tcp_fini(struct ust_stack *stk);


/* TCP's share of a poll: expired timers, output that waited for TX
 * staging room. */
void ust_tcp_poll(struct ust_stack *stk);

/* When ust_tcp_poll() next has work (ns of the stack's clock): 0 when
 * output waits for staging room, the wheel's next expiry, UINT64_MAX
 * when nothing is armed. */
uint64_t ust_tcp_next_deadline(const struct ust_stack *stk);

#endif /* UST_TCP_PRIVATE_H */
