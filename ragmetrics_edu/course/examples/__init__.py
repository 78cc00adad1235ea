"""Every worked example of the seed documents (the course's sources), as data.

A number is written once, here; notebooks and tests read it from this
module.  Each :class:`SeedExample` records where the example comes from
(seed file and slide or section), its inputs, the value the seed states,
the value computed right, a one-line ``erratum`` where the two differ, and a
one-line ``label_erratum`` where the seed's wording slips although its number
is right.

>>> from ragmetrics_edu.course import examples
>>> ex = examples.get("precision_at_2")
>>> ex.stated, ex.correct
(0.5, 0.5)
"""

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Optional

SEEDS = {
    "slides": "000_c529f5278b2d8ca3.txt",
    "slides_ocr2": "001_92a0962873087159.txt",
    "blog_news": "002_99896832e0dcda75.txt",
    "blog_ndcg": "003_2bbd95c6cb3d8a0e.txt",
    "article_ir": "004_659fe2d43e4d17f8.txt",
}
"""Short names of the seed documents and their file names."""


@dataclass(frozen=True)
class SeedExample:
    """One worked example of a seed.

    Attributes
    ----------
    key : str
        A short unique name, e.g. ``"ndcg_at_3"``.
    seed : str
        Which seed (a key of :data:`SEEDS`).
    where : str
        Slide title or section, so a reader can find it.
    metric : str
        The metric, in words.
    inputs : Mapping or None
        The keyword arguments that reproduce it with ``compute``; None when
        the seed does not give them (its inputs are only in a picture), so
        the example cannot be rebuilt.
    stated : Any
        The value as the seed prints it (a float, or a string if the seed
        gives a fraction or a formula).
    correct : float or None
        The value computed right (exact, unrounded); None when the example
        cannot be rebuilt.
    compute : Callable or None
        Function of ``**inputs`` returning ``correct``; tests call it.  None
        when the example cannot be rebuilt.
    erratum : str or None
        One sentence on what the seed got wrong in the number, or None.  It
        is set exactly when ``stated`` is further than ``tolerance`` from
        ``correct``.
    tolerance : float
        How close ``stated`` must be to ``correct`` to count as the
        same number, given the seed's rounding.
    label_erratum : str or None
        One sentence on a slip in the seed's *wording* around the example
        (a mislabelled formula or name, such as AP called "MAP"), not in
        its number; None if the wording is right.  Independent of
        ``erratum``: an example can have either, both or neither.
    """

    key: str
    seed: str
    where: str
    metric: str
    inputs: Mapping[str, Any]
    stated: Any
    correct: Optional[float]
    compute: Optional[Callable[..., float]] = field(repr=False)
    erratum: Optional[str] = None
    tolerance: float = 0.0
    label_erratum: Optional[str] = None

    @property
    def rebuildable(self):
        """Whether the seed gives the inputs, so ``recompute`` can run."""
        return self.compute is not None and self.inputs is not None

    def recompute(self):
        """Run ``compute`` on ``inputs`` and return the result.

        Raises
        ------
        ValueError
            If the example cannot be rebuilt (the seed does not give its inputs).
        """
        if not self.rebuildable:
            raise ValueError(
                f"seed example {self.key!r} cannot be rebuilt: the seed does not give "
                f"its inputs (see its notes)"
            )
        return self.compute(**self.inputs)

    @property
    def seed_file(self):
        """The seed's file name."""
        return SEEDS[self.seed]


def _collect():
    from . import generation, retrieval

    out = {}
    for module in (retrieval, generation):
        for ex in module.EXAMPLES:
            if ex.key in out:
                raise ValueError(f"duplicate example key {ex.key!r}")
            out[ex.key] = ex
    return out


_ALL = None


def all_examples():
    """Return every seed example as a dict ``{key: SeedExample}``."""
    global _ALL
    if _ALL is None:
        _ALL = _collect()
    return dict(_ALL)


def get(key):
    """Return the example named ``key`` (raising ``KeyError`` with the known keys)."""
    examples = all_examples()
    if key not in examples:
        raise KeyError(f"no seed example {key!r}; known: {', '.join(sorted(examples))}")
    return examples[key]


def errata():
    """Return the examples where the seed slips: a wrong number or a wrong label.

    ``ex.erratum`` says what is wrong with the number (None if it is
    right), ``ex.label_erratum`` what is wrong with the wording.
    """
    return [ex for ex in all_examples().values() if ex.erratum or ex.label_erratum]
