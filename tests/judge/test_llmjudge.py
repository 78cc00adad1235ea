"""The LLMJudge data: every shipped file is upstream's, the loader reads all of it, damage is named."""

import hashlib
import shutil
from collections import Counter
from pathlib import Path

import pytest

import ragmetrics_edu as rm
from ragmetrics_edu.judge import llmjudge

DATA = Path(llmjudge.__file__).resolve().parent.parent / "data" / "llmjudge"

# Git's object ids of the files at the commits the README names, from `git ls-tree -r` of
# llm4eval/LLMJudge-benchmark at 968a1f9c962fddfc6508faa2d45e3e7edd1c3829 (the judges'
# submissions/scores/*.txt and LICENSE) and of llm4eval/LLMJudge at
# 81159c68260d383f8da1dad8a14f6d914a9054a9 (data/...: the assessors' grades, pairs,
# queries and id maps, renamed as the README says).  A file whose id matches is byte for
# byte upstream's.
UPSTREAM_BLOBS = {
    "test_qrels.txt": "93e7e919a0f8ce0a0c5c2d92be3773b85ccf8bf4",   # data/llmjudge_test_qrel_idx.txt
    "test_pairs.txt": "4ebace113781b9c1b72d516d015d65603558de38",   # data/llm4eval_test_qrel_2024.txt
    "dev_qrels.txt": "fa575f4bfd4629ce6c6a5ee7fbb8b72985c330d2",    # data/llm4eval_dev_qrel_2024.txt
    "queries.tsv": "a759788d9903977ed3e5271eed8c35da4fff801b",      # data/llm4eval_query_2024.txt
    "qid_map.tsv": "cf7b1df0f0018e1c66efef563704de02b790f2e6",      # data/ids-mapping-files/qid_to_qidx.txt
    "pid_map.tsv": "653156096f932a0837b283fd1725c7a4fccb6aa9",      # .../docid_to_docidx.txt
    "LICENSE-LLMJudge-benchmark": "72170c8446f425129451420f13d89d0e87ee292a",
    "judges/NISTRetrieval-instruct0.txt": "9aa87e6ff9c3edb696e067f333a0c034d443dd13",
    "judges/NISTRetrieval-instruct1.txt": "e765fa38bcec4cace600d0eca8b64ec24c52a94d",
    "judges/NISTRetrieval-instruct2.txt": "3a4d9105fda9662f97be57277ee26a278f65823e",
    "judges/NISTRetrieval-reason0.txt": "ea4eca1c8fe7db747d26a9ae5d608f0e03a58d6e",
    "judges/NISTRetrieval-reason1.txt": "214d154837cce5185e09b65e53173ff1656f94b8",
    "judges/NISTRetrieval-reason2.txt": "67c5d3746201bb349d8393a526b69d8715334bd9",
    "judges/Olz-exp.txt": "4def72bba26011f8407f23b9ccfe8ddf0b58d78d",
    "judges/Olz-gpt4o.txt": "2aab0494b34b0effcee6cdc09cd24cc693b49ff1",
    "judges/Olz-halfbin.txt": "eee582dc35d7d5b406e2fd053684adfd676572e4",
    "judges/Olz-multiprompt.txt": "d6308641ffbf2eef53423448ad43a9f667d4d296",
    "judges/Olz-somebin.txt": "68ff44d684a617db5c90eb6b95cfb7785a40a44e",
    "judges/RMITIR-GPT4o.txt": "e393dc2a5ed525a3a1db224a3dc7133b483b59d3",
    "judges/RMITIR-llama38b.txt": "7c6f0f4d89b0890ce8ca70fc8b7beef895d7a36a",
    "judges/RMITIR-llama70B.txt": "4d6d3979b8b187b68e30db789f6e201ee77ba2e1",
    "judges/TREMA-4prompts.txt": "169e8bdf320ea9e2979d7e8f1e43e325ba6b7fa7",
    "judges/TREMA-CoT.txt": "ac930ef39fdc71f61cc3a33de2ad2d5b7b568c6e",
    "judges/TREMA-all.txt": "e9cab80c0fb42e186897c9e086ee12024d8d9265",
    "judges/TREMA-direct.txt": "534a1f2ed2aec36f3d4632b0a3955fddfb53962d",
    "judges/TREMA-naiveBdecompose.txt": "abac7d25643831ec2e4f83bdde8408a5a1aff489",
    "judges/TREMA-nuggets.txt": "71913fd02ed0806ca7976ad8a779617a441d25ea",
    "judges/TREMA-other.txt": "559029574c10a4ac65c379285ed990cdb8ae73c4",
    "judges/TREMA-questions.txt": "c53a4b269759f9db11917f8acbe7bf9dba0fd31a",
    "judges/TREMA-rubric0.txt": "c83ddbfe2a2b82003d219ba929d7671b1ebc4641",
    "judges/TREMA-sumdecompose.txt": "e443a362e67b85bde7bbe057017fd1f246848f8b",
    "judges/h2oloo-fewself.txt": "2cdc26456c4e244edd8f4f861fec73f01ad31340",
    "judges/h2oloo-zeroshot1.txt": "60ef36b76274298ca72eb5e564472770607f6989",
    "judges/h2oloo-zeroshot2.txt": "c2dbf3692304a0e0641ca6935f2ef6311c3447fb",
    "judges/prophet-setting1.txt": "5932f347924fee08c5d4c420c80f71ba5d1167b4",
    "judges/prophet-setting2.txt": "de2a4edd324283c6898f543ba00ea801368bd796",
    "judges/prophet-setting4.txt": "a1fd08ada0a5fcf99feb3287dd4905d2abbee8f2",
    "judges/willia-umbrela1.txt": "4cd3d5f2a9c2a93ecc63d32151dfeb48523f0ee9",
    "judges/willia-umbrela2.txt": "935497223900404eabc343f00be1d5e2936249e9",
    "judges/willia-umbrela3.txt": "929539ea6d121a7c2d608f50a9add8fe48399339",
}


def git_blob_id(blob):
    """Git's object id of a file's bytes: SHA-1 of ``blob <size>\\0`` and the bytes."""
    return hashlib.sha1(b"blob %d\0" % len(blob) + blob).hexdigest()


def test_every_shipped_file_is_upstreams_byte_for_byte():
    shipped = {p.relative_to(DATA).as_posix() for p in DATA.rglob("*") if p.is_file()}
    assert shipped == set(UPSTREAM_BLOBS) | {"README.md", "SHA256SUMS"}
    for name, blob_id in UPSTREAM_BLOBS.items():
        assert git_blob_id((DATA / name).read_bytes()) == blob_id, name


def test_the_manifest_lists_every_data_file_with_its_sha256():
    listed = {}
    for line in (DATA / "SHA256SUMS").read_text().splitlines():
        digest, name = line.split()
        listed[name] = digest
    assert set(listed) == set(UPSTREAM_BLOBS)
    for name, digest in listed.items():
        assert hashlib.sha256((DATA / name).read_bytes()).hexdigest() == digest, name
    assert (hashlib.sha256((DATA / "SHA256SUMS").read_bytes()).hexdigest()
            == llmjudge._MANIFEST_SHA256)


def _lines(name):
    return sorted(line for line in (DATA / name).read_text().splitlines() if line.strip())


def test_the_loaded_data_give_back_every_file():
    """Written out again, what the loader holds is each file's content, line for line."""
    data = rm.load_llmjudge()
    assert _lines("test_qrels.txt") == sorted(
        f"{q} 0 {p} {g}" for q, docs in data.qrels.items() for p, g in docs.items())
    assert _lines("dev_qrels.txt") == sorted(
        f"{q} 0 {p} {g}" for q, docs in data.dev_qrels.items() for p, g in docs.items())
    assert (DATA / "test_pairs.txt").read_text().splitlines() == [f"{q} 0 {p}" for q, p in data.pairs]
    assert _lines("queries.tsv") == sorted(f"{q}\t{t}" for q, t in data.queries.items())
    assert _lines("qid_map.tsv") == sorted(f"{v}\t{k}" for k, v in data.qid_map.items())
    assert _lines("pid_map.tsv") == sorted(f"{v}\t{k}" for k, v in data.pid_map.items())
    assert len(data.judges) == 33
    for name, grades in data.judges.items():
        assert _lines(f"judges/{name}.txt") == sorted(
            f"{q} 0 {p} {g}" for q, docs in grades.items() for p, g in docs.items()), name


def test_counts_are_those_of_the_papers_table_1():
    # Rahmani et al. 2025, Table 1: test 25 queries, 4,423 qrels (2,005 / 1,233 / 808 / 377 for
    # grades 0-3), dev 25 queries, 7,263 qrels (4,538 / 1,403 / 625 / 697)
    data = rm.load_llmjudge()
    assert len(data.qrels) == 25 and len(data.pairs) == 4423
    assert Counter(data.grades()) == {0: 2005, 1: 1233, 2: 808, 3: 377}
    dev = Counter(g for docs in data.dev_qrels.values() for g in docs.values())
    assert len(data.dev_qrels) == 25 and dev == {0: 4538, 1: 1403, 2: 625, 3: 697}
    assert set(data.queries) == set(data.qrels) | set(data.dev_qrels)
    assert not set(data.qrels) & set(data.dev_qrels)


def test_grades_off_the_scale_are_loaded_as_written():
    data = rm.load_llmjudge()
    off = sorted((name, q, p, g) for name, j in data.judges.items() for q, docs in j.items()
                 for p, g in docs.items() if g not in (0, 1, 2, 3))
    assert off == [("RMITIR-llama70B", "q0", "p3021", 5), ("RMITIR-llama70B", "q30", "p8935", 5),
                   ("h2oloo-zeroshot2", "q2", "p8028", 10)]


def test_each_call_returns_a_fresh_copy():
    first = rm.load_llmjudge()
    first.qrels["q49"]["p3659"] = 0
    first.judges["RMITIR-GPT4o"].clear()
    second = rm.load_llmjudge()
    assert second.qrels["q49"]["p3659"] == 3 and len(second.judges["RMITIR-GPT4o"]) == 25


def test_grades_follow_the_pairs_and_name_an_unknown_judge():
    data = rm.load_llmjudge()
    assert len(data.grades("TREMA-all")) == len(data.pairs) == len(data.query_ids())
    with pytest.raises(KeyError, match="'gpt-5'"):
        data.grades("gpt-5")


# ----------------------------------------------------------------- damage

@pytest.fixture
def copy(tmp_path):
    target = tmp_path / "llmjudge"
    shutil.copytree(DATA, target)
    return target


def _replace_line(path, number, text):
    lines = path.read_text().split("\n")
    lines[number - 1] = text
    path.write_text("\n".join(lines))


def test_a_copy_reads_like_the_shipped_data(copy):
    assert repr(rm.load_llmjudge(copy)) == repr(rm.load_llmjudge())


@pytest.mark.parametrize("name, number, text, message", [
    ("judges/Olz-exp.txt", 7, "q49 0 p3659", r"judges/Olz-exp\.txt, line 7: expected 4 fields"),
    ("judges/TREMA-CoT.txt", 12, "q49 0 p3659 two", r"TREMA-CoT\.txt, line 12: the grade must be a whole"),
    ("test_qrels.txt", 3, "q49 1 p1270 1", r"test_qrels\.txt, line 3: the second field must be 0"),
    ("test_qrels.txt", 3, "q49 0 p1270 4", r"test_qrels\.txt, line 3: .*4, outside the scale 0-3"),
    ("dev_qrels.txt", 5, "x18 0 p1 2", r"dev_qrels\.txt, line 5: expected a query id"),
    ("queries.tsv", 2, "q11 how do you clean smoke off walls", r"queries\.tsv, line 2: expected 2 tab"),
    ("pid_map.tsv", 9, "msmarco_passage_1\tq8", r"pid_map\.tsv, line 9: expected a passage id"),
])
def test_a_malformed_line_is_named_with_its_file_and_line(copy, name, number, text, message):
    _replace_line(copy / name, number, text)
    with pytest.raises(ValueError, match=message):
        rm.load_llmjudge(copy)


def test_a_pair_given_twice_or_missing_is_named(copy):
    path = copy / "judges" / "willia-umbrela2.txt"
    lines = path.read_text().split("\n")
    first = lines[0]
    _replace_line(path, 2, first)
    with pytest.raises(ValueError, match=r"willia-umbrela2\.txt, line 2: the pair \(q49, p3659\) "
                                         r"is given twice"):
        rm.load_llmjudge(copy)
    path.write_text("\n".join(lines[1:]))
    with pytest.raises(ValueError, match=r"willia-umbrela2\.txt: grades 4422 of the 4423 test "
                                         r"pairs; missing \('q49', 'p3659'\)"):
        rm.load_llmjudge(copy)


def test_bytes_that_are_not_utf8_are_named_with_their_line(copy):
    path = copy / "queries.tsv"
    blob = path.read_bytes().split(b"\n")
    blob[3] = blob[3] + b"\xff"
    path.write_bytes(b"\n".join(blob))
    with pytest.raises(ValueError, match=r"queries\.tsv, line 4: not UTF-8"):
        rm.load_llmjudge(copy)


def test_a_changed_grade_that_parses_is_caught_by_the_digest(copy):
    _replace_line(copy / "judges" / "h2oloo-fewself.txt", 1, "q49 0 p3659 0")
    with pytest.raises(ValueError, match=r"judges/h2oloo-fewself\.txt differs from the shipped"):
        rm.load_llmjudge(copy)
    changed = rm.load_llmjudge(copy, verify=False)
    assert changed.judges["h2oloo-fewself"]["q49"]["p3659"] == 0


def test_a_changed_manifest_is_refused(copy):
    text = (copy / "SHA256SUMS").read_text()
    (copy / "SHA256SUMS").write_text(text.replace("judges/", "judges/ ", 1))
    with pytest.raises(ValueError, match="SHA256SUMS differs from the shipped one"):
        rm.load_llmjudge(copy)


@pytest.mark.parametrize("name", ["test_qrels.txt", "judges/prophet-setting4.txt",
                                  "LICENSE-LLMJudge-benchmark"])
def test_a_missing_file_is_named(copy, name):
    (copy / name).unlink()
    with pytest.raises(FileNotFoundError, match=name.replace(".", r"\.")):
        rm.load_llmjudge(copy)


def test_verify_must_be_a_bool():
    with pytest.raises(TypeError, match="verify must be True or False, got 'no'"):
        rm.load_llmjudge(verify="no")
