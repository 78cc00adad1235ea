"""Online evaluation: simulated users' clicks, A/B tests, interleaving, counterfactual estimates.

Offline metrics (01-03) score a ranking with assessors' grades; a deployed
system is judged by what its users do.  This part simulates those users on a
test collection, so that every online experiment runs offline and is
reproducible: click models turn grades into clicks (``click_models``), the
logs give online metrics (``metrics``), two systems are compared by an A/B
test (``ab_test``) or by interleaving their rankings (``interleaving``), and
logged clicks estimate a ranker that was never shown (``counterfactual``).
Every score is higher-is-better; every random function takes ``seed``.
"""

from .._lazy import lazy_attributes as _lazy_attributes

__getattr__, __dir__ = _lazy_attributes(__name__, modules={
    "click_models", "metrics", "ab_test", "interleaving", "counterfactual"})
