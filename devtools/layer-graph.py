#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the ustack authors
"""Which component of libustack uses which, at link level: for every
object of the library (named lib_<component>_<file>.c.o or
drivers_<component>_...), the symbols it needs that another component
defines (nm). Prints one line per edge and, with --check, exits 1 when the
edges form a cycle (a component using one that uses it back, directly or
around a loop), naming the cycle. Run as the unit test "layers".

    layer-graph.py [--check] libustack.a
"""
import collections
import os
import re
import subprocess
import sys


def main():
    check = "--check" in sys.argv
    d = [a for a in sys.argv[1:] if a != "--check"][0]
    defs, undefs = {}, collections.defaultdict(set)
    # nm -A: "ARCHIVE:MEMBER:VALUE TYPE NAME", or "ARCHIVE:MEMBER: U NAME"
    out = subprocess.run(["nm", "-A", d], capture_output=True, text=True,
                         check=True).stdout
    for line in out.splitlines():
        where, _, rest = line.rpartition(".o:")
        m = re.match(r"(lib|drivers)_([a-z]+)_", where.split(":")[-1])
        if not m:
            continue
        c = m.group(2)
        p = rest.split()
        if len(p) == 3 and p[1] in "TDBRC":
            defs[p[2]] = c
        elif len(p) == 2 and p[0] == "U":
            undefs[c].add(p[1])
    if not defs:
        print(f"no ustack objects in {d}", file=sys.stderr)
        return 1
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
        return 0
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
    return 0


if __name__ == "__main__":
    sys.exit(main())
