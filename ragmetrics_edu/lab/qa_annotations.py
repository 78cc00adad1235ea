"""Nuggets and paraphrased questions for the Cranfield QA set.

``data/cranfield_qa_annotations/`` gives each of the 68 questions of
:func:`ragmetrics_edu.load_cranfield_qa` a list of nuggets (2 to 5 facts a
good answer contains, each vital or okay) and a paraphrased twin that asks
for the same fact without the supporting abstract's wording. Both were
written by hand by one author of ragmetrics_edu and checked against the
abstracts; no second annotator, no agreement measured (the data README says
how they were made).
"""

import copy
import dataclasses
import importlib.resources
import json

__all__ = ["load_cranfield_nuggets", "load_cranfield_paraphrases", "ANNOTATIONS_FILE"]

#: The file, in ``ragmetrics_edu/data/cranfield_qa_annotations/``.
ANNOTATIONS_FILE = "cranfield_qa_annotations.jsonl"

_CACHE = []


def _read():
    """The records of the file, checked, in file order (read once)."""
    if _CACHE:
        return _CACHE
    name = f"ragmetrics_edu/data/cranfield_qa_annotations/{ANNOTATIONS_FILE}"
    resource = importlib.resources.files("ragmetrics_edu").joinpath(
        "data", "cranfield_qa_annotations", ANNOTATIONS_FILE)
    records = []
    for lineno, line in enumerate(resource.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{name}, line {lineno}"
        record = json.loads(line)
        if set(record) != {"id", "paraphrase", "nuggets"}:
            raise ValueError(f"{where}: a record has 'id', 'paraphrase' and 'nuggets', got {sorted(record)}")
        nuggets = record["nuggets"]
        if not isinstance(nuggets, list) or not 2 <= len(nuggets) <= 5:
            raise ValueError(f"{where}: 'nuggets' must be a list of 2 to 5 nuggets")
        for n in nuggets:
            if set(n) != {"text", "importance"} or n["importance"] not in ("vital", "okay") \
                    or not isinstance(n["text"], str) or not n["text"].strip():
                raise ValueError(f"{where}: a nugget is {{'text': ..., 'importance': 'vital'|'okay'}}, got {n!r}")
        if not any(n["importance"] == "vital" for n in nuggets):
            raise ValueError(f"{where}: every question has at least one vital nugget")
        if not isinstance(record["paraphrase"], str) or not record["paraphrase"].strip().endswith("?"):
            raise ValueError(f"{where}: 'paraphrase' must be a question ending in '?'")
        records.append(record)
    _CACHE.extend(records)
    return _CACHE


def load_cranfield_nuggets():
    """The nuggets of each Cranfield QA question: ``{question id: [nugget, ...]}``.

    Returns
    -------
    dict of str to list of dict
        Each nugget ``{"text": str, "importance": "vital" | "okay"}``, the
        record format of nuggetizer and :func:`ragmetrics_edu.nugget_scores`
        (add ``"assignment"`` for an answer, by hand or with
        :func:`ragmetrics_edu.assign_nuggets`). A fresh copy on every call.

    Examples
    --------
    >>> nuggets = load_cranfield_nuggets()
    >>> len(nuggets)
    68
    >>> for n in nuggets["cqa-014"]:
    ...     print(n["importance"], "|", n["text"])
    vital | helium was the best coolant
    okay | four different gases were injected
    okay | the gas was injected through a porous plug at the stagnation region
    """
    return {r["id"]: copy.deepcopy(r["nuggets"]) for r in _read()}


def load_cranfield_paraphrases():
    """The Cranfield QA set with every question replaced by its paraphrased twin.

    Answers, supporting documents and every other field are those of
    :func:`ragmetrics_edu.load_cranfield_qa`, so the same qrels score both
    sets of questions.

    Returns
    -------
    list of QAItem

    Examples
    --------
    >>> twins = load_cranfield_paraphrases()
    >>> twins[13].question
    'Blowing different gases out of the nose of a blunt model at hypersonic speed, which one cooled best?'
    >>> twins[13].answers, twins[13].doc_ids
    (('helium',), ('84',))
    """
    from ragmetrics_edu import load_cranfield_qa
    records = {r["id"]: r for r in _read()}
    items = load_cranfield_qa()
    missing = [item.id for item in items if item.id not in records]
    if missing or len(records) != len(items):
        raise ValueError(f"the annotations do not match the QA set: missing {missing[:5]}, "
                         f"{len(records)} annotations for {len(items)} questions")
    return [dataclasses.replace(item, question=records[item.id]["paraphrase"]) for item in items]
