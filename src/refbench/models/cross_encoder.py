"""``cross-encoder``: MiniLM fine-tuned to score (candidate evidence, expression) pairs.

Each candidate ``k`` becomes one pair: its evidence (description, or its own sentences and the
background sentences about them) and the expression's sentence with the expression replaced by
the candidate (pronoun tasks, KnowRef eq. 1) or the expression itself (free text).

A pair's logit is the cross-encoder term (a linear head on the mean-pooled joint encoding of the
pair) plus a learned multiple of a similarity prior: the cosine between MiniLM's own sentence
embeddings of the evidence and of the expression's sentence, each as a bag of content words
without the candidate's name. The prior keeps what the pre-trained sentence encoder knows
(occupation <-> situation) while the cross term learns the task; without it, fine-tuning on a
few dozen training occupations generalises worse to unseen ones than MiniLM does zero-shot
(measured: 0.91 vs 0.95 dev accuracy on background-pretrain, 4 entities). Heads:

- ``joint``: one logit per pair, softmax over the candidates of an instance (cross-entropy);
- ``binary``: one logit per pair, sigmoid, trained with binary cross-entropy; at inference the
  highest-scoring candidate wins.

Candidates with long free-text descriptions (AltEntities: a Wikipedia background of 300-900
words against a short expression such as "the one from Indonesia") do not fit a pair window, and
cutting the description at a fixed point keeps the infobox and loses the rest. For those
instances (candidates with descriptions, expression not in the context) the evidence is
*selected*: the description sentences whose frozen MiniLM embeddings are closest to the
expression, up to ``evidence_words`` words, in document order after the candidate's name; the
prior is then the best sentence's cosine (frozen, no gradient). The untrained network is
therefore the zero-shot "most similar sentence" scorer, and fine-tuning starts from it.

A trained model lives in a folder: ``config.json``, ``model.pt`` (best dev checkpoint), and
``checkpoint/`` for resuming. ``cross-encoder:DIR`` loads it (a folder without ``model.pt``, or
with one that is not a safe torch file of this network, is an error naming it); a bare
``cross-encoder`` is the untrained MiniLM with a freshly initialised head (seeded), useful only
as a control.

At inference the pairs of a whole ``predict`` call are sorted by length and encoded
``batch_size`` at a time (little padding; the option is pairs per forward pass), on ``device``
(auto: CUDA when available). Scores do not depend on the grouping beyond float rounding.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from refbench.core.checkpoint import load_safe, load_state_dict
from refbench.core.device import DEVICE_HELP, resolve_device
from refbench.core.errors import RefbenchError
from refbench.core.options import Option
from refbench.core.types import ChoiceInstance
from refbench.models.base import ChoiceModel, ModelOutput, argmax, file_fingerprint
from refbench.models.text import (
    candidate_evidence,
    content_words,
    description_sentences,
    marked_expression_sentence,
)
from refbench.nlp.encoder import (
    SentenceEncoder,
    mean_pool,
    minilm_path,
    quiet_transformers,
)

HEADS = ("joint", "binary")
DEFAULT_EVIDENCE_WORDS = 60


def described(inst: ChoiceInstance) -> bool:
    """Free-text choice (the expression is not in the context) between described candidates."""
    return inst.expression_offset is None and all(c.description for c in inst.candidates)


class EvidenceSelector:
    """The description sentences closest to the expression, up to a word budget (see above).

    Results are cached per (expression, name, description, budget); ``warm`` fills the cache for
    many instances at once (sentences sorted by length, so batches carry little padding).
    """

    def __init__(self) -> None:
        self.encoder = SentenceEncoder(max_length=128, batch_size=64)
        self.cache: dict[tuple[str, str, str, int], tuple[str, float]] = {}

    def _compute(self, keys: Sequence[tuple[str, str, str, int]]) -> None:
        todo = [k for k in dict.fromkeys(keys) if k not in self.cache]
        if not todo:
            return
        sents = {k: description_sentences(k[2]) or [k[1]] for k in todo}
        texts = sorted({t for k in todo for t in (k[0], *sents[k])}, key=lambda t: (len(t), t))
        emb = dict(zip(texts, self.encoder.encode(texts), strict=True))
        for key in todo:
            expression, name, _, budget = key
            ss = sents[key]
            sims = [float(emb[t] @ emb[expression]) for t in ss]
            order = sorted(range(len(ss)), key=lambda i: (-sims[i], i))
            chosen: list[int] = []
            used = 0
            for i in order:
                n = len(ss[i].split())
                if chosen and used + n > budget:
                    continue
                chosen.append(i)
                used += n
                if used >= budget:
                    break
            text = " ".join(" ".join(ss[i].split()[:budget]) for i in sorted(chosen))
            self.cache[key] = (f"{name}. {text}", max(sims))

    def warm(self, instances: Sequence[ChoiceInstance], budget: int, *,
             progress: bool = False) -> None:
        from tqdm import tqdm

        todo = [inst for inst in instances if described(inst)]
        step = 128
        for i in tqdm(range(0, len(todo), step), desc="selecting evidence", unit="batch",
                      disable=not progress or not todo):
            self._compute([self.key(inst, k, budget) for inst in todo[i:i + step]
                           for k in range(len(inst.candidates))])
        self.encoder.clear()  # the selections are cached; the sentence vectors are not needed

    @staticmethod
    def key(inst: ChoiceInstance, k: int, budget: int) -> tuple[str, str, str, int]:
        c = inst.candidates[k]
        return (inst.expression, c.text, c.description or "", budget)

    def get(self, inst: ChoiceInstance, k: int, budget: int) -> tuple[str, float]:
        key = self.key(inst, k, budget)
        if key not in self.cache:
            self._compute([key])
        return self.cache[key]


SELECTOR = EvidenceSelector()


def pair_texts(inst: ChoiceInstance,
               evidence_words: int = DEFAULT_EVIDENCE_WORDS) -> list[tuple[str, str]]:
    out = []
    for k, cand in enumerate(inst.candidates):
        if inst.expression_offset is not None:
            query = marked_expression_sentence(inst, replacement=cand.text)
        else:
            query = inst.expression
        evidence = (SELECTOR.get(inst, k, evidence_words)[0] if described(inst)
                    else candidate_evidence(inst, k))
        out.append((evidence, query))
    return out


def prior_texts(inst: ChoiceInstance) -> list[tuple[str, str]] | None:
    """Bags of content words, without candidate names, for the similarity prior; None when
    no candidate has evidence beyond its name (KnowRef, Winograd: one sentence naming both).
    Comparing a bare name with the sentence measures the name, not the answer: on KnowRef that
    prior, at its initial weight of 20, was a name-dependent noise of about one logit that
    training did not remove (the prior's weight moves by the encoder's learning rate)."""
    names = set().union(*(content_words(c.text) for c in inst.candidates))
    query = " ".join(sorted(content_words(marked_expression_sentence(inst, replacement=""))
                            - names)) if inst.expression_offset is not None else inst.expression
    evidence = [" ".join(sorted(content_words(candidate_evidence(inst, k)) - names))
                for k in range(len(inst.candidates))]
    if not any(evidence):
        return None
    return [(e or inst.candidates[k].text, query or inst.expression)
            for k, e in enumerate(evidence)]


def build_network(head: str, seed: int) -> Any:
    import torch
    from transformers import AutoModel

    class PairScorer(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            torch.manual_seed(seed)
            self.encoder = AutoModel.from_pretrained(str(minilm_path()), local_files_only=True)
            hidden = self.encoder.config.hidden_size
            self.dropout = torch.nn.Dropout(0.1)
            self.head = torch.nn.Linear(hidden, 1)
            torch.nn.init.zeros_(self.head.weight)  # start from the prior alone
            torch.nn.init.zeros_(self.head.bias)
            self.prior_scale = torch.nn.Parameter(torch.tensor(20.0))
            # The prior's weight per pair: a negated expression ("not the one about the
            # tutor", 11-23% of AltEntities test expressions) needs the prior turned around.
            self.gate = torch.nn.Linear(hidden, 1)
            torch.nn.init.zeros_(self.gate.weight)
            torch.nn.init.zeros_(self.gate.bias)
            self.kind = head

        def pool(self, enc: Any) -> Any:
            return mean_pool(self.encoder(**enc).last_hidden_state, enc["attention_mask"])

        def cosine(self, evidence: Any, query: Any) -> Any:
            return torch.nn.functional.cosine_similarity(self.pool(evidence), self.pool(query),
                                                         dim=-1)

        def terms(self, pair: Any) -> Any:
            """Per pair: the cross-encoder term and the gate on the prior's weight."""
            h = self.dropout(self.pool(pair))
            return torch.cat([self.head(h), self.gate(h)], dim=-1)

        def combine(self, terms: Any, prior: Any) -> Any:
            return terms[:, 0] + (self.prior_scale + terms[:, 1]) * prior

        def forward(self, pair: Any, prior: Any) -> Any:
            return self.combine(self.terms(pair), prior)

    return PairScorer()


class CrossEncoderModel(ChoiceModel):
    name = "cross-encoder"
    batch_size = 32
    OPTIONS = (Option("head", str, "joint", "joint or binary", choices=HEADS),
               Option("max_length", int, 128, "word pieces per pair", min=1),
               Option("evidence_words", int, DEFAULT_EVIDENCE_WORDS,
                      "description words selected per candidate", min=1),
               Option("seed", int, 0, "seed of an untrained head"),
               Option("batch_size", int, 64, "pairs per forward pass", min=1),
               Option("device", str, "auto", DEVICE_HELP))

    @classmethod
    def reader_defaults(cls, argument: str | None) -> dict[str, Any]:
        """How a trained folder's training data was read (its config's ``reader``)."""
        from refbench.core.io import load_json_object

        cfg = Path(argument) / "config.json" if argument else None
        if cfg is None or not cfg.is_file():
            return {}
        reader = load_json_object(cfg, "model configuration").get("reader") or {}
        return dict(reader) if isinstance(reader, dict) else {}

    def __init__(self, argument: str | None = None, **options: Any) -> None:
        super().__init__(argument, **options)
        import torch
        from transformers import AutoTokenizer

        quiet_transformers()
        self.dir = Path(argument) if argument else None
        cfg: dict[str, Any] = {k: self.option(k) for k in
                               ("head", "max_length", "evidence_words", "seed")}
        if self.dir is not None:
            cfg_path = self.dir / "config.json"
            if not cfg_path.is_file():
                raise RefbenchError("not a trained cross-encoder folder (no config.json); "
                                    "train one with refbench train --model cross-encoder",
                                    path=self.dir)
            cfg.update(json.loads(cfg_path.read_text()))
        if cfg["head"] not in HEADS:
            raise RefbenchError(f"unknown head {cfg['head']!r}; choose from {', '.join(HEADS)}")
        self.cfg = cfg
        self.forward_batch = int(self.option("batch_size"))
        self.device = resolve_device(str(self.option("device")))
        # Weights first: a missing or broken model.pt fails before MiniLM is loaded.
        weights = self.dir / "model.pt" if self.dir is not None else None
        state = (load_safe(weights, what="cross-encoder weights (model.pt)")
                 if weights is not None else None)
        self.tokenizer = AutoTokenizer.from_pretrained(str(minilm_path()), local_files_only=True)
        self.net = build_network(cfg["head"], int(cfg["seed"]))
        if state is not None:
            if isinstance(state, dict) and "gate.weight" not in state:  # trained before gates
                state = {**state, "gate.weight": torch.zeros_like(self.net.gate.weight),
                         "gate.bias": torch.zeros_like(self.net.gate.bias)}
            load_state_dict(self.net, state, what="cross-encoder weights", path=weights)
        self.net.to(self.device)
        self.net.eval()
        self.keep_selections = False

    def config(self) -> dict[str, Any]:
        weights = file_fingerprint(self.dir / "model.pt") if self.dir else "untrained"
        return {"name": self.name, "head": self.cfg["head"], "max_length": self.cfg["max_length"],
                "batch_size": self.forward_batch, "device": self.device.type,
                "weights": weights, "seed": self.cfg.get("seed"),
                "prior": "cosine-v2+select-v1+gate",
                "evidence_words": self.cfg.get("evidence_words", DEFAULT_EVIDENCE_WORDS),
                "train_domains": self.cfg.get("train_domains")}

    def _tok(self, a: Sequence[str], b: Sequence[str] | None = None) -> Any:
        enc = self.tokenizer(list(a), list(b) if b is not None else None, padding=True,
                             truncation=True, max_length=self.cfg["max_length"],
                             return_tensors="pt")
        return enc.to(self.device)

    def _sorted_apply(self, fn: Any, a: Sequence[str], b: Sequence[str] | None = None) -> Any:
        """``fn(encoding)`` over length-sorted groups of ``batch_size`` texts (or pairs), put
        back in input order: one padded batch for everything wastes most of its work on
        padding when lengths vary (AltEntities evidence against KITMUS sentences)."""
        import torch

        lengths = [len(x) for x in self.tokenizer(
            list(a), list(b) if b is not None else None, truncation=True,
            max_length=self.cfg["max_length"])["input_ids"]]
        order = sorted(range(len(lengths)), key=lambda i: (-lengths[i], i))
        parts = [fn(self._tok([a[i] for i in idx], [b[i] for i in idx] if b is not None
                              else None))
                 for idx in (order[k:k + self.forward_batch]
                             for k in range(0, len(order), self.forward_batch))]
        out = torch.cat(parts)
        return out[torch.tensor(sorted(range(len(order)), key=order.__getitem__),
                                device=out.device)]

    @property
    def evidence_words(self) -> int:
        return int(self.cfg.get("evidence_words", DEFAULT_EVIDENCE_WORDS))

    def warm(self, instances: Sequence[ChoiceInstance], *, progress: bool = False) -> None:
        """Select the evidence of many described instances at once (fast, cached)."""
        SELECTOR.warm(instances, self.evidence_words, progress=progress)

    def logits(self, instances: Sequence[ChoiceInstance], *, grouped: bool = False) -> Any:
        """One logit per candidate of every instance, flattened in order. ``grouped``
        (inference): length-sorted groups of ``batch_size``; else one batch (training)."""
        import torch

        budget = self.evidence_words
        SELECTOR.warm(instances, budget)
        pairs = [p for inst in instances for p in pair_texts(inst, budget)]
        fixed: list[float] = []
        dynamic: list[int] = []
        dynamic_texts: list[tuple[str, str]] = []
        for inst in instances:
            if described(inst):
                fixed.extend(SELECTOR.get(inst, k, budget)[1] for k in range(len(inst.candidates)))
                continue
            texts = prior_texts(inst)
            if texts is None:  # no evidence to compare: the prior is 0 for every candidate
                fixed.extend(0.0 for _ in inst.candidates)
                continue
            for text in texts:
                dynamic.append(len(fixed))
                dynamic_texts.append(text)
                fixed.append(0.0)
        prior = torch.tensor(fixed, device=self.device)
        if dynamic:
            if grouped:
                pooled = self._sorted_apply(self.net.pool,
                                            [t for pair in dynamic_texts for t in pair])
                cos = torch.nn.functional.cosine_similarity(pooled[0::2], pooled[1::2], dim=-1)
            else:
                cos = self.net.cosine(self._tok([a for a, _ in dynamic_texts]),
                                      self._tok([b for _, b in dynamic_texts]))
            prior = prior.index_copy(0, torch.tensor(dynamic, device=self.device), cos)
        if not grouped:
            return self.net(self._tok([a for a, _ in pairs], [b for _, b in pairs]), prior)
        terms = self._sorted_apply(self.net.terms, [a for a, _ in pairs], [b for _, b in pairs])
        return self.net.combine(terms, prior)

    def predict(self, batch: Sequence[ChoiceInstance]) -> list[ModelOutput]:
        """Scores that depend on this batch alone: the evidence selections are recomputed per
        call unless ``keep_selections`` (training keeps them for its dev evaluations), since
        a sentence's embedding changes in the last float digits with the batch it was in."""
        import torch

        if not self.keep_selections:
            SELECTOR.cache.clear()
        with torch.inference_mode():
            scores = self.logits(batch, grouped=True).tolist() if batch else []
        out, i = [], 0
        for inst in batch:
            s = tuple(float(x) for x in scores[i:i + len(inst.candidates)])
            i += len(inst.candidates)
            out.append(ModelOutput(argmax(s), s))
        return out
