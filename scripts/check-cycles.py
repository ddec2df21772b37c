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
route of one log line). The stages' #include "..." lines are edges too
(a source or header of one folder naming a header of another): a type
used one stage up belongs below its users, and an include that climbs a
stage is as wrong as a call that does. --allow-include FILE:HEADER keeps
one include out of the graph (a move still to come, said where it is
given). --layers "A B|C D" names the stages bottom up (peers on one
layer joined by |): then an edge, a call or an include, must also go
down a layer; one that goes up or across is reported like a circle
(two peers need not call each other to be wrong: export/ including a
store/ header closes no circle).

usage: check-cycles.py [--report] [--stages [--allow-include FILE:HEADER]...
                       [--layers "A B|C D"]] BUILDDIR DIR...
Prints every circle as its file names (with one needed symbol or include
per edge) and every edge against --layers; exits 1 on any unless
--report (then it only prints).
"""
import collections
import json
import os
import re
import subprocess
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)


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


def include_edges(srcroot, folders, allowed):
    """Edges folder -> folder of the #include "..." lines of every source
    and header in @folders (paths relative to @srcroot): {a: {b: why}}.
    A header is found beside the file including it, else by its name in
    one of the folders (each is on the include path); @allowed holds the
    (file, header) pairs left out."""
    where, files = {}, []
    for d in sorted(folders):
        for n in sorted(os.listdir(os.path.join(srcroot, d))):
            if n.endswith(('.c', '.h')):
                files.append(os.path.join(d, n))
                if n.endswith('.h'):
                    where.setdefault(n, d)
    edges = collections.defaultdict(dict)
    for f in files:
        d = os.path.dirname(f)
        with open(os.path.join(srcroot, f), encoding='utf-8') as fh:
            names = INCLUDE.findall(fh.read())
        for h in names:
            if (f, h) in allowed:
                continue
            if os.path.exists(os.path.join(srcroot, d, h)):
                to = d
            else:
                to = where.get(os.path.basename(h))
            if to and to != d:
                edges[d].setdefault(to, '%s: #include "%s"' % (os.path.basename(f), h))
    return edges


def circles(objects, group=None, extra=None):
    """Strongly connected components (size > 1) of one target's graph;
    with @group (object -> node name), of the graph between the nodes,
    with @extra's edges between nodes ({a: {b: why}}) beside the calls."""
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
        for a, to in (extra or {}).items():
            for b, why in to.items():
                nodes[a].setdefault(b, why)
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


def layer_of(layers):
    """{stage folder name: its layer's index, bottom 0} of --layers'
    text ("model process read store|export judge")."""
    return {name: i for i, layer in enumerate(layers.split())
            for name in layer.split('|')}


def against_layers(edges, rank):
    """The edges {a: {b: why}} between stages of @rank that do not go
    down a layer: [(a, b, why)]. Stages not in @rank are not judged."""
    bad = []
    for a in sorted(edges):
        for b, why in sorted(edges[a].items()):
            ra, rb = rank.get(os.path.basename(a)), rank.get(os.path.basename(b))
            if ra is not None and rb is not None and rb >= ra:
                bad.append((a, b, why))
    return bad


def main(argv):
    report = '--report' in argv
    stages = '--stages' in argv
    allowed, args, i, rank = set(), [], 0, {}
    while i < len(argv):
        a = argv[i]
        if a == '--allow-include' and i + 1 < len(argv) and ':' in argv[i + 1]:
            allowed.add(tuple(argv[i + 1].rsplit(':', 1)))
            i += 2
            continue
        if a == '--layers' and i + 1 < len(argv):
            rank = layer_of(argv[i + 1])
            i += 2
            continue
        if a not in ('--report', '--stages'):
            args.append(a)
        i += 1
    if len(args) < 2 or args[0].startswith('--'):
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
        extra = include_edges(srcroot, set(group.values()), allowed) if stages else None
        sccs, edges = circles(objs, group, extra)
        for comp in sccs:
            found += 1
            members = set(comp)
            print('circle in %s: %s' %
                  (target, ', '.join(sorted(name(o) for o in comp))))
            for a in comp:
                for b, sym in sorted(edges[a].items()):
                    if b in members:
                        print('  %s -> %s (%s)' % (name(a), name(b), sym))
        if stages and rank:
            for a, b, why in against_layers(edges, rank):
                found += 1
                print('not down a layer in %s: %s -> %s (%s)' % (target, a, b, why))
    if not found:
        print('check-cycles: no circles%s%s in %d targets under %s' %
              (' between folders' if stages else '',
               ', every edge down a layer' if stages and rank else '',
               len(checked), ' '.join(args[1:])))
    return 0 if report or not found else 1


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
