/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/**
 * @file
 * ustack counters.
 *
 * Two families, both plain per-stack-instance uint64_t arrays (one writer:
 * the lcore that runs the stack), read by the apps, by --json and by
 * telemetry:
 *
 *  - MIB counters named exactly as Linux names them in /proc/net/snmp and
 *    /proc/net/netstat (Ip, Icmp, Udp, Tcp...), with Linux's semantics,
 *    including its aggregates (Udp InErrors counts RcvbufErrors, MemErrors
 *    and InCsumErrors again, as Linux does).
 *  - Drop reasons named after Linux's enum skb_drop_reason. Every packet the
 *    stack frees without consuming it increments exactly one drop reason,
 *    so that  frames in == frames consumed + sum of drop reasons  holds and
 *    tests check it.
 */

#ifndef UST_STATS_H
#define UST_STATS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * X(group, ENUM_SUFFIX, "LinuxName")
 * Groups: Eth (ustack's own per-stack link counters), Arp (after
 * /proc/net/stat/arp_cache), Ip and IpExt, Icmp, Ip6 and Icmp6 (after
 * /proc/net/snmp6: Ip6InReceives is Ip6.InReceives), Ndisc (after
 * /proc/net/stat/ndisc_cache, with DadFailures and InConflicts, ustack's
 * own), Udp, Tcp, TcpExt, Group
 * (sibling stacks, lib/group: frames handed to the stack that owns their
 * flow, and ARP frames and IPv6 NS, NA and RA copied to the siblings:
 * ArpCopies counts both). A frame handed over is
 * consumed on the stack that sent it (HandoffOut) and counts again in the
 * owner's Eth InFrames (HandoffIn of them came from siblings), so each
 * stack's conservation rule below holds alone; a port's frames are the
 * group's InFrames less its HandoffIn.
 */
#define UST_MIB_LIST(X) \
	X(Eth, ETH_INFRAMES, "InFrames") \
	X(Eth, ETH_INOCTETS, "InOctets") \
	X(Eth, ETH_OUTFRAMES, "OutFrames") \
	X(Eth, ETH_OUTOCTETS, "OutOctets") \
	X(Eth, ETH_RXBURSTS, "RxBursts") \
	X(Eth, ETH_TXBURSTS, "TxBursts") \
	X(Eth, ETH_TXRETRIES, "TxRetries") \
	X(Eth, ETH_RESERVEDENIED, "ReserveDenied") \
	X(Arp, ARP_INREQUESTS, "InRequests") \
	X(Arp, ARP_INREPLIES, "InReplies") \
	X(Arp, ARP_INIGNORED, "InIgnored") \
	X(Arp, ARP_INCONFLICTS, "InConflicts") \
	X(Arp, ARP_OUTREQUESTS, "OutRequests") \
	X(Arp, ARP_OUTREPLIES, "OutReplies") \
	X(Arp, ARP_ALLOCS, "Allocs") \
	X(Arp, ARP_DESTROYS, "Destroys") \
	X(Arp, ARP_RESFAILED, "ResFailed") \
	X(Arp, ARP_UNRESOLVEDDISCARDS, "UnresolvedDiscards") \
	X(Arp, ARP_TABLEFULLS, "TableFulls") \
	X(Ip, IP_INRECEIVES, "InReceives") \
	X(Ip, IP_INHDRERRORS, "InHdrErrors") \
	X(Ip, IP_INADDRERRORS, "InAddrErrors") \
	X(Ip, IP_INUNKNOWNPROTOS, "InUnknownProtos") \
	X(Ip, IP_INDISCARDS, "InDiscards") \
	X(Ip, IP_INDELIVERS, "InDelivers") \
	X(Ip, IP_OUTREQUESTS, "OutRequests") \
	X(Ip, IP_OUTDISCARDS, "OutDiscards") \
	X(Ip, IP_OUTNOROUTES, "OutNoRoutes") \
	X(Ip, IP_REASMTIMEOUT, "ReasmTimeout") \
	X(Ip, IP_REASMREQDS, "ReasmReqds") \
	X(Ip, IP_REASMOKS, "ReasmOKs") \
	X(Ip, IP_REASMFAILS, "ReasmFails") \
	X(Ip, IP_FRAGOKS, "FragOKs") \
	X(Ip, IP_FRAGFAILS, "FragFails") \
	X(Ip, IP_FRAGCREATES, "FragCreates") \
	X(IpExt, IPEXT_INTRUNCATEDPKTS, "InTruncatedPkts") \
	X(IpExt, IPEXT_INCSUMERRORS, "InCsumErrors") \
	X(IpExt, IPEXT_INBCASTPKTS, "InBcastPkts") \
	X(IpExt, IPEXT_INOCTETS, "InOctets") \
	X(IpExt, IPEXT_OUTOCTETS, "OutOctets") \
	X(IpExt, IPEXT_REASMOVERLAPS, "ReasmOverlaps") \
	X(Icmp, ICMP_INMSGS, "InMsgs") \
	X(Icmp, ICMP_INERRORS, "InErrors") \
	X(Icmp, ICMP_INCSUMERRORS, "InCsumErrors") \
	X(Icmp, ICMP_INDESTUNREACHS, "InDestUnreachs") \
	X(Icmp, ICMP_INTIMEEXCDS, "InTimeExcds") \
	X(Icmp, ICMP_INPARMPROBS, "InParmProbs") \
	X(Icmp, ICMP_INECHOS, "InEchos") \
	X(Icmp, ICMP_INECHOREPS, "InEchoReps") \
	X(Icmp, ICMP_OUTMSGS, "OutMsgs") \
	X(Icmp, ICMP_OUTERRORS, "OutErrors") \
	X(Icmp, ICMP_OUTRATELIMITGLOBAL, "OutRateLimitGlobal") \
	X(Icmp, ICMP_OUTDESTUNREACHS, "OutDestUnreachs") \
	X(Icmp, ICMP_OUTECHOREPS, "OutEchoReps") \
	X(Ip6, IP6_INRECEIVES, "InReceives") \
	X(Ip6, IP6_INHDRERRORS, "InHdrErrors") \
	X(Ip6, IP6_INADDRERRORS, "InAddrErrors") \
	X(Ip6, IP6_INUNKNOWNPROTOS, "InUnknownProtos") \
	X(Ip6, IP6_INTRUNCATEDPKTS, "InTruncatedPkts") \
	X(Ip6, IP6_INDELIVERS, "InDelivers") \
	X(Ip6, IP6_OUTREQUESTS, "OutRequests") \
	X(Ip6, IP6_OUTDISCARDS, "OutDiscards") \
	X(Ip6, IP6_OUTNOROUTES, "OutNoRoutes") \
	X(Ip6, IP6_REASMREQDS, "ReasmReqds") \
	X(Ip6, IP6_REASMTIMEOUT, "ReasmTimeout") \
	X(Ip6, IP6_REASMOKS, "ReasmOKs") \
	X(Ip6, IP6_REASMFAILS, "ReasmFails") \
	X(Ip6, IP6_FRAGOKS, "FragOKs") \
	X(Ip6, IP6_FRAGFAILS, "FragFails") \
	X(Ip6, IP6_FRAGCREATES, "FragCreates") \
	X(Ip6, IP6_INMCASTPKTS, "InMcastPkts") \
	X(Ip6, IP6_OUTMCASTPKTS, "OutMcastPkts") \
	X(Ip6, IP6_INOCTETS, "InOctets") \
	X(Ip6, IP6_OUTOCTETS, "OutOctets") \
	X(Icmp6, ICMP6_INMSGS, "InMsgs") \
	X(Icmp6, ICMP6_INERRORS, "InErrors") \
	X(Icmp6, ICMP6_OUTMSGS, "OutMsgs") \
	X(Icmp6, ICMP6_OUTERRORS, "OutErrors") \
	X(Icmp6, ICMP6_INCSUMERRORS, "InCsumErrors") \
	X(Icmp6, ICMP6_OUTRATELIMITHOST, "OutRateLimitHost") \
	X(Icmp6, ICMP6_INDESTUNREACHS, "InDestUnreachs") \
	X(Icmp6, ICMP6_INPKTTOOBIGS, "InPktTooBigs") \
	X(Icmp6, ICMP6_INTIMEEXCDS, "InTimeExcds") \
	X(Icmp6, ICMP6_INPARMPROBLEMS, "InParmProblems") \
	X(Icmp6, ICMP6_INECHOS, "InEchos") \
	X(Icmp6, ICMP6_INECHOREPLIES, "InEchoReplies") \
	X(Icmp6, ICMP6_INROUTERSOLICITS, "InRouterSolicits") \
	X(Icmp6, ICMP6_INROUTERADVERTISEMENTS, "InRouterAdvertisements") \
	X(Icmp6, ICMP6_INNEIGHBORSOLICITS, "InNeighborSolicits") \
	X(Icmp6, ICMP6_INNEIGHBORADVERTISEMENTS, "InNeighborAdvertisements") \
	X(Icmp6, ICMP6_INREDIRECTS, "InRedirects") \
	X(Icmp6, ICMP6_INGROUPMEMBQUERIES, "InGroupMembQueries") \
	X(Icmp6, ICMP6_INMLDV2REPORTS, "InMLDv2Reports") \
	X(Icmp6, ICMP6_OUTDESTUNREACHS, "OutDestUnreachs") \
	X(Icmp6, ICMP6_OUTTIMEEXCDS, "OutTimeExcds") \
	X(Icmp6, ICMP6_OUTPARMPROBLEMS, "OutParmProblems") \
	X(Icmp6, ICMP6_OUTECHOREPLIES, "OutEchoReplies") \
	X(Icmp6, ICMP6_OUTROUTERSOLICITS, "OutRouterSolicits") \
	X(Icmp6, ICMP6_OUTNEIGHBORSOLICITS, "OutNeighborSolicits") \
	X(Icmp6, ICMP6_OUTNEIGHBORADVERTISEMENTS, "OutNeighborAdvertisements") \
	X(Icmp6, ICMP6_OUTMLDV2REPORTS, "OutMLDv2Reports") \
	X(Ndisc, NDISC_ALLOCS, "Allocs") \
	X(Ndisc, NDISC_DESTROYS, "Destroys") \
	X(Ndisc, NDISC_RESFAILED, "ResFailed") \
	X(Ndisc, NDISC_UNRESOLVEDDISCARDS, "UnresolvedDiscards") \
	X(Ndisc, NDISC_TABLEFULLS, "TableFulls") \
	X(Ndisc, NDISC_DADFAILURES, "DadFailures") \
	X(Ndisc, NDISC_INCONFLICTS, "InConflicts") \
	X(Udp, UDP_INDATAGRAMS, "InDatagrams") \
	X(Udp, UDP_NOPORTS, "NoPorts") \
	X(Udp, UDP_INERRORS, "InErrors") \
	X(Udp, UDP_OUTDATAGRAMS, "OutDatagrams") \
	X(Udp, UDP_RCVBUFERRORS, "RcvbufErrors") \
	X(Udp, UDP_SNDBUFERRORS, "SndbufErrors") \
	X(Udp, UDP_INCSUMERRORS, "InCsumErrors") \
	X(Udp, UDP_IGNOREDMULTI, "IgnoredMulti") \
	X(Udp, UDP_MEMERRORS, "MemErrors") \
	X(Udp6, UDP6_INDATAGRAMS, "InDatagrams") \
	X(Udp6, UDP6_NOPORTS, "NoPorts") \
	X(Udp6, UDP6_INERRORS, "InErrors") \
	X(Udp6, UDP6_OUTDATAGRAMS, "OutDatagrams") \
	X(Udp6, UDP6_RCVBUFERRORS, "RcvbufErrors") \
	X(Udp6, UDP6_SNDBUFERRORS, "SndbufErrors") \
	X(Udp6, UDP6_INCSUMERRORS, "InCsumErrors") \
	X(Udp6, UDP6_IGNOREDMULTI, "IgnoredMulti") \
	X(Udp6, UDP6_MEMERRORS, "MemErrors") \
	X(Tcp, TCP_ACTIVEOPENS, "ActiveOpens") \
	X(Tcp, TCP_PASSIVEOPENS, "PassiveOpens") \
	X(Tcp, TCP_ATTEMPTFAILS, "AttemptFails") \
	X(Tcp, TCP_ESTABRESETS, "EstabResets") \
	X(Tcp, TCP_CURRESTAB, "CurrEstab") \
	X(Tcp, TCP_INSEGS, "InSegs") \
	X(Tcp, TCP_OUTSEGS, "OutSegs") \
	X(Tcp, TCP_RETRANSSEGS, "RetransSegs") \
	X(Tcp, TCP_INERRS, "InErrs") \
	X(Tcp, TCP_OUTRSTS, "OutRsts") \
	X(Tcp, TCP_INCSUMERRORS, "InCsumErrors") \
	X(TcpExt, TCPEXT_SYNCOOKIESSENT, "SyncookiesSent") \
	X(TcpExt, TCPEXT_SYNCOOKIESRECV, "SyncookiesRecv") \
	X(TcpExt, TCPEXT_SYNCOOKIESFAILED, "SyncookiesFailed") \
	X(TcpExt, TCPEXT_EMBRYONICRSTS, "EmbryonicRsts") \
	X(TcpExt, TCPEXT_TW, "TW") \
	X(TcpExt, TCPEXT_TWRECYCLED, "TWRecycled") \
	X(TcpExt, TCPEXT_TCPTIMEWAITOVERFLOW, "TCPTimeWaitOverflow") \
	X(TcpExt, TCPEXT_PAWSESTAB, "PAWSEstab") \
	X(TcpExt, TCPEXT_DELAYEDACKS, "DelayedACKs") \
	X(TcpExt, TCPEXT_LISTENOVERFLOWS, "ListenOverflows") \
	X(TcpExt, TCPEXT_LISTENDROPS, "ListenDrops") \
	X(TcpExt, TCPEXT_TCPPUREACKS, "TCPPureAcks") \
	X(TcpExt, TCPEXT_TCPHPACKS, "TCPHPAcks") \
	X(TcpExt, TCPEXT_TCPTIMEOUTS, "TCPTimeouts") \
	X(TcpExt, TCPEXT_TCPFASTRETRANS, "TCPFastRetrans") \
	X(TcpExt, TCPEXT_TCPLOSSPROBES, "TCPLossProbes") \
	X(TcpExt, TCPEXT_TCPSLOWSTARTRETRANS, "TCPSlowStartRetrans") \
	X(TcpExt, TCPEXT_TCPSACKRECOVERY, "TCPSackRecovery") \
	X(TcpExt, TCPEXT_TCPRENORECOVERY, "TCPRenoRecovery") \
	X(TcpExt, TCPEXT_TCPSACKRENEGING, "TCPSACKReneging") \
	X(TcpExt, TCPEXT_TCPABORTONDATA, "TCPAbortOnData") \
	X(TcpExt, TCPEXT_TCPABORTONCLOSE, "TCPAbortOnClose") \
	X(TcpExt, TCPEXT_TCPABORTONTIMEOUT, "TCPAbortOnTimeout") \
	X(TcpExt, TCPEXT_TCPABORTONLINGER, "TCPAbortOnLinger") \
	X(TcpExt, TCPEXT_TCPCHALLENGEACK, "TCPChallengeACK") \
	X(TcpExt, TCPEXT_TCPSYNCHALLENGE, "TCPSYNChallenge") \
	X(TcpExt, TCPEXT_TCPACKSKIPPEDSYNRECV, "TCPACKSkippedSynRecv") \
	X(TcpExt, TCPEXT_TCPACKSKIPPEDPAWS, "TCPACKSkippedPAWS") \
	X(TcpExt, TCPEXT_TCPACKSKIPPEDSEQ, "TCPACKSkippedSeq") \
	X(TcpExt, TCPEXT_TCPACKSKIPPEDTIMEWAIT, "TCPACKSkippedTimeWait") \
	X(TcpExt, TCPEXT_TCPACKSKIPPEDCHALLENGE, "TCPACKSkippedChallenge") \
	X(TcpExt, TCPEXT_TCPOFOQUEUE, "TCPOFOQueue") \
	X(TcpExt, TCPEXT_TCPOFODROP, "TCPOFODrop") \
	X(TcpExt, TCPEXT_OFOPRUNED, "OfoPruned") \
	X(TcpExt, TCPEXT_TCPRCVQDROP, "TCPRcvQDrop") \
	X(TcpExt, TCPEXT_TCPRCVCOALESCE, "TCPRcvCoalesce") \
	X(TcpExt, TCPEXT_TCPRCVCOLLAPSED, "TCPRcvCollapsed") \
	X(TcpExt, TCPEXT_TCPZEROWINDOWDROP, "TCPZeroWindowDrop") \
	X(TcpExt, TCPEXT_TCPTOZEROWINDOWADV, "TCPToZeroWindowAdv") \
	X(TcpExt, TCPEXT_TCPFROMZEROWINDOWADV, "TCPFromZeroWindowAdv") \
	X(TcpExt, TCPEXT_TCPWINPROBE, "TCPWinProbe") \
	X(TcpExt, TCPEXT_TCPKEEPALIVE, "TCPKeepAlive") \
	X(TcpExt, TCPEXT_TCPDSACKRECV, "TCPDSACKRecv") \
	X(TcpExt, TCPEXT_TCPDSACKOLDSENT, "TCPDSACKOldSent") \
	X(TcpExt, TCPEXT_TCPDSACKOFOSENT, "TCPDSACKOfoSent") \
	X(TcpExt, TCPEXT_TCPSPURIOUSRTOS, "TCPSpuriousRTOs") \
	X(TcpExt, TCPEXT_TCPHYSTARTTRAINDETECT, "TCPHystartTrainDetect") \
	X(TcpExt, TCPEXT_TCPHYSTARTTRAINCWND, "TCPHystartTrainCwnd") \
	X(TcpExt, TCPEXT_TCPHYSTARTDELAYDETECT, "TCPHystartDelayDetect") \
	X(TcpExt, TCPEXT_TCPHYSTARTDELAYCWND, "TCPHystartDelayCwnd") \
	X(TcpExt, TCPEXT_OUTOFWINDOWICMPS, "OutOfWindowIcmps") \
	X(TcpExt, TCPEXT_TCPICMPIGNORED, "TCPIcmpIgnored") \
	X(TcpExt, TCPEXT_TCPICMPSOFTERRORS, "TCPIcmpSoftErrors") \
	X(TcpExt, TCPEXT_TCPICMPHARDERRORS, "TCPIcmpHardErrors") \
	X(TcpExt, TCPEXT_TCPICMPPMTUREDUCED, "TCPIcmpPmtuReduced") \
	X(Group, GROUP_HANDOFFOUT, "HandoffOut") \
	X(Group, GROUP_HANDOFFIN, "HandoffIn") \
	X(Group, GROUP_ARPCOPIES, "ArpCopies") \
	X(Group, GROUP_ARPCOPYFAILS, "ArpCopyFails")

/** Index of a MIB counter, e.g. UST_MIB_UDP_NOPORTS. */
enum ust_mib {
#define UST_MIB_ENUM(g, e, n) UST_MIB_##e,
	UST_MIB_LIST(UST_MIB_ENUM)
#undef UST_MIB_ENUM
	UST_MIB_MAX
};

/*
 * X(ENUM_SUFFIX, "name", path): Linux skb drop reason names where Linux has
 * one (doc/architecture.md lists the few that are ustack's own). The path
 * says where the packet was when it was dropped:
 *  RX:   a received frame, before it was consumed;
 *  SOCK: a received datagram already queued to a socket (closed with it),
 *        or a fragment held for reassembly (freed with its datagram);
 *  TX:   a packet the stack or the application built, before the driver
 *        took it.
 */
#define UST_DROP_LIST(X) \
	X(PKT_TOO_SMALL, "PKT_TOO_SMALL", RX) \
	X(PKT_HDR_SPLIT, "PKT_HDR_SPLIT", RX) \
	X(OTHERHOST, "OTHERHOST", RX) \
	X(UNHANDLED_PROTO, "UNHANDLED_PROTO", RX) \
	X(ARP_MALFORMED, "ARP_MALFORMED", RX) \
	X(ARP_UNSUPPORTED, "ARP_UNSUPPORTED", RX) \
	X(IP_INHDR, "IP_INHDR", RX) \
	X(IP_CSUM, "IP_CSUM", RX) \
	X(IP_INADDRERRORS, "IP_INADDRERRORS", RX) \
	X(IP_INVALID_SOURCE, "IP_INVALID_SOURCE", RX) \
	X(IP_LOCAL_SOURCE, "IP_LOCAL_SOURCE", RX) \
	X(IP_NOPROTO, "IP_NOPROTO", RX) \
	X(IP_FRAG_MALFORMED, "IP_FRAG_MALFORMED", RX) \
	X(DUP_FRAG, "DUP_FRAG", RX) \
	X(IP_FRAG_OVERLAP, "IP_FRAG_OVERLAP", RX) \
	X(IP_FRAG_TOO_MANY, "IP_FRAG_TOO_MANY", RX) \
	X(IP_FRAG_NOMEM, "IP_FRAG_NOMEM", RX) \
	X(IP_SOURCE_ROUTE, "IP_SOURCE_ROUTE", RX) \
	X(IPV6DISABLED, "IPV6DISABLED", RX) \
	X(IPV6_BAD_EXTHDR, "IPV6_BAD_EXTHDR", RX) \
	X(IPV6_NDISC_HOP_LIMIT, "IPV6_NDISC_HOP_LIMIT", RX) \
	X(IPV6_NDISC_BAD_CODE, "IPV6_NDISC_BAD_CODE", RX) \
	X(IPV6_NDISC_BAD_OPTIONS, "IPV6_NDISC_BAD_OPTIONS", RX) \
	X(IPV6_NDISC_NS_OTHERHOST, "IPV6_NDISC_NS_OTHERHOST", RX) \
	X(ICMP_CSUM, "ICMP_CSUM", RX) \
	X(ICMP_MALFORMED, "ICMP_MALFORMED", RX) \
	X(UDP_CSUM, "UDP_CSUM", RX) \
	X(UDP_BADLEN, "UDP_BADLEN", RX) \
	X(NO_SOCKET, "NO_SOCKET", RX) \
	X(SOCKET_RCVBUFF, "SOCKET_RCVBUFF", RX) \
	X(PROTO_MEM, "PROTO_MEM", RX) \
	X(TCP_CSUM, "TCP_CSUM", RX) \
	X(TCP_HDR, "TCP_HDR", RX) \
	X(TCP_FLAGS, "TCP_FLAGS", RX) \
	X(TCP_RFC7323_PAWS, "TCP_RFC7323_PAWS", RX) \
	X(TCP_INVALID_SEQUENCE, "TCP_INVALID_SEQUENCE", RX) \
	X(TCP_RESET, "TCP_RESET", RX) \
	X(TCP_INVALID_SYN, "TCP_INVALID_SYN", RX) \
	X(TCP_OLD_ACK, "TCP_OLD_ACK", RX) \
	X(TCP_ACK_UNSENT_DATA, "TCP_ACK_UNSENT_DATA", RX) \
	X(TCP_OLD_DATA, "TCP_OLD_DATA", RX) \
	X(TCP_OVERWINDOW, "TCP_OVERWINDOW", RX) \
	X(TCP_ZEROWINDOW, "TCP_ZEROWINDOW", RX) \
	X(TCP_OFO_DROP, "TCP_OFO_DROP", RX) \
	X(TCP_LISTEN_OVERFLOW, "TCP_LISTEN_OVERFLOW", RX) \
	X(TCP_CLOSE, "TCP_CLOSE", RX) \
	X(HANDOFF_FULL, "HANDOFF_FULL", RX) \
	X(SOCKET_CLOSE, "SOCKET_CLOSE", SOCK) \
	X(TCP_ABORT, "TCP_ABORT", SOCK) \
	X(TCP_OFOMERGE, "TCP_OFOMERGE", SOCK) \
	X(TCP_OFO_QUEUE_PRUNE, "TCP_OFO_QUEUE_PRUNE", SOCK) \
	X(FRAG_REASM_TIMEOUT, "FRAG_REASM_TIMEOUT", SOCK) \
	X(IP_FRAG_REASM_FAILED, "IP_FRAG_REASM_FAILED", SOCK) \
	X(IP_FRAG_EVICTED, "IP_FRAG_EVICTED", SOCK) \
	X(IP_OUTNOROUTES, "IP_OUTNOROUTES", TX) \
	X(NEIGH_FAILED, "NEIGH_FAILED", TX) \
	X(NEIGH_QUEUEFULL, "NEIGH_QUEUEFULL", TX) \
	X(NEIGH_PENDINGFULL, "NEIGH_PENDINGFULL", TX) \
	X(NOMEM_RESERVE, "NOMEM_RESERVE", TX) \
	X(TX_STAGE_FULL, "TX_STAGE_FULL", TX) \
	X(PKT_TOO_BIG, "PKT_TOO_BIG", TX) \
	X(NOMEM, "NOMEM", TX)

/** Index of a drop reason, e.g. UST_DROP_NO_SOCKET. */
enum ust_drop_reason {
#define UST_DROP_ENUM(e, n, p) UST_DROP_##e,
	UST_DROP_LIST(UST_DROP_ENUM)
#undef UST_DROP_ENUM
	UST_DROP_MAX
};

/** Where a dropped packet was; see UST_DROP_LIST. */
enum ust_drop_path {
	UST_DROP_PATH_RX,
	UST_DROP_PATH_SOCK,
	UST_DROP_PATH_TX,
};

/** A copy of one stack instance's counters. */
struct ust_stats {
	uint64_t mib[UST_MIB_MAX];
	uint64_t drop[UST_DROP_MAX];
	/** received frames that reached their end without a drop: handled by
	 *  the stack (ARP, ICMP) or queued to a socket */
	uint64_t rx_consumed;
};

/** Linux name of a MIB counter ("NoPorts"), or NULL when out of range. */
const char *ust_mib_name(unsigned int mib);

/** Group of a MIB counter ("Udp"), or NULL when out of range. */
const char *ust_mib_group(unsigned int mib);

/** Name of a drop reason ("NO_SOCKET"), or NULL when out of range. */
const char *ust_drop_name(unsigned int reason);

/** Index of the counter "Group.Name" (e.g. "Udp.NoPorts"), or -1. */
int ust_mib_lookup(const char *group_dot_name);

/** Index of the drop reason @p name, or -1. */
int ust_drop_lookup(const char *name);

/** Path of a drop reason. */
enum ust_drop_path ust_drop_path(unsigned int reason);

/**
 * Sum of the drop reasons of one path in @p s. For the RX path,
 * mib[UST_MIB_ETH_INFRAMES] == rx_consumed + ust_stats_drops(s, RX) always.
 */
uint64_t ust_stats_drops(const struct ust_stats *s, enum ust_drop_path path);

/** Add @p src's counters to @p dst's (the sums over a group of stacks). */
void ust_stats_add(struct ust_stats *dst, const struct ust_stats *src);

#ifdef __cplusplus
}
#endif

#endif /* UST_STATS_H */
