/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/*
 * ust-echo's and ust-perf's command line: one-line errors with exit
 * status 2, values checked (seconds, addresses, --fault, the TX layout
 * flags), EAL and app arguments split at "--", signals and sleeping.
 */

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_version.h>

#include "app_common.h"

void
app_usage_error(const char *prog, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: error: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

void
app_check_ip(const char *prog, const struct ust_config *cfg,
	     const char *addr_arg, const char *gw_arg)
{
	const struct ust_stack_conf *sc = &cfg->stack;
	const char *why;

	why = ust_check_addr(sc->addr, sc->prefix_len);
	if (why != NULL) {
		if (addr_arg != NULL)
			app_usage_error(prog, "--addr %s: %s", addr_arg, why);
		app_usage_error(prog, "[ip] addr: %s", why);
	}
	why = ust_check_gateway(sc->gateway, sc->addr, sc->prefix_len);
	if (why != NULL) {
		if (gw_arg != NULL)
			app_usage_error(prog, "--gateway %s: %s", gw_arg, why);
		app_usage_error(prog, "[ip] gateway: %s (with --addr %s)", why,
				addr_arg != NULL ? addr_arg : "?");
	}
}

void
app_set_ip6(const char *prog, struct ust_config *cfg, const char *addr6,
	    const char *gw6)
{
	struct ust_ip6_conf *c = &cfg->stack.ip6;
	const char *why;

	if (addr6 != NULL) {
		if (ust_parse_ipv6_prefix(addr6, c->addr, &c->prefix_len) != 0)
			app_usage_error(prog, "--addr6 %s: expected an IPv6 "
					"address/N", addr6);
		why = ust_check_addr6(c->addr, c->prefix_len);
		if (why != NULL)
			app_usage_error(prog, "--addr6 %s: %s", addr6, why);
		c->enable = true;
	}
	if (gw6 != NULL) {
		if (ust_parse_ipv6(gw6, c->gateway) != 0)
			app_usage_error(prog, "--gateway6 %s: expected an IPv6 "
					"address", gw6);
		if (!c->enable)
			app_usage_error(prog, "--gateway6 %s: IPv6 is off "
					"(no --addr6, no [ip6])", gw6);
		why = ust_check_gateway6(c->gateway, c->addr, c->prefix_len);
		if (why != NULL)
			app_usage_error(prog, "--gateway6 %s: %s", gw6, why);
	}
}

double
app_parse_seconds(const char *prog, const char *flag, const char *v,
		  double min, double max)
{
	double d;

	if (ust_parse_double(v, min, max, &d, NULL) != 0)
		app_usage_error(prog, "%s %s: expected seconds from %g to %g",
				flag, v, min, max);
	return d;
}

void
app_split_args(int argc, char **argv, int *eal_argc, char ***eal_argv,
	       int *app_argc, char ***app_argv)
{
	int i;

	for (i = 1; i < argc; i++)
		if (strcmp(argv[i], "--") == 0)
			break;
	if (i == argc) {
		*eal_argc = 1;
		*eal_argv = argv;
		*app_argc = argc;
		*app_argv = argv;
		return;
	}
	*eal_argc = i;
	*eal_argv = argv;
	/* the app's argv: argv[0], then what follows "--" */
	argv[i] = argv[0];
	*app_argc = argc - i;
	*app_argv = &argv[i];
}

static volatile sig_atomic_t *signal_flag;
volatile sig_atomic_t app_usr1;

static void
on_signal(int sig)
{
	if (sig == SIGUSR1)
		app_usr1 = 1;
	else if (signal_flag != NULL)
		*signal_flag = 1;
}

void
app_print_version(const char *prog)
{
	printf("%s (ustack %s, %s)\n", prog, UST_APP_VERSION, rte_version());
}

void
app_catch_signals(volatile sig_atomic_t *flag)
{
	struct sigaction sa;

	signal_flag = flag;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	/* restarted: a read or a nanosleep of the main lcore goes on */
	sa.sa_flags = SA_RESTART;
	sigaction(SIGUSR1, &sa, NULL);
}

void
app_sleep(double seconds)
{
	struct timespec ts;

	if (seconds <= 0)
		return;
	ts.tv_sec = (time_t)seconds;
	ts.tv_nsec = (long)((seconds - (double)ts.tv_sec) * 1e9);
	nanosleep(&ts, NULL);
}

void
app_tx_opts_init(struct app_tx_opts *t)
{
	t->tx_layout = -1;
	t->copy_small = -1;
	t->first_linear_max = -1;
}

static int
tx_num(const char *prog, const char *flag, const char *v, uint32_t max)
{
	uint32_t n;

	if (ust_parse_u32(v, 0, max, &n) != 0)
		app_usage_error(prog, "%s %s: expected an integer from 0 to %u",
				flag, v, max);
	return (int)n;
}

bool
app_tx_opt_parse(const char *prog, struct app_tx_opts *t, int id,
		 const char *arg)
{
	switch (id) {
	case APP_O_TX_LAYOUT:
		t->tx_layout = ust_tcp_tx_layout_parse(arg);
		if (t->tx_layout < 0)
			app_usage_error(prog, "--tx-layout %s: expected "
					"linear, chained or first-linear", arg);
		return true;
	case APP_O_COPY_SMALL:
		t->copy_small = tx_num(prog, "--copy-small", arg,
				       UST_TCP_COPY_SMALL_MAX);
		return true;
	case APP_O_FIRST_LINEAR_MAX:
		t->first_linear_max = tx_num(prog, "--first-linear-max", arg,
					     UINT16_MAX);
		return true;
	}
	return false;
}

void
app_tx_opts_apply(const struct app_tx_opts *t, struct ust_config *cfg)
{
	if (t->tx_layout >= 0)
		cfg->stack.tcp.tx_layout = (uint8_t)t->tx_layout;
	if (t->copy_small >= 0)
		cfg->stack.tcp.copy_small = (uint16_t)t->copy_small;
	if (t->first_linear_max >= 0)
		cfg->stack.tcp.first_linear_max =
			(uint16_t)t->first_linear_max;
}

void
app_fault_check(const char *prog, const char *spec)
{
	struct ust_fault_conf fc;
	char err[160];

	ust_fault_conf_defaults(&fc);
	if (ust_fault_parse(spec, &fc, err, sizeof(err)) != 0)
		app_usage_error(prog, "--fault %s: %s", spec, err);
}
