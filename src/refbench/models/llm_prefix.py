"""Shared-prefix scoring: the tokens every candidate of an instance shares are run once.

The requests of one choice instance differ only after the expression (the substitution form:
each candidate replaces the pronoun, the rest of the text is the same) or only in the answer
(a question form: one prompt, one continuation per candidate). Scored one by one, the model
reads the shared text once per candidate; here a group of requests whose token sequences start
alike is run in two steps: the longest common prefix once (its keys and values kept,
transformers' ``past_key_values``), then every candidate's remainder from that cache, the
remainders of a chunk of groups in one right-padded batch.

Positions and masks are what they are when a sequence is scored alone: the prefixes of a chunk
are right-padded to the longest, so a row's cache may hold padding between its prefix and its
remainder; the attention mask hides those slots and the remainder's position ids continue from
the row's own prefix length (not from the padded width), so every real token sees the same
tokens at the same positions as in :meth:`LoglikModel.continuation_logprobs`. Scores agree
with scoring each candidate alone up to float rounding (tested within 1e-4 on KITMUS and
WSC273). Only the tokens before the first scored token are shared (a prefix never swallows a
token whose probability is asked for), so every scored position is in a remainder.

Grouping never changes a score, only the work: requests are grouped in the order given
(``predict`` gives them instance by instance), a request joining the group before it while the
group's shared prefix stays at least half of its shortest sequence.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

Encoded = tuple[list[int], int, int]  # token ids, index of the first scored token, tokens cut

MIN_SHARED = 2  # a shorter common prefix is not worth a second forward pass


def _lcp(a: Sequence[int], b: Sequence[int], limit: int) -> int:
    n = min(len(a), len(b), limit)
    for i in range(n):
        if a[i] != b[i]:
            return i
    return n


def shareable(seq: Encoded) -> int:
    """How many leading tokens of a sequence may be shared: all before the first scored one
    (a sequence's last token is never an input, and the token before the first scored one is
    the input that predicts it, so it stays in the remainder)."""
    ids, n_ctx, _ = seq
    return max(0, min(n_ctx - 1, len(ids) - 2))


def group_requests(encoded: Sequence[Encoded]) -> list[tuple[list[int], int]]:
    """(request indices, shared length) per group, in the order given. A group of one shares
    nothing (length 0)."""
    groups: list[tuple[list[int], int]] = []
    members: list[int] = []
    shared = 0
    for i, seq in enumerate(encoded):
        if members:
            first = encoded[members[0]][0]
            joined = min(shared if len(members) > 1 else shareable(encoded[members[0]]),
                         _lcp(first, seq[0], shareable(seq)))
            shortest = min(min(len(encoded[m][0]) for m in members), len(seq[0])) - 1
            if joined >= MIN_SHARED and 2 * joined >= shortest:
                members.append(i)
                shared = joined
                continue
            groups.append((members, shared if len(members) > 1 else 0))
        members, shared = [i], 0
    if members:
        groups.append((members, shared if len(members) > 1 else 0))
    return groups


def cache_keyword(model: Any) -> str:
    """The forward argument that takes a cache: ``cache`` in transformers releases that
    renamed it, else ``past_key_values``."""
    import inspect

    params = inspect.signature(model.forward).parameters
    return "cache" if "cache" in params else "past_key_values"


def score_shared(model: Any, encoded: Sequence[Encoded], groups: Sequence[tuple[list[int], int]],
                 *, pad: int, device: Any, keeps_logits: bool) -> dict[int, float]:
    """Summed continuation log-probability of every request in ``groups`` (each shares
    ``length`` > 0 leading tokens), in two forward passes: the groups' prefixes, then all
    their remainders from the prefixes' cache."""
    import torch

    lengths = [length for _, length in groups]
    width = max(lengths)
    ids = torch.full((len(groups), width), pad, dtype=torch.long)
    mask = torch.zeros((len(groups), width), dtype=torch.long)
    for g, (members, length) in enumerate(groups):
        ids[g, :length] = torch.tensor(encoded[members[0]][0][:length])
        mask[g, :length] = 1
    extra: dict[str, Any] = {"logits_to_keep": 1} if keeps_logits else {}
    out = model(input_ids=ids.to(device), attention_mask=mask.to(device), use_cache=True,
                **extra)
    cache = out.cache if hasattr(out, "cache") else out.past_key_values

    rows = [(g, i) for g, (members, _) in enumerate(groups) for i in members]
    cache_arg = cache_keyword(model)
    cache.reorder_cache(torch.tensor([g for g, _ in rows], device=device))
    rests = [encoded[i][0][lengths[g]:-1] for g, i in rows]
    rest_width = max(len(r) for r in rests)
    rest_ids = torch.full((len(rows), rest_width), pad, dtype=torch.long)
    full_mask = torch.zeros((len(rows), width + rest_width), dtype=torch.long)
    positions = torch.zeros((len(rows), rest_width), dtype=torch.long)
    for r, ((g, _), rest) in enumerate(zip(rows, rests, strict=True)):
        rest_ids[r, :len(rest)] = torch.tensor(rest)
        full_mask[r, :lengths[g]] = 1
        full_mask[r, width:width + len(rest)] = 1
        positions[r] = torch.arange(lengths[g], lengths[g] + rest_width)
    # first remainder position any row scores (remainder position t predicts token t + 1)
    first = min(encoded[i][1] - 1 - lengths[g] for g, i in rows)
    keep = {"logits_to_keep": rest_width - first} if keeps_logits else {}
    offset = first if keeps_logits else 0
    logits = model(input_ids=rest_ids.to(device), attention_mask=full_mask.to(device),
                   position_ids=positions.to(device), use_cache=False, **{cache_arg: cache},
                   **keep).logits
    sums: dict[int, float] = {}
    for r, (g, i) in enumerate(rows):
        seq, n_ctx, _ = encoded[i]
        start, stop = n_ctx - 1 - lengths[g] - offset, len(seq) - 1 - lengths[g] - offset
        lp = torch.log_softmax(logits[r, start:stop].float(), dim=-1)
        target = torch.tensor(seq[n_ctx:], device=lp.device)
        sums[i] = float(lp.gather(-1, target.unsqueeze(-1)).sum())
    return sums


def chunk_groups(encoded: Sequence[Encoded], groups: Sequence[tuple[list[int], int]],
                 prefixes: int) -> list[list[tuple[list[int], int]]]:
    """Groups in chunks of ``prefixes`` groups (the first pass runs that many prefixes, the
    second all their remainders). Padding costs as much as a real token on a CPU, and the
    remainders pass is padded to its longest remainder: groups are taken longest remainder
    first, then longest prefix first, which on KITMUS leaves about 3% of the tokens padding."""
    def key(group: tuple[list[int], int]) -> tuple[int, int, int]:
        members, length = group
        return (-max(len(encoded[i][0]) - 1 - length for i in members), -length, members[0])

    order = sorted(groups, key=key)
    return [order[k:k + prefixes] for k in range(0, len(order), prefixes)]
