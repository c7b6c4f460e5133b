"""Every distribution node against its closed-form CDF: 100,000 rows of
``dist_X(unit_interval(hash(cycle)), ...)`` binned by the true quantiles
(twenty equal bins, plus the 0.1% and 0.01% tails) and a chi-square test,
with no scipy: the CDFs are written out here (normal via ``math.erf``, the
gamma and beta for integer shapes as finite sums, the discrete ones from
their probabilities).

A Poisson(3) sampler once put 85 of 100,000 rows in 13..25 (about 1.6
expected) and had its 0.9999 quantile at 23.7 (about 11): upstream's
1001-point table interpolates between its last two entries, 10 and 24.
A normal's tails were a point mass at ±3.09σ, and Beta(2, 5)'s top 0.1% was spread evenly
over [0.82, 1] (71 rows past its 0.9999 quantile, 10 expected). The values
are the same on every engine.

``dist_zipf`` is the exception: it samples upstream's interpolated table of
ranks, as upstream does, so it is checked against upstream's values instead.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pytest

import polydat

ROWS = 100_000

PROGRAM = "input cycle\nu := unit_interval(hash(cycle))\nx := {call}\n"


def norm_cdf(z: float) -> float:
    return 0.5 * (1.0 + math.erf(z / math.sqrt(2.0)))


def erlang_cdf(x: float, shape: int, scale: float) -> float:
    """The gamma CDF for an integer shape: 1 - e^-y sum_{k<shape} y^k / k!."""
    if x <= 0:
        return 0.0
    y = x / scale
    return 1.0 - math.exp(-y) * sum(y**k / math.factorial(k) for k in range(shape))


def beta_cdf(x: float, a: int, b: int) -> float:
    """The beta CDF for integer shapes: P(Binomial(a + b - 1, x) >= a)."""
    if x <= 0:
        return 0.0
    if x >= 1:
        return 1.0
    n = a + b - 1
    return sum(math.comb(n, j) * x**j * (1 - x) ** (n - j) for j in range(a, n + 1))


def laplace_cdf(x: float, loc: float, scale: float) -> float:
    z = (x - loc) / scale
    return 0.5 * math.exp(z) if z < 0 else 1.0 - 0.5 * math.exp(-z)


CONTINUOUS: dict[str, tuple[str, Callable[[float], float], bool]] = {
    # name: (call, CDF, two-sided tails)
    "normal": ("dist_normal(u, 10.0, 2.0)", lambda x: norm_cdf((x - 10.0) / 2.0), True),
    "icd_normal": ("icd_normal(u, 0.0, 1.0)", norm_cdf, True),
    "exponential": ("dist_exponential(u, 2.0)", lambda x: 1.0 - math.exp(-2.0 * x) if x > 0 else 0.0, False),
    "uniform": ("dist_uniform(u, -1.0, 3.0)", lambda x: min(max((x + 1.0) / 4.0, 0.0), 1.0), False),
    "pareto": ("dist_pareto(u, 2.0, 3.0)", lambda x: 1.0 - (2.0 / x) ** 3.0 if x > 2.0 else 0.0, False),
    "lognormal": ("dist_lognormal(u, 1.0, 0.5)", lambda x: norm_cdf((math.log(x) - 1.0) / 0.5) if x > 0 else 0.0, False),
    "weibull": ("dist_weibull(u, 1.5, 2.0)", lambda x: 1.0 - math.exp(-((x / 2.0) ** 1.5)) if x > 0 else 0.0, False),
    "cauchy": ("dist_cauchy(u, 5.0, 2.0)", lambda x: 0.5 + math.atan((x - 5.0) / 2.0) / math.pi, True),
    "laplace": ("dist_laplace(u, 5.0, 2.0)", lambda x: laplace_cdf(x, 5.0, 2.0), True),
    "beta": ("dist_beta(u, 2.0, 5.0)", lambda x: beta_cdf(x, 2, 5), False),
    "gamma": ("dist_gamma(u, 3.0, 2.0)", lambda x: erlang_cdf(x, 3, 2.0), False),
    "empirical": ('dist_empirical(u, "10 0")', lambda x: min(max(x / 10.0, 0.0), 1.0), False),
    "lut_sample": ("lut_sample(u, \"0 1 4\")", lambda x: x / 2.0 if x < 1 else 0.5 + (x - 1.0) / 6.0, False),
}


def poisson_pmf(lam: float) -> Callable[[int], float]:
    return lambda k: math.exp(-lam + k * math.log(lam) - math.lgamma(k + 1))


def binomial_pmf(n: int, p: float) -> Callable[[int], float]:
    return lambda k: math.comb(n, k) * p**k * (1 - p) ** (n - k) if 0 <= k <= n else 0.0


DISCRETE: dict[str, tuple[str, Callable[[int], float], int, int]] = {
    # name: (call, pmf, smallest value, largest value looked at)
    "poisson": ("dist_poisson(u, 3.0)", poisson_pmf(3.0), 0, 40),
    "poisson_large": ("dist_poisson(u, 1000.0)", poisson_pmf(1000.0), 800, 1200),
    "binomial": ("dist_binomial(u, 20, 0.3)", binomial_pmf(20, 0.3), 0, 20),
    "geometric": ("dist_geometric(u, 0.25)", lambda k: 0.75 ** (k - 1) * 0.25 if k >= 1 else 0.0, 1, 80),
}

#: Upstream's interpolated Zipf table: the call, and upstream's values at cycles 0.. of PROGRAM.
ZIPF = "dist_zipf(u, 100, 1.07)"


def chi_square_limit(df: int) -> float:
    """The chi-square quantile at 1 - 1e-4 (Wilson-Hilferty; z = 3.719)."""
    z = 3.719
    return df * (1 - 2 / (9 * df) + z * math.sqrt(2 / (9 * df))) ** 3


def generate(call: str, engine: str = "auto") -> np.ndarray:
    return polydat.compile(PROGRAM.format(call=call), engine=engine).generate(range(ROWS))["x"]


@pytest.fixture(scope="module")
def samples() -> dict[str, np.ndarray]:
    calls = {name: spec[0] for name, spec in {**CONTINUOUS, **DISCRETE}.items()}
    return {name: generate(call) for name, call in calls.items()}


@pytest.mark.parametrize("name", list(CONTINUOUS))
def test_continuous_quantiles_pass_a_chi_square_test(samples: dict[str, np.ndarray], name: str) -> None:
    _call, cdf, two_sided = CONTINUOUS[name]
    x = samples[name]
    assert np.isfinite(x).all()
    # Probability edges: twenty equal bins, the upper 0.1% and 0.01% (and the lower ones).
    edges = [i / 20 for i in range(21)]
    edges[-1:-1] = [0.999, 0.9999]
    if two_sided:
        edges[1:1] = [0.0001, 0.001]
    f = np.array([cdf(float(v)) for v in x])
    observed = np.histogram(f, bins=edges)[0]
    expected = np.diff(edges) * ROWS
    chi2 = float(((observed - expected) ** 2 / expected).sum())
    assert chi2 < chi_square_limit(len(expected) - 1), (name, chi2, list(zip(edges[1:], observed, expected)))
    # The far tails on their own (10 rows expected past each 0.01% quantile),
    # and no point mass: a cut tail puts a thousandth of the rows on one value.
    assert 2 <= observed[-1] <= 25, (name, "rows past the 0.9999 quantile", observed[-1])
    if two_sided:
        assert 2 <= observed[0] <= 25, (name, "rows below the 0.0001 quantile", observed[0])
    assert np.unique(x, return_counts=True)[1].max() <= 5, (name, "a value repeats: a point mass")


@pytest.mark.parametrize("name", list(DISCRETE))
def test_discrete_counts_pass_a_chi_square_test(samples: dict[str, np.ndarray], name: str) -> None:
    _call, pmf, first, last = DISCRETE[name]
    x = samples[name]
    assert (x == np.floor(x)).all(), "a count or rank is an integer"
    assert x.min() >= first
    # Cells of one value each, merged from the tails until each expects at least 5 rows.
    cells: list[tuple[int, int, float]] = []  # (lo, hi, expected)
    lo, mass = first, 0.0
    for k in range(first, last + 1):
        mass += pmf(k) * ROWS
        if mass >= 5:
            cells.append((lo, k, mass))
            lo, mass = k + 1, 0.0
    tail = ROWS - sum(e for _, _, e in cells)
    cells.append((lo, 1 << 62, tail))
    if cells[-1][2] < 5:
        (a, _, e1), (_, b, e2) = cells[-2], cells.pop()
        cells[-1] = (a, b, e1 + e2)
    observed = [int(((x >= a) & (x <= b)).sum()) for a, b, _ in cells]
    chi2 = sum((o - e) ** 2 / e for o, (_, _, e) in zip(observed, cells))
    assert chi2 < chi_square_limit(len(cells) - 1), (name, chi2, list(zip(cells, observed)))


def test_the_poisson_tail_is_the_poissons(samples: dict[str, np.ndarray]) -> None:
    x = samples["poisson"]
    assert int(((x >= 13) & (x <= 25)).sum()) <= 8, "about 1.6 expected in 13..25"
    quantiles = np.quantile(x, [0.5, 0.9, 0.99, 0.999, 0.9999])
    assert list(quantiles) == [3.0, 5.0, 8.0, 10.0, 11.0]


def test_zipf_samples_upstreams_interpolated_rank_table() -> None:
    """Upstream's value at cycle 0 lies between the table's ranks 49 and 50
    (the exact inverse CDF there is rank 49); every row stays in 0..=100 and
    the rounded ranks keep Zipf's head."""
    program = polydat.compile(PROGRAM.format(call=ZIPF))
    assert program.kernel().pull("x") == 49.31080821364276
    x = program.generate(range(ROWS))["x"]
    assert 0.0 <= x.min() < 1.0 and x.max() <= 100.0
    assert (x != np.floor(x)).any(), "samples between table points are fractions"
    share_of_rank_one = float((np.rint(x) == 1).mean())
    assert 0.15 < share_of_rank_one < 0.25, share_of_rank_one


def test_every_engine_samples_the_same_values() -> None:
    calls = [c for c, *_ in CONTINUOUS.values()] + [c for c, *_ in DISCRETE.values()] + [ZIPF]
    for call in calls:
        program = PROGRAM.format(call=call)
        values = {}
        for engine in ("p1", "p2", "p3", "mixed"):
            got = polydat.compile(program, engine=engine).generate(range(4096))["x"]
            values[engine] = got.view(np.uint64)
        assert all((v == values["p1"]).all() for v in values.values()), call
