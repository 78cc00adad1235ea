"""The GGUF reader: tiny files written by ggml's own ``gguf`` package, read back by ours.

The references: ``gguf.GGUFWriter`` writes the files (header, metadata of every
type, tensors of every type we read, padding), ``gguf.quants`` quantizes and
dequantizes the blocks; one Q4_1 and one Q8_0 block are also worked by hand.
Damaged copies (truncated anywhere, bytes flipped in the header) must raise
GGUFError naming the file, never an IndexError or a wrong array.
"""

import struct

import numpy as np
import pytest

from ragmetrics_edu.models import gguf as ours

gguf = pytest.importorskip("gguf")
Q = gguf.GGMLQuantizationType


def half_bytes(x):
    return np.frombuffer(np.float16(x).tobytes(), dtype=np.uint8)


def test_q4_1_block_by_hand():
    # d = 0.25, m = -2; byte j holds q_j (low nibble) and q_{j+16} (high nibble)
    block = np.zeros(20, dtype=np.uint8)
    block[0:2], block[2:4] = half_bytes(0.25), half_bytes(-2.0)
    q = np.arange(32) % 16
    block[4:] = q[:16] | (q[16:] << 4)
    expected = 0.25 * q - 2.0
    assert ours.dequantize_q4_1(block.reshape(1, 20))[0].tolist() == expected.tolist()


def test_q8_0_and_q4_0_blocks_by_hand():
    block = np.zeros(34, dtype=np.uint8)
    block[0:2] = half_bytes(0.5)
    q = np.arange(-16, 16, dtype=np.int8)
    block[2:] = q.view(np.uint8)
    assert ours.dequantize_q8_0(block.reshape(1, 34))[0].tolist() == (0.5 * q).tolist()
    block = np.zeros(18, dtype=np.uint8)
    block[0:2] = half_bytes(2.0)
    q = np.arange(32) % 16
    block[2:] = q[:16] | (q[16:] << 4)
    assert ours.dequantize_q4_0(block.reshape(1, 18))[0].tolist() == (2.0 * (q - 8)).tolist()


def test_unpack_nibbles():
    packed = np.array([[0x00, 0xFF, 0x1E]], dtype=np.uint8)
    assert ours.unpack_nibbles(packed).tolist() == [[0, 15, 14, 0, 15, 1]]


@pytest.mark.parametrize("qtype", [Q.Q4_0, Q.Q4_1, Q.Q8_0])
def test_dequantize_equals_ggml_reference(qtype):
    rng = np.random.default_rng(int(qtype))
    x = (rng.standard_normal((7, 64)) * rng.uniform(0.01, 10, (7, 1))).astype(np.float32)
    raw = gguf.quants.quantize(x, qtype)
    expected = gguf.quants.dequantize(raw, qtype)
    got = ours.dequantize(raw, ours.GGML_TYPES[int(qtype)], x.shape)
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got, expected)          # the same bits
    assert np.abs(got - x).max() <= np.abs(x).max() / 7    # and a quantization of x


def test_dequantize_in_steps(monkeypatch):
    # past the step size, the pieces land where they belong
    monkeypatch.setattr(ours, "_ROWS_PER_STEP", 3)
    x = np.random.default_rng(0).standard_normal((5, 64)).astype(np.float32)
    raw = gguf.quants.quantize(x, Q.Q4_1)
    np.testing.assert_array_equal(ours.dequantize(raw, "Q4_1", x.shape),
                                  gguf.quants.dequantize(raw, Q.Q4_1))


def test_dequantize_bad_arguments():
    with pytest.raises(ValueError, match="gtype must be one of"):
        ours.dequantize(np.zeros(20, np.uint8), "Q6_K", (32,))
    with pytest.raises(ValueError, match="cannot hold shape"):
        ours.dequantize(np.zeros(20, np.uint8), "Q4_1", (64,))


def write_tiny(path, alignment=None):
    """A GGUF file with metadata of every type and tensors of every type we read."""
    rng = np.random.default_rng(7)
    w = gguf.GGUFWriter(str(path), "llama")
    w.add_uint32("test.u32", 7)
    w.add_int32("test.i32", -3)
    w.add_float32("test.f32", 0.5)
    w.add_uint64("test.u64", 2**40)
    w.add_bool("test.bool", True)
    w.add_string("test.str", "naïve café 😀")
    w.add_array("test.ints", [1, 2, 3])
    w.add_array("test.strs", ["a", "Ġb", ""])
    if alignment:
        w.add_custom_alignment(alignment)
    tensors = {
        "f32": rng.standard_normal((3, 5)).astype(np.float32),
        "f16": rng.standard_normal((2, 4)).astype(np.float16),
        "q8": rng.standard_normal((4, 64)).astype(np.float32),
        "q4_0": rng.standard_normal((2, 32)).astype(np.float32),
        "q4_1": rng.standard_normal((3, 96)).astype(np.float32),
    }
    expected = {"f32": tensors["f32"], "f16": tensors["f16"].astype(np.float32)}
    w.add_tensor("f32", tensors["f32"])
    w.add_tensor("f16", tensors["f16"])
    for name, qtype in (("q8", Q.Q8_0), ("q4_0", Q.Q4_0), ("q4_1", Q.Q4_1)):
        raw = gguf.quants.quantize(tensors[name], qtype)
        w.add_tensor(name, raw, raw_dtype=qtype)
        expected[name] = gguf.quants.dequantize(raw, qtype)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    return expected


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    path = tmp_path_factory.mktemp("gguf") / "tiny.gguf"
    return path, write_tiny(path)


def test_reads_metadata_of_every_type(tiny):
    path, _ = tiny
    f = ours.read_gguf(path)
    m = f.metadata
    assert f.version == 3 and m["general.architecture"] == "llama"
    assert (m["test.u32"], m["test.i32"], m["test.f32"], m["test.u64"], m["test.bool"]) \
        == (7, -3, 0.5, 2**40, True)
    assert m["test.str"] == "naïve café 😀"
    assert m["test.ints"].tolist() == [1, 2, 3]
    assert m["test.strs"] == ["a", "Ġb", ""]
    # the reference reader agrees on every key
    assert set(gguf.GGUFReader(str(path)).fields) == set(m) | {
        "GGUF.version", "GGUF.tensor_count", "GGUF.kv_count"}


def test_reads_tensors_of_every_type(tiny):
    path, expected = tiny
    f = ours.read_gguf(path)
    assert {n: i.type.name for n, i in f.tensors.items()} == {
        "f32": "F32", "f16": "F16", "q8": "Q8_0", "q4_0": "Q4_0", "q4_1": "Q4_1"}
    for name, want in expected.items():
        got = f.tensor(name)
        assert got.dtype == np.float32 and got.shape == want.shape, name
        np.testing.assert_array_equal(got, want.reshape(got.shape))
    # offsets as the reference reader finds them
    for t in gguf.GGUFReader(str(path)).tensors:
        assert f.tensors[t.name].offset == t.data_offset


def test_alignment_is_read(tmp_path):
    path = tmp_path / "aligned.gguf"
    expected = write_tiny(path, alignment=64)
    f = ours.read_gguf(path)
    assert f.alignment == 64
    assert all(i.offset % 64 == 0 for i in f.tensors.values())
    np.testing.assert_array_equal(f.tensor("q4_1"), expected["q4_1"])


def test_unknown_tensor_name(tiny):
    with pytest.raises(ours.GGUFError, match="no tensor named 'nope'"):
        ours.read_gguf(tiny[0]).tensor("nope")


def test_missing_file(tmp_path):
    with pytest.raises(FileNotFoundError, match="does not exist"):
        ours.read_gguf(tmp_path / "absent.gguf")


@pytest.mark.parametrize("fraction", [0.0, 0.001, 0.01, 0.05, 0.2, 0.5, 0.9])
def test_truncated_copies_are_refused(tiny, tmp_path, fraction):
    data = tiny[0].read_bytes()
    cut = tmp_path / "cut.gguf"
    cut.write_bytes(data[:int(len(data) * fraction)])
    with pytest.raises(ours.GGUFError, match="cut.gguf: (truncated|damaged)"):
        ours.read_gguf(cut)


def test_cut_in_the_last_tensor_is_refused(tiny, tmp_path):
    # the file may end in padding; one byte short of the last tensor's end is damage
    end = max(t.data_offset + t.n_bytes for t in gguf.GGUFReader(str(tiny[0])).tensors)
    cut = tmp_path / "cut.gguf"
    cut.write_bytes(tiny[0].read_bytes()[:end - 1])
    with pytest.raises(ours.GGUFError, match="cut.gguf: truncated: tensor"):
        ours.read_gguf(cut)
    cut.write_bytes(tiny[0].read_bytes()[:end])          # not one byte short: fine
    assert len(ours.read_gguf(cut).tensors) == 5


def test_every_truncation_of_the_header_is_refused(tiny, tmp_path):
    data = tiny[0].read_bytes()
    cut = tmp_path / "cut.gguf"
    for n in range(0, 700, 7):
        cut.write_bytes(data[:n])
        with pytest.raises(ours.GGUFError, match="cut.gguf"):
            ours.read_gguf(cut)


def patched(tmp_path, data, offset, new):
    path = tmp_path / "bad.gguf"
    path.write_bytes(data[:offset] + new + data[offset + len(new):])
    return path


def test_damaged_headers(tiny, tmp_path):
    data = tiny[0].read_bytes()
    cases = [
        (0, b"GGML", "not a GGUF file"),
        (4, struct.pack("<I", 1), "GGUF version 1"),
        (8, struct.pack("<Q", 2**40), "damaged header"),
        (16, struct.pack("<Q", 2**40), "damaged header"),
        (24, struct.pack("<Q", 2**50), "truncated or damaged"),   # the first key's length
    ]
    for offset, new, message in cases:
        with pytest.raises(ours.GGUFError, match=f"bad.gguf: .*{message}"):
            ours.read_gguf(patched(tmp_path, data, offset, new))


def tensor_info_offset(data, name):
    """Where tensor ``name``'s info starts (its name's length field)."""
    key = struct.pack("<Q", len(name)) + name.encode()
    return data.index(key)


def test_damaged_tensor_infos(tiny, tmp_path):
    data = tiny[0].read_bytes()
    at = tensor_info_offset(data, "q4_1") + 8 + 4          # after the name: n_dims
    cases = [
        (at, struct.pack("<I", 9), "has 9 dimensions"),
        (at + 4, struct.pack("<Q", 95), "first a multiple of 32"),
        (at + 4 + 16, struct.pack("<I", 14), "ggml type Q6_K, which this reader does not"),
        (at + 4 + 16, struct.pack("<I", 77), "ggml type number 77"),
        (at + 4 + 20, struct.pack("<Q", 3), "not a multiple of the alignment"),
        (at + 4 + 20, struct.pack("<Q", 2**30), "truncated: tensor 'q4_1' needs bytes"),
    ]
    for offset, new, message in cases:
        with pytest.raises(ours.GGUFError, match=f"bad.gguf: .*{message}"):
            ours.read_gguf(patched(tmp_path, data, offset, new))


def test_damaged_metadata_type(tiny, tmp_path):
    data = tiny[0].read_bytes()
    key = b"test.u32"
    at = data.index(key) + len(key)
    with pytest.raises(ours.GGUFError, match="bad.gguf: metadata 'test.u32' has unknown value type 99"):
        ours.read_gguf(patched(tmp_path, data, at, struct.pack("<I", 99)))


def test_not_utf8_key(tiny, tmp_path):
    data = tiny[0].read_bytes()
    at = data.index(b"test.u32")
    with pytest.raises(ours.GGUFError, match="is not UTF-8"):
        ours.read_gguf(patched(tmp_path, data, at, b"\xff\xfe"))
