#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""CV across runs of per-run estimates of the own cost (cpu.cost.test) from a
recording of 5 repeats a run: best/median/mean of the first 3 and of all 5,
with the successive-difference CV (slow drift left out) and over the runs
whose steal stayed at or below 0.01 CPU (issue 21). Usage:
    bench/analyse/quiet_repeats.py bench/corpus/interference-2026-12-02-quiet4s.jsonl
"""
import json,collections,statistics as st,sys
runs=collections.defaultdict(list)
for l in open(sys.argv[1]):
    d=json.loads(l); runs[d['round']].append(d)
rs=[sorted(v,key=lambda r:r['repeat']) for k,v in sorted(runs.items()) if len(v)==5]
def cv(x): return st.pstdev(x)/st.mean(x)*100
def sd_cv(x):
    d=[x[i+1]-x[i] for i in range(len(x)-1)]; return (sum(a*a for a in d)/(2*len(d)))**0.5/st.mean(x)*100
for name,f in (("best of 5",lambda v:min(r['cost_test'] for r in v)),("best of 3",lambda v:min(r['cost_test'] for r in v[:3])),
               ("median of 5",lambda v:st.median(r['cost_test'] for r in v)),("mean of 5",lambda v:st.mean(r['cost_test'] for r in v)),
               ("median of 3",lambda v:st.median(r['cost_test'] for r in v[:3])),("mean of 3",lambda v:st.mean(r['cost_test'] for r in v[:3]))):
    x=[f(v) for v in rs]
    steal=[st.mean(r['steal'] for r in v) for v in rs]
    q=[a for a,s in zip(x,steal) if s<=0.01]
    print(f"{name:12s} runs {len(x)}  CV {cv(x):.1f}%  succ-diff {sd_cv(x):.1f}%  steal<=0.01: {len(q)} runs CV {cv(q):.1f}%  mean {st.mean(x):.3f}")
x=[max(r['gbps'] for r in v) for v in rs]; print("gbps best of 5 CV %.1f%%" % cv(x))
x=[min(r['cost_host'] for r in v) for v in rs]; print("host cost best of 5 CV %.1f%%" % cv(x))
loads=[r['load1'] for v in rs for r in v]; print("load", min(loads), max(loads), st.median(loads))
