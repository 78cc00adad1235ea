"""Compute the automatic entailment tables that notebook 15 reads.

For the eight questions of ``ragmetrics_edu/data/rag_diagnostics/hand_labels.json``
(cqa-001 ... cqa-008, each with the three abstracts fusion retrieved and two
answers: notebook 11's extractive answer and SmolLM2's generated one), fill
RAGChecker's four entailment tables with two automatic judges, and write
``ragmetrics_edu/data/rag_diagnostics/automatic.json``:

* ``stand-in``: the embedding stand-in (``rj.EmbeddingJudge()``); an answer's
  claims are its sentences (``rag.split_claims``);
* ``smollm2``: SmolLM2-135M-Instruct run by the package
  (``rm.LanguageModelJudge()``, constrained yes/no replies at temperature 0);
  an answer's claims are what the model writes when asked to split it
  (``claims.DECOMPOSE_TEMPLATE``), or its sentences when that reply cannot be
  read (``claims.parse_claims`` refuses it), which the record says.

Every entailment is the support prompt (``rag.build_support_prompt(claim,
premise)``, the judges' ``Verdict: yes|no``): is the claim entailed by the
premise, where the premise is the reference text (the question's nuggets,
one sentence each: is a response claim correct?), the answer (is a reference
claim covered?) or one abstract (is the claim supported / retrieved?). The
reference claims are the question's nuggets for every source.

Each source also fills the tables for the claims of the hand-labelled set
(``on_hand_claims``), so that its verdicts can be compared with ours cell by
cell. For the language model the file keeps P(yes) of every verdict (rounded
to six decimals) beside it, and the reply it wrote when asked to split each
answer into claims and to write the question each answer responds to
(``rag.QUESTION_GENERATION_TEMPLATE``, for response relevancy).

Usage::

    python tools/make_rag_diagnostics.py      # about 15 minutes on two cores

``tests/judge/test_rag_diagnostics_data.py`` recomputes a sample with both
judges and finds it equal; notebook 15 recomputes a few verdicts live.
"""

import json
import time
from pathlib import Path

import ragmetrics_edu as rm
from ragmetrics_edu import judge as rj
from ragmetrics_edu.judge import rag
from ragmetrics_edu.judge.claims import build_decompose_prompt, parse_claims

DATA = Path(__file__).resolve().parents[1] / "ragmetrics_edu" / "data" / "rag_diagnostics"
HAND = DATA / "hand_labels.json"
OUT = DATA / "automatic.json"
TABLES = ("correct", "covered", "supported", "retrieved")


def reference_text(claims):
    """The reference answer a response claim is checked against: the nuggets, one sentence each."""
    return " ".join(c.rstrip(".") + "." for c in claims)


class StandIn:
    name = "stand-in"

    def __init__(self):
        self.judge = rj.EmbeddingJudge()

    def verdict(self, premise, claim):
        return rj.parse_verdict(self.judge.complete(rag.build_support_prompt(claim, premise))), None

    def split(self, answer):
        return rag.split_claims(answer), "sentences", None


class SmolLM2:
    name = "smollm2"

    def __init__(self):
        self.judge = rm.LanguageModelJudge()
        self.cache = {}

    def verdict(self, premise, claim):
        key = (premise, claim)
        if key not in self.cache:
            dist = self.judge.distribution(rag.build_support_prompt(claim, premise))
            p_yes = round(float(dist.as_dict()["yes"]), 6)
            self.cache[key] = (dist.most_likely == "yes", p_yes)
        return self.cache[key]

    def split(self, answer):
        reply = self.judge.complete(build_decompose_prompt(answer))
        try:
            return parse_claims(reply), "the model's claims", reply
        except ValueError:
            return rag.split_claims(answer), "sentences (the model's reply could not be read)", reply

    def question(self, answer):
        return self.judge.complete(rag.build_question_generation_prompt(answer))


def tables(source, claims, answer, reference, nuggets, chunks):
    """The four tables (and P(yes) for the language model) for one set of response claims."""
    verdicts, p_yes = {}, {}

    def fill(name, rows):
        verdicts[name] = [[int(v) for v, _ in row] for row in rows]
        p_yes[name] = [[p for _, p in row] for row in rows]

    fill("correct", [[source.verdict(reference, c)] for c in claims])
    fill("covered", [[source.verdict(answer, n)] for n in nuggets])
    fill("supported", [[source.verdict(chunk, c) for chunk in chunks] for c in claims])
    fill("retrieved", [[source.verdict(chunk, n) for chunk in chunks] for n in nuggets])
    for name in ("correct", "covered"):            # one verdict per claim: a flat list
        verdicts[name] = [row[0] for row in verdicts[name]]
        p_yes[name] = [row[0] for row in p_yes[name]]
    return verdicts, (p_yes if source.name == "smollm2" else None)


def main():
    hand = json.loads(HAND.read_text(encoding="utf-8"))
    cran = rm.load_cranfield()
    sources = [StandIn(), SmolLM2()]
    lm = sources[1].judge
    result = {"meta": {
        "stand-in": "EmbeddingJudge() with its defaults (all-MiniLM-L6-v2; yes when the closest "
                    "premise sentence has cosine >= 0.68 with the claim)",
        "smollm2": {"model": lm.model, "settings": lm.parameters},
        "prompt": "rag.build_support_prompt(claim, premise), the judges' SUPPORT_TEMPLATE",
        "reference_text": "the question's nuggets, one sentence each (tools/make_rag_diagnostics.py)"},
        "questions": []}
    start = time.time()
    for q in hand["questions"]:
        chunks = [cran.docs[d]["text"] for d in q["chunks"]]
        nuggets = q["reference_claims"]
        reference = reference_text(nuggets)
        entry = {"id": q["id"], "reference_text": reference, "sources": {}}
        for source in sources:
            entry["sources"][source.name] = {}
            for kind, ans in q["answers"].items():
                claims, how, reply = source.split(ans["text"])
                own, own_p = tables(source, claims, ans["text"], reference, nuggets, chunks)
                hand_t, hand_p = tables(source, ans["claims"], ans["text"], reference, nuggets, chunks)
                record = {"claims": claims, "split": how, "tables": own, "on_hand_claims": hand_t}
                if own_p is not None:
                    record.update(split_reply=reply, p_yes=own_p, on_hand_claims_p_yes=hand_p,
                                  question_reply=source.question(ans["text"]))
                entry["sources"][source.name][kind] = record
                print(f"{q['id']} {source.name:<8} {kind:<10} {len(claims)} claims ({how}) "
                      f"{time.time() - start:.0f}s", flush=True)
        result["questions"].append(entry)
        OUT.write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
