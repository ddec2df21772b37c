#!/usr/bin/env python3
"""The theoretical bound for issue 40's drifting single-run history: how
early can ANY detector flag the tbf caps of bench/corpus/iperf3-tbf-2026-12-03.jsonl
at the gate's false-alarm rate?

1. The noise model. The 40 unchanged runs' log throughput fitted as AR(1)
   (x_t - mu = phi (x_{t-1} - mu) + e_t, least squares) and as a local
   level (random walk plus noise: x_t = l_t + eps_t, l_t = l_{t-1} + eta_t,
   maximum likelihood by the Kalman filter, diffuse start), both on the
   same 39 runs after the first; which fits better by the likelihood (AIC)
   and by the residuals' autocorrelation (Ljung-Box). The same two fits on
   every unchanged stream of the seven recordings the gate is calibrated
   on.
2. The Neyman-Pearson bound. A lasting drop delta (log) shows in the
   model's innovations as a known signature: AR(1): delta, then
   delta (1 - phi) every run (the value moves at once; the prediction
   from the run before, already moved, explains phi of it after); local
   level: delta (1 - K)^(j-1) (the filter's gain K absorbs it). A detector
   told the change's size AND its run, testing the n runs since at the
   gate's per-run rate alpha, has power Phi(sqrt(D_n) - z_alpha) with D_n
   the signature's energy in innovation sd units: no detector failing
   alpha of unchanged runs fails the n-th changed run more often, on
   Gaussian noise of that model. A first alarm in runs 1..n is a test at
   level n alpha at most (the union), so Phi(sqrt(D_n) - z_(n alpha))
   bounds it.
3. Detectors that exploit the autocorrelation, with the model fitted to
   each stream's own unchanged runs (an oracle of the null model): the
   oracle CUSUM, told the size but not the run (the largest likelihood
   ratio over the change's start in the last 30 runs, on the
   innovations), and the prewhitened run alone (the run's innovation: the
   drop's first-run spike is most of its signature); Perfherder's t beside
   them. Each threshold h is set so that the detector fails RATE of the
   runs (every run while its statistic is at or above h, from a stream's
   6th run, as the gate's rate counts) on the 4,993 recorded unchanged
   runs of the seven recordings (bench/analyse/calibrate_references.py's
   streams, throughput alone, one repeat a run; Perfherder's 4.72 is that
   script's), and as a check on unchanged histories simulated from the
   tbf fit with the noise of the changed ones. Their first alarms on the
   recording, and their expected first alarms over histories simulated
   from the fit (Gaussian noise, and the fit's own residuals resampled:
   40 runs, then 12 moved by delta).

Pure Python (no numpy on the build machine); deterministic (seeded).

Usage: bench/analyse/drift_bound.py [RATE [TBF.jsonl CORPUS.jsonl...]]
       (RATE 0.0094, the gate's rate at r = 1; the corpora of
       doc/regression-gate.rst's C without the calib recording)
"""
import json
import math
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import calibrate_references as cal  # noqa: E402

WINDOW = 30             # the oracle's reach back for the change's start
CAPS = ((90, -0.26), (95, -0.18))       # cap % of the median, the capped runs' mean drop
N_SIM = 2000            # simulated histories per case
N_NULL = 1500           # simulated null streams of 52 runs for the check of h
FIRST = 5               # runs counted from the 6th, as the gate's rates and the references'
CORPORA = ["bench/corpus/iperf3-netns-2026-12-01.jsonl", "bench/corpus/interference-2026-12-01.jsonl",
           "bench/corpus/doses-2026-12-01.jsonl", "bench/corpus/interference-2026-12-02.jsonl",
           "bench/corpus/interference-2026-12-02-quiet.jsonl",
           "bench/corpus/interference-2026-12-02-quiet4s.jsonl",
           "bench/corpus/interference-2026-12-02-placement.jsonl"]


# --- distributions ------------------------------------------------------------

def phi_cdf(z):
    return 0.5 * math.erfc(-z / math.sqrt(2))


def z_upper(p):
    """z with P(Z > z) = p, by bisection."""
    lo, hi = -10.0, 10.0
    for _ in range(200):
        mid = (lo + hi) / 2
        if 1 - phi_cdf(mid) > p:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def chi2_sf(x, k):
    """P(chi2_k > x): the regularised upper gamma Q(k/2, x/2)."""
    a, x = k / 2.0, x / 2.0
    if x <= 0:
        return 1.0
    if x < a + 1:       # the series for P, then 1 - P
        term = s = 1.0 / a
        n = a
        while term > s * 1e-15:
            n += 1
            term *= x / n
            s += term
        return 1 - s * math.exp(-x + a * math.log(x) - math.lgamma(a))
    b, c, d = x + 1 - a, 1e300, 1 / (x + 1 - a)  # Lentz's continued fraction for Q
    h = d
    for i in range(1, 500):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = 1 / (d if abs(d) > 1e-300 else 1e-300)
        c = b + an / c
        c = c if abs(c) > 1e-300 else 1e-300
        h *= d * c
        if abs(d * c - 1) < 1e-15:
            break
    return math.exp(-x + a * math.log(x) - math.lgamma(a)) * h


def acf(e, k):
    m = sum(e) / len(e)
    c0 = sum((v - m) ** 2 for v in e)
    return sum((e[i] - m) * (e[i + k] - m) for i in range(len(e) - k)) / c0 if c0 > 0 else 0.0


def ljung_box(e, lags, fitted):
    n = len(e)
    q = n * (n + 2) * sum(acf(e, k) ** 2 / (n - k) for k in range(1, lags + 1))
    return q, chi2_sf(q, lags - fitted)


def kurtosis(e):
    m = sum(e) / len(e)
    v = sum((a - m) ** 2 for a in e) / len(e)
    return sum((a - m) ** 4 for a in e) / len(e) / v ** 2 - 3 if v > 0 else 0.0


# --- the two noise models ----------------------------------------------------

class Ar1:
    name = "AR(1)"
    params = 3

    def __init__(self, x):
        y, z = x[1:], x[:-1]
        my, mz = sum(y) / len(y), sum(z) / len(z)
        szz = sum((a - mz) ** 2 for a in z)
        self.phi = sum((a - mz) * (b - my) for a, b in zip(z, y)) / szz if szz > 0 else 0.0
        self.phi = min(self.phi, 0.999)
        c = my - self.phi * mz
        self.mu = c / (1 - self.phi)
        e = [b - c - self.phi * a for a, b in zip(z, y)]
        self.sigma = math.sqrt(sum(v * v for v in e) / len(e))
        self.loglik = -0.5 * len(e) * (math.log(2 * math.pi * self.sigma ** 2) + 1)
        self.resid = [v / self.sigma for v in e]

    def describe(self):
        return "phi %.3f, mu %.3f, innovation sd %.3f (stationary sd %.3f)" % (
            self.phi, self.mu, self.sigma, self.sigma / math.sqrt(max(1e-9, 1 - self.phi ** 2)))

    def innovations(self, x):
        """Standardised one-step residuals of x (from its 2nd value) under the fit."""
        return [((x[t] - self.mu) - self.phi * (x[t - 1] - self.mu)) / self.sigma
                for t in range(1, len(x))]

    def signature(self, delta, n):
        """The mean of the innovations j = 1..n runs into a lasting shift delta."""
        return [delta / self.sigma] + [delta * (1 - self.phi) / self.sigma] * (n - 1)

    def simulate(self, n, rng, shift_at=None, delta=0.0, draw=None):
        """At n runs, the measured value moved by delta from shift_at on (a
        cap moves the value at once, not the mean the noise reverts to);
        draw (a standardised residual) replaces the Gaussian when given."""
        x, y = [], rng.gauss(0, self.sigma / math.sqrt(max(1e-9, 1 - self.phi ** 2)))
        for t in range(n):
            y = self.phi * y + self.sigma * (draw() if draw else rng.gauss(0, 1))
            x.append(self.mu + y + (delta if shift_at is not None and t >= shift_at else 0.0))
        return x


def kalman(x, q):
    """Local level filter at sigma_eps = 1, diffuse start: the innovations
    v_t and their variances F_t (t = 2..n), and the steady gain."""
    a, p = x[0], 1.0 + q
    v, f = [], []
    for t in range(1, len(x)):
        ft = p + 1.0
        vt = x[t] - a
        k = p / ft
        a += k * vt
        p = p * (1 - k) + q
        v.append(vt)
        f.append(ft)
    return v, f


class LocalLevel:
    name = "local level"
    params = 2

    def __init__(self, x):
        best = None
        for i in range(-60, 61):      # q = sigma_eta^2 / sigma_eps^2 from 1e-3 to 1e3
            q = 10 ** (i / 20.0)
            ll = self._profile(x, q)
            if best is None or ll > best[0]:
                best = (ll, q)
        lo, hi = best[1] / 10 ** 0.05, best[1] * 10 ** 0.05
        for _ in range(60):             # golden section on log q
            m1, m2 = lo * (hi / lo) ** 0.382, lo * (hi / lo) ** 0.618
            if self._profile(x, m1) > self._profile(x, m2):
                hi = m2
            else:
                lo = m1
        self.q = math.sqrt(lo * hi)
        self.loglik = self._profile(x, self.q)
        v, f = kalman(x, self.q)
        self.eps2 = sum(a * a / b for a, b in zip(v, f)) / len(v)
        self.resid = [a / math.sqrt(b * self.eps2) for a, b in zip(v, f)]
        p = self.q          # the steady predicted state variance (sigma_eps = 1)
        for _ in range(1000):
            p = p * (1 - p / (p + 1)) + self.q
        self.gain = p / (p + 1)
        self.f = (p + 1) * self.eps2

    @staticmethod
    def _profile(x, q):
        v, f = kalman(x, q)
        s2 = sum(a * a / b for a, b in zip(v, f)) / len(v)
        if not s2 > 0:
            return -1e300
        return -0.5 * (len(v) * (math.log(2 * math.pi * s2) + 1) + sum(math.log(b) for b in f))

    def describe(self):
        return "noise sd %.3f, level step sd %.3f (q %.3g), steady gain K %.2f, innovation sd %.3f" % (
            math.sqrt(self.eps2), math.sqrt(self.eps2 * self.q), self.q, self.gain, math.sqrt(self.f))

    def innovations(self, x):
        v, f = kalman(x, self.q)
        return [a / math.sqrt(b * self.eps2) for a, b in zip(v, f)]

    def signature(self, delta, n):
        return [delta * (1 - self.gain) ** j / math.sqrt(self.f) for j in range(n)]

    def simulate(self, n, rng, shift_at=None, delta=0.0, draw=None):
        """At n runs; draw (a standardised residual) replaces the Gaussian of
        both the noise and the level's step when given."""
        d = draw or (lambda: rng.gauss(0, 1))
        lvl, x = 0.0, []
        se, sh = math.sqrt(self.eps2), math.sqrt(self.eps2 * self.q)
        for t in range(n):
            lvl += sh * d()
            x.append(lvl + se * d() + (delta if shift_at is not None and t >= shift_at else 0.0))
        return x


# --- the detectors -----------------------------------------------------------

def oracle_stats(u, a):
    """S_n = max over the change's start j = 1..WINDOW runs back of the log
    likelihood ratio sum_i (a_i u - a_i^2 / 2) (signature a, a drop:
    a_i < 0), for every n; 0 when none is positive (CUSUM's floor)."""
    parts, out = [], []
    for un in u:
        parts = [0.0] + parts[:WINDOW - 1]
        parts = [p + a[i] * un - a[i] * a[i] / 2 for i, p in enumerate(parts)]
        out.append(max(0.0, max(parts)))
    return out


def np_power(a, n, z):
    d = sum(v * v for v in a[:n])
    return phi_cdf(math.sqrt(d) - z), d


def threshold(stats, rate):
    s = sorted(stats, reverse=True)
    k = int(rate * len(s))
    return s[k] if k < len(s) else 0.0


# --- the report --------------------------------------------------------------

def load_tbf(path, cap):
    rows = [json.loads(line) for line in open(path)]
    u = [math.log(r["gbps"]) for r in rows if r["cap"] == 0]
    c = [math.log(r["gbps"]) for r in rows if r["cap"] == cap]
    return u, c


def corpus_streams(paths):
    out = []
    for path in paths:
        for name, x in cal.streams(path).items():
            if len(x) > FIRST and min(x) > 0:
                out.append(("%s %s" % (os.path.basename(path), name), [math.log(v) for v in x]))
    return out


def first_alarm(stats, start, h):
    return next((k - start + 1 for k in range(start, len(stats)) if stats[k] >= h), None)


def drop_stats(x):
    """Perfherder's t (12 before a change 12 runs back against the 12
    after) at every run of the log values x, s[k] judging run k + 2."""
    v = [math.exp(a) for a in x]
    return [cal.ref.perfherder_t(v[:k + 2]) for k in range(len(x) - 1)]


def detector_stats(model, delta, x):
    """Each detector's statistic on x (larger: more of a drop), s[k]
    judging run k + 2: the oracle CUSUM, the prewhitened run alone (the
    innovation's own drop), Perfherder's t."""
    u = model.innovations(x)
    return {"oracle CUSUM": oracle_stats(u, model.signature(delta, WINDOW)),
            "prewhitened run alone": [-v for v in u],
            "Perfherder": drop_stats(x)}


def delays(model, delta, hs, draw, rng, n0=40, n1=12):
    """Each detector's first alarm among n1 runs shifted by delta after n0
    unchanged ones, over N_SIM histories simulated from the model (draw:
    the standardised noise, None for Gaussian), at each threshold of hs
    (detector -> [(label, h)])."""
    first = {(d, hl): [] for d, hh in hs.items() for hl, _ in hh}
    early = dict.fromkeys(first, 0)
    for _ in range(N_SIM):
        x = model.simulate(n0 + n1, rng, n0, delta, draw)
        st = detector_stats(model, delta, x)
        for d, hh in hs.items():
            s = st[d]
            for hl, h in hh:
                early[(d, hl)] += any(v >= h for v in s[FIRST - 1:n0 - 1])
                f = first_alarm(s, n0 - 1, h)
                first[(d, hl)].append(f if f else n1 + 1)
    for v in first.values():
        v.sort()
    return first, early


def summary_of(first, n1=12):
    med = first[len(first) // 2]
    p = [sum(v <= k for v in first) / len(first) for k in (1, 2, 3, 5, 10, n1)]
    return ("median %s; by the 1st %3.0f %%, 2nd %3.0f %%, 3rd %3.0f %%, 5th %3.0f %%, "
            "10th %3.0f %%, 12th %3.0f %%" % ((">%d" % n1) if med > n1 else "%d" % med,
                                              *[100 * v for v in p]))


def main(argv):
    rate = float(argv[1]) if len(argv) > 1 else 0.0094
    tbf = argv[2] if len(argv) > 2 else "bench/corpus/iperf3-tbf-2026-12-03.jsonl"
    corpora = argv[3:] if len(argv) > 3 else CORPORA
    z = z_upper(rate)
    u0, _ = load_tbf(tbf, 90)
    print("drift_bound: %s, 40 unchanged runs, log throughput; the gate's rate %.2f %% a run "
          "(z %.2f one-sided)" % (tbf, 100 * rate, z))
    d = [u0[i + 1] - u0[i] for i in range(len(u0) - 1)]
    print("  run-to-run noise (successive differences / sqrt 2): %.1f %%; sd %.1f %%; lag-1..5 "
          "autocorrelation %s" % (100 * math.sqrt(sum(v * v for v in d) / len(d) / 2),
                                  100 * math.sqrt(sum((v - sum(u0) / 40) ** 2 for v in u0) / 39),
                                  " ".join("%.2f" % acf(u0, k) for k in range(1, 6))))

    print("\n1. The noise model (fitted on the 39 runs after the first)")
    models = [Ar1(u0), LocalLevel(u0)]
    for m in models:
        q, p = ljung_box(m.resid, 10, m.params - 1)
        print("  %-11s %s" % (m.name, m.describe()))
        print("  %-11s log-likelihood %.2f, AIC %.2f; residuals' autocorrelation lag 1..5 %s; "
              "Ljung-Box Q(10) %.1f, p %.2f; excess kurtosis %.1f" % (
                  "", m.loglik, 2 * m.params - 2 * m.loglik,
                  " ".join("%+.2f" % acf(m.resid, k) for k in range(1, 6)), q, p, kurtosis(m.resid)))
    better = max(models, key=lambda m: m.loglik - m.params)
    streams = corpus_streams(corpora)
    wins, runs, big = 0, 0, 0
    for _, x in streams:
        if len(x) < 20:
            continue
        ar, ll = Ar1(x), LocalLevel(x)
        wins += ll.loglik - ll.params > ar.loglik - ar.params
        big += 1
    print("  by AIC the better fit here: %s. On the %d unchanged streams of 20 runs or more of "
          "the seven recordings the local level fits better on %d, AR(1) on %d" % (
              better.name, big, wins, big - wins))

    print("\n2. The Neyman-Pearson bound: told the size AND the run of the change, Gaussian "
          "noise of the model, at %.2f %% a run" % (100 * rate))
    for cap, drop in CAPS:
        delta = math.log(1 + drop)
        for m in models:
            a = m.signature(delta, 400)
            pw = [np_power(a, n, z)[0] for n in range(1, 13)]
            dinf = np_power(a, 400, z)
            need = next((n for n in range(1, 401) if np_power(a, n, z)[0] >= 0.5), None)
            by = [phi_cdf(math.sqrt(np_power(a, n, z)[1]) - z_upper(min(0.5, n * rate)))
                  for n in range(1, 13)]
            print("  cap %d %% (%+.0f %%) %-11s the n-th run fails, n = 1..12, at most: %s; 50 %% "
                  "at run %s; at run 400 %.0f %%" % (cap, 100 * drop, m.name,
                                                     " ".join("%.2f" % v for v in pw),
                                                     need if need else ">400", 100 * dinf[0]))
            print("  %s%-11s a first alarm by the n-th run at most (at n times the rate): %s" % (
                " " * 17, "", " ".join("%.2f" % v for v in by)))

    print("\n3. Detectors that exploit the autocorrelation, the model fitted to each "
          "stream's own unchanged runs")
    rng = random.Random(40)
    for m0 in models:
        fits = [(type(m0)(x), x) for _, x in streams]
        for cap, drop in CAPS:
            delta = math.log(1 + drop)
            real = {"oracle CUSUM": [], "prewhitened run alone": []}
            for fit, x in fits:
                st = detector_stats(fit, delta, x)
                for d in real:
                    real[d] += st[d][FIRST - 1:]  # s[k] judges run k + 2 of the stream
            hs = {d: [("recorded", threshold(real[d], rate))] for d in real}
            hs["Perfherder"] = [("recorded", cal.ref.CAL_PERFHERDER_T)]
            _, c = load_tbf(tbf, cap)
            rec = detector_stats(m0, delta, u0 + c)
            print("  %s, cap %d %% (%+.0f %%); thresholds at %.2f %% of the %d recorded unchanged "
                  "runs:" % (m0.name, cap, 100 * drop, 100 * rate, len(real["oracle CUSUM"])))
            for d, hh in sorted(hs.items()):
                print("    %-22s h %.2f; on the recording: first alarm at capped run %s, false "
                      "alarms on its unchanged runs 6-40: %d" % (
                          d, hh[0][1], first_alarm(rec[d], 39, hh[0][1]) or ">12",
                          sum(v >= hh[0][1] for v in rec[d][FIRST - 1:39])))
            print("    %-22s on the capped runs: %s" % (
                "oracle CUSUM's S", " ".join("%.1f" % v for v in rec["oracle CUSUM"][39:])))
            resid = m0.resid
            for label, draw in (("Gaussian", None),
                                ("the fit's residuals resampled", lambda: rng.choice(resid))):
                null = {d: [] for d in hs}
                for _ in range(N_NULL):
                    st = detector_stats(m0, delta, m0.simulate(52, rng, draw=draw))
                    for d in hs:
                        null[d] += st[d][FIRST - 1:]
                hd = {d: hh + [("simulated", threshold(null[d], rate))] for d, hh in hs.items()}
                first, early = delays(m0, delta, hd, draw, rng)
                print("    expected over %d histories, %s noise (h simulated: at %.2f %% of "
                      "%d runs of %d unchanged histories of this noise: %s):" % (
                          N_SIM, label, 100 * rate, len(null["Perfherder"]), N_NULL,
                          ", ".join("%s %.2f" % (d, hh[-1][1]) for d, hh in sorted(hd.items()))))
                for (d, hl), f in sorted(first.items()):
                    print("      %-22s h %-9s %s (alarmed before the change: %.0f %%)" % (
                        d, hl, summary_of(f), 100.0 * early[(d, hl)] / N_SIM))

    print("\n  beside them (bench/results/replay_tbf_drop-2026-12-07.txt, "
          "bench/results/calibrate_references-2026-12-07.txt): the gate 10th (cap 90 %) / none "
          "in 12 (cap 95 %); Welch last 2-6 vs 30 at the gate's rate none / none (at alpha "
          "0.001: 2nd / 2nd, failing 9.95 % of unchanged runs); Perfherder at the gate's rate "
          "9th / 10th; Otava at the gate's rate none / none")


if __name__ == "__main__":
    main(sys.argv)
