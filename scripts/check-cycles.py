#!/usr/bin/env python3
"""Find dependency circles between the object files of each target.

An edge A -> B means A's object needs a symbol (nm: U) that B's object of
the same target defines. A circle is a strongly connected component with
more than one file. Targets come from <builddir>/compile_commands.json;
a target is checked when its sources lie under one of the directories
given (relative to the source root).

With --stages, the nodes are the folders the files are in (lib/report's
stages: read, model, process, store, judge, export): a file of one stage
that calls a second stage, some file of which calls back into the first,
is a circle although no two files call each other (doc/hacking.rst, the
route of one log line).

usage: check-cycles.py [--report] [--stages] BUILDDIR DIR...
Prints every circle as its file names (with one needed symbol per edge);
exits 1 on any unless --report (then it only prints).
"""
import collections
import json
import os
import subprocess
import sys


def nm_symbols(path):
    """Return (defined, undefined) global symbol sets of one object."""
    out = subprocess.run(['nm', '-P', path], check=True,
                         capture_output=True, text=True).stdout
    defined, undefined = set(), set()
    for line in out.splitlines():
        f = line.split()
        if len(f) < 2:
            continue
        name, kind = f[0], f[1]
        if kind == 'U':
            undefined.add(name)
        elif kind.isupper() or kind in 'uvw':
            defined.add(name)
    return defined, undefined


def targets(builddir, srcroot, dirs):
    """Map target (its .p directory) -> {object path: source path}."""
    with open(os.path.join(builddir, 'compile_commands.json')) as f:
        commands = json.load(f)
    by_target = collections.defaultdict(dict)
    for c in commands:
        src = os.path.relpath(os.path.join(c['directory'], c['file']), srcroot)
        if not any(src == d or src.startswith(d.rstrip('/') + '/') for d in dirs):
            continue
        obj = os.path.join(c['directory'], c['output'])
        by_target[os.path.dirname(c['output'])][obj] = src
    return by_target


def circles(objects, group=None):
    """Strongly connected components (size > 1) of one target's graph;
    with @group (object -> node name), of the graph between the nodes."""
    syms = {o: nm_symbols(o) for o in objects}
    owner = {}
    for o, (defined, _) in syms.items():
        for s in defined:
            owner.setdefault(s, o)
    edges = collections.defaultdict(dict)
    for o, (_, undefined) in syms.items():
        for s in sorted(undefined):
            b = owner.get(s)
            if b and b != o:
                edges[o].setdefault(b, s)
    if group:
        nodes = collections.defaultdict(dict)
        for a in edges:
            for b, sym in edges[a].items():
                if group[a] != group[b]:
                    nodes[group[a]].setdefault(group[b], '%s: %s' % (
                        os.path.basename(a), sym))
        objects, edges = set(group.values()), nodes
    # Tarjan's algorithm, iterative so deep graphs cannot hit the limit.
    index, low, on_stack, stack, sccs = {}, {}, set(), [], []
    for root in sorted(objects):
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(edges[w]))))
                elif w in on_stack:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    sccs.append(sorted(comp))
    return sccs, edges


def main(argv):
    report = '--report' in argv
    stages = '--stages' in argv
    args = [a for a in argv if a not in ('--report', '--stages')]
    if len(args) < 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    builddir = os.path.abspath(args[0])
    srcroot = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    found = 0
    checked = targets(builddir, srcroot, args[1:])
    if not checked:
        print('check-cycles: no objects under %s in %s' %
              (' '.join(args[1:]), builddir), file=sys.stderr)
        return 2
    for target, objs in sorted(checked.items()):
        group = {o: os.path.dirname(src) for o, src in objs.items()} if stages else None
        name = (lambda n: n) if stages else (lambda o: objs[o])
        sccs, edges = circles(objs, group)
        for comp in sccs:
            found += 1
            members = set(comp)
            print('circle in %s: %s' %
                  (target, ', '.join(sorted(name(o) for o in comp))))
            for a in comp:
                for b, sym in sorted(edges[a].items()):
                    if b in members:
                        print('  %s -> %s (%s)' % (name(a), name(b), sym))
    if not found:
        print('check-cycles: no circles%s in %d targets under %s' %
              (' between folders' if stages else '', len(checked), ' '.join(args[1:])))
    return 0 if report or not found else 1


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
