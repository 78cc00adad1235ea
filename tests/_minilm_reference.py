"""transformers' BERT run on padded batches: every layer's hidden states and attention weights."""


def reference_hidden(ref, batch_ids, pad=0):
    """Hidden states and attention weights of ``ref`` (transformers' model) on ``batch_ids``,
    padded with ``pad`` to the longest, each as a list of NumPy arrays."""
    import torch

    width = max(len(x) for x in batch_ids)
    ids = torch.full((len(batch_ids), width), pad, dtype=torch.long)
    mask = torch.zeros((len(batch_ids), width), dtype=torch.long)
    for row, seq in enumerate(batch_ids):
        ids[row, :len(seq)] = torch.tensor(seq)
        mask[row, :len(seq)] = 1
    with torch.no_grad():
        out = ref(ids, attention_mask=mask, output_hidden_states=True, output_attentions=True)
    return [h.numpy() for h in out.hidden_states], [a.numpy() for a in out.attentions]
