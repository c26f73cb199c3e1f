#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the ustack authors
"""Which component of libustack uses which, at link level: for every
component's static library (lib/<c>/libust_<c>.a, drivers/<c>/libust_<c>.a,
as lib/meson.build builds them), the symbols it needs that another
component defines (nm). Prints one line per edge and, with --check, exits
1 when the edges form a cycle (a component using one that uses it back,
directly or around a loop), naming the cycle. Run as the unit test
"layers".

    layer-graph.py [--check] [--src ROOT] libust_wire.a libust_core.a ...

With --src, the sources under ROOT/lib and ROOT/drivers are also checked
for a relative include ("../x/y.h"), which would reach another
component's header past the include directories the build gives each
component.
"""
import collections
import os
import re
import subprocess
import sys


def main():
    args = sys.argv[1:]
    check = "--check" in args
    src = None
    if "--src" in args:
        i = args.index("--src")
        src = args[i + 1]
        del args[i:i + 2]
    archives = [a for a in args if a != "--check"]
    bad = 0
    if src is not None:
        for top in ("lib", "drivers"):
            for dp, _, fs in os.walk(os.path.join(src, top)):
                for f in fs:
                    if not f.endswith((".c", ".h")):
                        continue
                    path = os.path.join(dp, f)
                    for n, line in enumerate(open(path), 1):
                        if re.match(r'\s*#\s*include\s+"\.\./', line):
                            print(f"{path}:{n}: relative include: "
                                  f"{line.strip()}", file=sys.stderr)
                            bad = 1
    defs, undefs = {}, collections.defaultdict(set)
    for a in archives:
        m = re.match(r"libust_([a-z]+)\.a$", os.path.basename(a))
        if not m:
            print(f"not a component library: {a}", file=sys.stderr)
            return 2
        c = m.group(1)
        out = subprocess.run(["nm", a], capture_output=True, text=True,
                             check=True).stdout
        for line in out.splitlines():
            p = line.split()
            if len(p) == 3 and p[1] in "TDBRC":
                defs[p[2]] = c
            elif len(p) == 2 and p[0] == "U":
                undefs[c].add(p[1])
    if not defs:
        print("no component libraries given", file=sys.stderr)
        return 2
    edges = collections.defaultdict(lambda: collections.defaultdict(list))
    for c, us in undefs.items():
        for u in us:
            if u in defs and defs[u] != c:
                edges[c][defs[u]].append(u)
    for c in sorted(edges):
        for t in sorted(edges[c]):
            syms = sorted(edges[c][t])
            more = " ..." if len(syms) > 4 else ""
            print(f"{c:7s} -> {t:7s} {len(syms):3d}  "
                  f"{' '.join(syms[:4])}{more}")
    if not check:
        return bad
    # a cycle, found by depth-first search
    state, stack = {}, []

    def dfs(n):
        state[n] = 1
        stack.append(n)
        for t in sorted(edges.get(n, {})):
            if state.get(t) == 1:
                return stack[stack.index(t):] + [t]
            if t not in state:
                cyc = dfs(t)
                if cyc:
                    return cyc
        stack.pop()
        state[n] = 2
        return None

    for n in sorted(edges):
        if n not in state:
            cyc = dfs(n)
            if cyc:
                print("cycle: " + " -> ".join(cyc), file=sys.stderr)
                return 1
    print("the components form a DAG")
    return bad


if __name__ == "__main__":
    sys.exit(main())
