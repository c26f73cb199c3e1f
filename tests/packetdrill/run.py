#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the ustack authors
"""The packetdrill suite: upstream's TCP scripts and ustack's own, each run
against the kernel and against ustack (through the shim,
tests/packetdrill/shim), in a network namespace per run.

  run.py --shim build/tests/packetdrill/shim/ust_pd_shim.so \
         --work build/tests/packetdrill [--src DIR]
         [--ip-version ipv4|ipv6|ipv4-mapped-ipv6] [SCRIPT...]

It builds packetdrill from an unmodified upstream tree (--src, else
$PACKETDRILL_SRC, else ../shared/packetdrill next to the source tree) into
WORK with -fPIC (packetdrill dlopens the shim with RTLD_DEEPBIND: a
non-PIC binary gives EAL a different `optarg`) and the patches in
patches/, copies the scripts there, and prints one line per script:
script, kernel, ustack. It exits 1 when ustack fails a script that the
kernel passes and that neither deviations.txt (deliberate differences,
each with its reason) nor todo.txt (what ustack does not implement yet,
each with what is missing) lists, 77 (skip) when it
cannot run (no packetdrill source, not root, no tun), 0 otherwise.

Scripts: inscope.txt names the upstream scripts (paths under
gtests/net/tcp/ or globs); out-of-scope.txt gives each directory left
out and why; scripts/*.pkt are ustack's own. Both runs use the RFC 2544
addresses 198.18.0.2 (local) and 198.19.0.1 (remote): no packet leaves
the namespace.

--ip-version runs the same scripts as upstream's run_all.py runs them in
its three variants (a script named *v6.pkt only over IPv6, *v4.pkt never
over IPv6): ipv4 (the default); ipv6, with RFC 5180's 2001:2::2 (local,
packetdrill's /48), 2001:2::1 (gateway) and 2001:2:0:1::1 (remote), and
an MTU of 1520 so that the scripts' MSS of 1460 holds; ipv4-mapped-ipv6,
AF_INET6 sockets with IPv4-mapped addresses over IPv4 packets. A list
entry applies to every variant, or to one when it is written
`ipv6:script` (or `ipv4-mapped-ipv6:script`). The kernel runs are real time (several in parallel,
a failure retried once alone, as the kernel is the reference and is
not what is judged); the ustack runs are virtual time and deterministic.
"""

import argparse
import concurrent.futures
import fnmatch
import os
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ADDRS4 = ['--local_ip=198.18.0.2', '--netmask_ip=255.255.255.0',
          '--gateway_ip=198.18.0.1', '--remote_ip=198.19.0.1']
# packetdrill's options for each variant, then the shim's --so_flags
VARIANTS = {
    'ipv4': (ADDRS4, None),
    'ipv6': (['--ip_version=ipv6', '--mtu=1520', '--local_ip=2001:2::2',
              '--gateway_ip=2001:2::1', '--remote_ip=2001:2:0:1::1',
              '-D', 'CMSG_LEVEL_IP=SOL_IPV6',
              '-D', 'CMSG_TYPE_RECVERR=IPV6_RECVERR'],
             'local_ip6=2001:2::2,prefix6=48,gateway_ip6=2001:2::1,'
             'mtu=1520'),
    'ipv4-mapped-ipv6': (['--ip_version=ipv4-mapped-ipv6'] + ADDRS4 +
                         ['-D', 'CMSG_LEVEL_IP=SOL_IPV6',
                          '-D', 'CMSG_TYPE_RECVERR=IPV6_RECVERR'],
                         'ip6=1'),
}
SKIP = 77
# runs alone that confirm a kernel pass ustack does not match
KERNEL_CONFIRM = 2


def die_skip(msg):
    print('packetdrill suite: SKIP: ' + msg, flush=True)
    sys.exit(SKIP)


def read_list(path):
    out = []
    if not os.path.exists(path):
        return out
    with open(path) as f:
        for line in f:
            line = line.split('#', 1)[0].strip()
            if line:
                out.append(line)
    return out


def read_reasons(name, variant):
    """NAME's entries (script, then why) for VARIANT: those written
    `variant:script` and those with no variant."""
    out = {}
    for line in read_list(os.path.join(HERE, name)):
        script, _, why = line.partition(' ')
        v, sep, rest = script.partition(':')
        if sep:
            if v not in VARIANTS:
                print('packetdrill suite: %s: unknown variant in %s' % (
                    name, script))
                sys.exit(1)
            if v != variant:
                continue
            script = rest
        out[script] = why.strip()
    return out


def find_src(arg):
    cands = []
    if arg:
        cands.append(arg)
    if os.environ.get('PACKETDRILL_SRC'):
        cands.append(os.environ['PACKETDRILL_SRC'])
    root = os.path.dirname(os.path.dirname(HERE))
    cands.append(os.path.join(root, '..', 'shared', 'packetdrill'))
    # the shared tree of this workplace, for clones made elsewhere
    cands.append('/work/shared/packetdrill')
    for c in cands:
        if os.path.exists(os.path.join(c, 'gtests', 'net', 'packetdrill',
                                       'packetdrill.c')):
            return os.path.abspath(c)
    die_skip('no packetdrill source (tried %s; set PACKETDRILL_SRC to an '
             'upstream google/packetdrill tree)' % ', '.join(cands))


def build_packetdrill(src, work):
    """Copy upstream into WORK, patch it, make it with -fPIC; reuse a build
    whose source, patches and stamp agree."""
    tree = os.path.join(work, 'packetdrill-src')
    stamp = os.path.join(work, 'packetdrill.stamp')
    patches = sorted(p for p in os.listdir(os.path.join(HERE, 'patches'))
                     if p.endswith('.patch'))
    key = src + '\n' + '\n'.join(
        p + ':' + str(os.path.getmtime(os.path.join(HERE, 'patches', p)))
        for p in patches)
    binary = os.path.join(tree, 'gtests', 'net', 'packetdrill', 'packetdrill')
    if os.path.exists(stamp) and os.path.exists(binary):
        with open(stamp) as f:
            if f.read() == key:
                return tree, binary
    for tool in ('bison', 'flex', 'make', 'patch'):
        if shutil.which(tool) is None:
            die_skip('%s is not installed (devtools/common.sh installs it)'
                     % tool)
    shutil.rmtree(tree, ignore_errors=True)
    shutil.copytree(src, tree, symlinks=True,
                    ignore=shutil.ignore_patterns('.git', '*.o'))
    for p in patches:
        subprocess.run(['patch', '-s', '-p1', '-i',
                        os.path.join(HERE, 'patches', p)],
                       cwd=tree, check=True)
    pd = os.path.join(tree, 'gtests', 'net', 'packetdrill')
    r = subprocess.run(['make', '-s', '-f', 'Makefile.Linux', '-j2',
                        'CC=cc -fPIC', 'packetdrill'], cwd=pd,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True)
    if r.returncode != 0:
        print(r.stdout)
        print('packetdrill suite: building packetdrill failed', flush=True)
        sys.exit(1)
    # the scripts' helpers must be executable wherever the tree came from
    for d, _, files in os.walk(os.path.join(tree, 'gtests')):
        for f in files:
            if f.endswith('.sh'):
                os.chmod(os.path.join(d, f), 0o755)
    with open(stamp, 'w') as f:
        f.write(key)
    return tree, binary


def scripts_to_run(tree, args):
    tcp = os.path.join(tree, 'gtests', 'net', 'tcp')
    every = []
    for d, _, files in os.walk(tcp):
        for f in files:
            if f.endswith('.pkt'):
                every.append(os.path.relpath(os.path.join(d, f), tcp))
    every.sort()
    own_dir = os.path.join(HERE, 'scripts')
    own = sorted(f for f in os.listdir(own_dir) if f.endswith('.pkt')) \
        if os.path.isdir(own_dir) else []
    pats = read_list(os.path.join(HERE, 'inscope.txt'))
    chosen = [s for s in every if any(fnmatch.fnmatch(s, p) for p in pats)]
    out = [('upstream', s, os.path.join(tcp, s)) for s in chosen]
    # ustack's scripts run from a copy beside upstream's, so that their
    # `../common/defaults.sh` is upstream's
    mine = os.path.join(tcp, 'ustack')
    os.makedirs(mine, exist_ok=True)
    for f in own:
        shutil.copy(os.path.join(own_dir, f), os.path.join(mine, f))
        out.append(('ustack', 'ustack/' + f, os.path.join(mine, f)))
    # upstream's run_all.py: *v6.pkt over IPv6 only, *v4.pkt never there
    if args.ip_version == 'ipv6':
        out = [o for o in out if not o[1].endswith('v4.pkt')]
    else:
        out = [o for o in out if not o[1].endswith('v6.pkt')]
    if args.scripts:
        out = [o for o in out
               if any(fnmatch.fnmatch(o[1], p) or o[1].endswith(p)
                      for p in args.scripts)]
    return out


def in_netns(name, cmd, cwd, timeout, tun):
    """Run CMD in a new namespace NAME (loopback up; a persistent tun0
    for the shim's runs, which packetdrill's defaults.sh shapes with tc)."""
    subprocess.run(['ip', 'netns', 'del', name], stderr=subprocess.DEVNULL)
    subprocess.run(['ip', 'netns', 'add', name], check=True)
    try:
        setup = 'ip link set lo up'
        if tun:
            setup += ' && ip tuntap add dev tun0 mode tun && ' \
                     'ip link set tun0 up'
        sh = setup + ' && exec "$@"'
        # ip netns exec and sh both exec: the child's pid is packetdrill's,
        # the PACKETDRILL_PID its scripts' set_sysctls.py names
        # /tmp/sysctl_restore_<pid>.sh after; remove that file once done
        p = subprocess.Popen(['ip', 'netns', 'exec', name, 'sh', '-c', sh,
                              'sh'] + cmd, cwd=cwd,
                             stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT,
                             universal_newlines=True)
        try:
            out, _ = p.communicate(timeout=timeout)
            return p.returncode, out
        except subprocess.TimeoutExpired:
            p.kill()
            out, _ = p.communicate()
            return -1, (out or '') + '\n(timed out after %d s)' % timeout
        finally:
            try:
                os.unlink('/tmp/sysctl_restore_%d.sh' % p.pid)
            except OSError:
                pass
    finally:
        subprocess.run(['ip', 'netns', 'del', name],
                       stderr=subprocess.DEVNULL)


def run_one(binary, shim, path, mode, idx, variant):
    opts, so_flags = VARIANTS[variant]
    cmd = [binary] + opts
    if mode == 'ustack':
        cmd += ['--so_filename=' + shim]
        if so_flags:
            cmd += ['--so_flags=' + so_flags]
    cmd.append(os.path.basename(path))
    ns = 'ustpd%d_%s%s_%d' % (os.getpid(), mode[0],
                              {'ipv4': '4', 'ipv6': '6'}.get(variant, 'm'),
                              idx)
    # a ustack run is virtual time: seconds of wall clock at most
    return in_netns(ns, cmd, os.path.dirname(path),
                    120 if mode == 'ustack' else 300, mode == 'ustack')


def first_error(out):
    for line in out.splitlines():
        if 'error' in line or 'timed out' in line or 'fail' in line.lower():
            return line.strip()
    lines = out.strip().splitlines()
    return lines[-1].strip() if lines else ''


def allow_cubic():
    """The scripts' defaults.sh selects cubic; a namespace may only pick a
    congestion control in the host's allowed list. Add cubic (when the
    kernel has it) for the run; the caller restores the old list."""
    path = '/proc/sys/net/ipv4/tcp_allowed_congestion_control'
    try:
        with open(path) as f:
            old = f.read().strip()
        with open('/proc/sys/net/ipv4/tcp_available_congestion_control') \
                as f:
            avail = f.read().split()
    except OSError:
        return None
    if 'cubic' in old.split() or 'cubic' not in avail:
        return None
    with open(path, 'w') as f:
        f.write(old + ' cubic')
    return old


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--shim', required=True)
    ap.add_argument('--work', required=True)
    ap.add_argument('--src')
    ap.add_argument('--jobs', type=int, default=4,
                    help='kernel runs in parallel (default 4)')
    ap.add_argument('--ip-version', choices=sorted(VARIANTS),
                    default='ipv4',
                    help='the variant packetdrill runs (default ipv4)')
    ap.add_argument('--ustack-only', action='store_true',
                    help='skip the kernel runs (every script judged)')
    ap.add_argument('-v', '--verbose', action='store_true',
                    help='print the output of every failing run')
    ap.add_argument('scripts', nargs='*')
    args = ap.parse_args()
    args.shim = os.path.abspath(args.shim)

    if os.geteuid() != 0:
        die_skip('needs root (network namespaces)')
    if not os.path.exists('/dev/net/tun'):
        die_skip('no /dev/net/tun')
    if not os.path.exists(args.shim):
        print('packetdrill suite: no shim at %s' % args.shim)
        return 1
    src = find_src(args.src)
    os.makedirs(args.work, exist_ok=True)
    tree, binary = build_packetdrill(src, os.path.abspath(args.work))
    scripts = scripts_to_run(tree, args)
    deviations = read_reasons('deviations.txt', args.ip_version)
    todo = read_reasons('todo.txt', args.ip_version)
    print('packetdrill suite: %s (patched), %d scripts, %s' % (
        src, len(scripts), args.ip_version), flush=True)

    t0 = time.time()
    old_cc = allow_cubic()
    try:
        kern = {}
        if not args.ustack_only:
            with concurrent.futures.ThreadPoolExecutor(args.jobs) as ex:
                futs = {ex.submit(run_one, binary, args.shim, p, 'kernel',
                                  i, args.ip_version): name
                        for i, (_, name, p) in enumerate(scripts)}
                for f in concurrent.futures.as_completed(futs):
                    kern[futs[f]] = f.result()
            # the kernel is the reference: a failure under parallel load
            # gets one more try alone
            for i, (_, name, p) in enumerate(scripts):
                if kern[name][0] != 0:
                    kern[name] = run_one(binary, args.shim, p, 'kernel', i,
                                         args.ip_version)
        ust = {}
        with concurrent.futures.ThreadPoolExecutor(2) as ex:
            futs = {ex.submit(run_one, binary, args.shim, p, 'ustack', i,
                              args.ip_version):
                    name for i, (_, name, p) in enumerate(scripts)}
            for f in concurrent.futures.as_completed(futs):
                ust[futs[f]] = f.result()
        # a kernel pass that ustack does not match (and that no list
        # explains) is the reference only if the kernel keeps it alone: a
        # script whose timing the kernel meets only under the suite's
        # parallel load (its timers slip then) is reported, not judged
        flaky = set()
        if not args.ustack_only:
            for i, (origin, name, p) in enumerate(scripts):
                if origin == 'upstream' and kern[name][0] == 0 and \
                        ust[name][0] != 0 and name not in deviations and \
                        name not in todo:
                    for _ in range(KERNEL_CONFIRM):
                        r = run_one(binary, args.shim, p, 'kernel', i,
                                    args.ip_version)
                        if r[0] != 0:
                            flaky.add(name)
                            kern[name] = r
                            break
    finally:
        if old_cc is not None:
            with open('/proc/sys/net/ipv4/tcp_allowed_congestion_control',
                      'w') as f:
                f.write(old_cc)

    bad = []
    stale = []
    n_kpass = n_upass = n_both = 0
    width = max([len(s[1]) for s in scripts] + [10])
    print('%-*s  %-6s  %-6s  %s' % (width, 'script', 'kernel', 'ustack',
                                    'note'))
    for origin, name, _ in scripts:
        k = None if args.ustack_only else kern[name][0] == 0
        u = ust[name][0] == 0
        if name in flaky:
            k = None
        n_kpass += bool(k)
        n_upass += u
        n_both += bool(k) and u
        note = ''
        if not u:
            note = first_error(ust[name][1])
        judged = k or args.ustack_only or origin == 'ustack'
        if judged and not u:
            if name in deviations:
                note = 'deviation: ' + deviations[name]
            elif name in todo:
                note = 'todo: ' + todo[name]
            else:
                bad.append(name)
                note = 'FAIL: ' + note
        elif u and (name in deviations or name in todo):
            stale.append(name)
        if origin == 'ustack' and k is False:
            # ustack's own scripts must describe Linux's behaviour
            bad.append(name)
            note = 'FAIL: kernel fails our script: ' + \
                first_error(kern[name][1])
        if name in flaky:
            note = 'not judged: the kernel passes it under load only (' + \
                first_error(kern[name][1]) + ')'
        print('%-*s  %-6s  %-6s  %s' % (
            width, name, 'flaky' if name in flaky else
            ('-' if k is None else ('pass' if k else 'fail')),
            'pass' if u else 'fail', note[:110]), flush=True)
        if args.verbose and (not u or k is False):
            out = ust[name][1] if not u else kern[name][1]
            print('    | ' + '\n    | '.join(out.strip().splitlines()[-12:]))
    print('packetdrill suite: %d scripts; kernel passes %d, ustack %d, both '
          '%d; %d deviations and %d to-dos listed; %d not judged (the '
          'kernel passes them under load only); %.0f s' % (
              len(scripts), n_kpass, n_upass, n_both, len(deviations),
              len(todo), len(flaky), time.time() - t0))
    for s in stale:
        print('packetdrill suite: note: %s passes now; take it off '
              'deviations.txt / todo.txt' % s)
    if bad:
        print('packetdrill suite: FAILED: ' + ' '.join(bad))
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
