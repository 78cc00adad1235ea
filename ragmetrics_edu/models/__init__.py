"""The models, leaves of the package: they import nothing of it but ``_validation`` and ``_lazy``.

:mod:`.minilm` is the transformer (BERT, all-MiniLM-L6-v2) written in
NumPy, to read next to notebook 06: reading a model folder, the forward
pass block by block, attention weights, sentence vectors.  :mod:`.loading`
loads a model once for every part that needs one (BERTScore, dense
retrieval, the offline judge, the RAG metrics), with the NumPy backend or
PyTorch's as the tests' reference, and turns texts into vectors.

:mod:`.decoder` is the language model (SmolLM2-135M-Instruct, a Llama
decoder) in NumPy, block by block, with generation, constrained replies
and next-token distributions; it reads its GGUF file with :mod:`.gguf`,
its weights with :mod:`.llm_weights`, its tokenizer and chat template with
:mod:`.chat`, and turns logits into tokens with :mod:`.sampling`.  Nothing
heavy is imported until a model is first used.

:mod:`.minilm`'s blocks are written as their formulas; :func:`.minilm.forward`
runs the same function on a private fast path, ``_minilm_fast`` (GELU from a
fitted polynomial, attention in cache-sized groups, every core at work), which
tests hold equal to the blocks and both to transformers.

:mod:`.decoder` is written as its formulas, to be read next to the
notebooks; :class:`~.decoder.LanguageModel` runs the same function on a
private fast path for prompts, ``_decoder_fast`` (prompts cut into runs
of tokens, causal attention in blocks), with ``_threads`` (the worker
threads and BLAS's); decoding runs :func:`.decoder.forward` itself.  Tests hold the fast path
equal to :func:`.decoder.forward` and both to transformers.
"""

from .._lazy import lazy_attributes as _lazy_attributes

__getattr__, __dir__ = _lazy_attributes(__name__, modules={
    "minilm", "loading", "decoder", "gguf", "llm_weights", "chat", "sampling"})
