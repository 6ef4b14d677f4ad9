"""``encoder-head``: a frozen MiniLM sentence encoder with a small trained head that reasons over
the text's sentences (``refbench train --model encoder-head``, then ``--model encoder-head:DIR``).

Per instance, from the text alone (:mod:`refbench.models.text`): the expression's sentence
(``p``: in KITMUS the situation), each candidate's own sentences (``e_k``: its entity knowledge,
"Mans is a rauseneger.", read as "Someone is a rauseneger."), and the sentences that name no
candidate (``b_j``: background knowledge, "The work of a rauseneger is ...", and noise). Each
sentence is embedded once by the frozen encoder (mean pooled, L2-normalised: the ``embedding``
model's vectors); a training run keeps the vectors in a feature cache on disk, deduplicated by
text, so a restart resumes.

The head scores candidate ``k`` from

- ``cos(e_k, p)``: what the encoder already knows (an occupation's typical situation);
- a two-hop path: attention of ``e_k`` over the background sentences (a learnt temperature, and
  a learnt "none" slot for noise and for texts without background), then that attended
  sentence's similarity to ``p`` (name -> occupation in the knowledge text -> situation in the
  task text);
- low-rank products of ``e_k``, the attended background and ``p`` (learnt interactions; rank
  0 leaves them out, and the head weighs the named features only);

through a small MLP with shared weights for every candidate, and a softmax over the candidates.
The head has no input that says where a candidate stands (its index or text position), so it
can only learn from the sentences' content; shares of answer positions reflect that content.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from refbench.core.checkpoint import load_safe, load_state_dict
from refbench.core.device import DEVICE_HELP, resolve_device
from refbench.core.errors import RefbenchError
from refbench.core.io import torch_save_atomic
from refbench.core.options import Option
from refbench.core.types import ChoiceInstance
from refbench.models.base import ChoiceModel, ModelOutput, argmax, file_fingerprint
from refbench.models.text import entity_sentences, expression_sentence, unattached_sentences

DIM = 384  # all-MiniLM-L6-v2
CHUNK = 1024  # texts per cache file


@dataclass(frozen=True)
class InstanceTexts:
    """The sentences the head reads for one instance."""

    expression: str
    own: tuple[str, ...]  # per candidate: its own sentences joined (its name when none)
    background: tuple[str, ...]


PLACEHOLDER = "Someone"


def instance_texts(inst: ChoiceInstance) -> InstanceTexts:
    """The sentences, each candidate's name replaced by "Someone": which candidate a sentence
    is about is known from where it was found, a name says nothing about the answer, and
    without names the sentences repeat (a 4-entity KITMUS train split: 8,426 distinct
    sentences with names, 561 without), so the encoder runs 15 times less."""
    names = re.compile("|".join(rf"(?<!\w){re.escape(c.text)}(?!\w)"
                                for c in sorted(inst.candidates, key=lambda c: -len(c.text))
                                if c.text))

    def masked(text: str) -> str:
        return names.sub(PLACEHOLDER, text).strip() if inst.candidates else text.strip()

    a, b = expression_sentence(inst)
    own = entity_sentences(inst)
    return InstanceTexts(masked(inst.context[a:b]),
                         tuple(masked(" ".join(s)) if s else PLACEHOLDER for s in own),
                         tuple(masked(s) for s in unattached_sentences(inst)))


class FeatureCache:
    """Sentence vectors by text; with a folder, new vectors are written there in chunks of
    1,024 (atomic files), so an interrupted extraction resumes where it stopped."""

    def __init__(self, folder: Path | None = None, *, batch_size: int = 64) -> None:
        self.folder = folder
        self.batch_size = batch_size
        self.vectors: dict[str, Any] = {}
        self.encoded = 0  # texts encoded by this process (the rest came from disk)
        if folder is not None and folder.is_dir():
            for f in sorted(folder.glob("chunk-*.pt")):
                data = load_safe(f, what="feature cache chunk")
                if not (isinstance(data, dict) and len(data.get("texts", ())) ==
                        len(data.get("emb", ()))):
                    raise RefbenchError("not a feature cache chunk (texts and emb differ)",
                                        path=f)
                self.vectors.update(zip(data["texts"], data["emb"], strict=True))

    def embed(self, texts: Iterable[str], *, progress: bool = False) -> None:
        """Encode the texts not cached yet (length-sorted batches: little padding)."""
        import torch
        from tqdm import tqdm

        from refbench.nlp.encoder import load_minilm, mean_pool

        todo = sorted(set(texts) - self.vectors.keys(), key=lambda t: (len(t), t))
        if not todo:
            return
        tok, model = load_minilm()
        pending: list[str] = []
        vecs: list[Any] = []
        bar = tqdm(total=len(todo), desc="features", unit="text", disable=not progress)
        with torch.inference_mode():
            for i in range(0, len(todo), self.batch_size):
                chunk = todo[i:i + self.batch_size]
                enc = tok(chunk, padding=True, truncation=True, max_length=256,
                          return_tensors="pt")
                out = model(**enc).last_hidden_state
                emb = torch.nn.functional.normalize(mean_pool(out, enc["attention_mask"]), dim=-1)
                self.vectors.update(zip(chunk, emb, strict=True))
                pending += chunk
                vecs.append(emb)
                self.encoded += len(chunk)
                bar.update(len(chunk))
                if len(pending) >= CHUNK:
                    self._flush(pending, vecs)
                    pending, vecs = [], []
        bar.close()
        if pending:
            self._flush(pending, vecs)

    def _flush(self, texts: list[str], vecs: list[Any]) -> None:
        if self.folder is None:
            return
        import torch

        self.folder.mkdir(parents=True, exist_ok=True)
        name = hashlib.sha256("\n".join(texts).encode()).hexdigest()[:16]
        torch_save_atomic({"texts": list(texts), "emb": torch.cat(vecs).clone()},
                          self.folder / f"chunk-{name}.pt")

    def get(self, text: str) -> Any:
        return self.vectors[text]


def tensorise(texts: Sequence[InstanceTexts], cache: FeatureCache) -> dict[str, Any]:
    """Padded tensors for a batch: p [N, d], e [N, K, d], b [N, M, d] and their masks."""
    import torch

    cache.embed(t for x in texts for t in (x.expression, *x.own, *x.background))
    n, k = len(texts), max(len(x.own) for x in texts)
    m = max(1, max(len(x.background) for x in texts))
    p = torch.stack([cache.get(x.expression) for x in texts])
    e = torch.zeros(n, k, DIM)
    b = torch.zeros(n, m, DIM)
    cmask = torch.zeros(n, k, dtype=torch.bool)
    bmask = torch.zeros(n, m, dtype=torch.bool)
    for i, x in enumerate(texts):
        for j, t in enumerate(x.own):
            e[i, j] = cache.get(t)
            cmask[i, j] = True
        for j, t in enumerate(x.background):
            b[i, j] = cache.get(t)
            bmask[i, j] = True
    return {"p": p, "e": e, "b": b, "cmask": cmask, "bmask": bmask}


def build_head(hidden: int = 64, rank: int = 32, dropout: float = 0.1, seed: int = 13) -> Any:
    import torch

    class Head(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            torch.manual_seed(seed)
            self.temperature = torch.nn.Parameter(torch.tensor(10.0))
            self.none_logit = torch.nn.Parameter(torch.tensor(5.0))  # 10 x cos 0.5
            self.proj = torch.nn.Linear(DIM, rank, bias=False) if rank else None
            self.mlp = torch.nn.Sequential(torch.nn.Linear(3 * rank + 6, hidden),
                                           torch.nn.ReLU(), torch.nn.Dropout(dropout),
                                           torch.nn.Linear(hidden, 1))
            self.direct = torch.nn.Linear(6, 1)  # the named features, read off directly

        def features(self, t: dict[str, Any]) -> tuple[Any, Any]:
            """(scalars [N, K, 6], interactions [N, K, 3 rank]); scalars: cos(e, p),
            two-hop similarity, best cos(e, b), the attention on "none", and the first two
            centred on the instance's candidates."""
            p, e, b, bmask = t["p"], t["e"], t["b"], t["bmask"]
            n, k, _ = e.shape
            ep = (e * p[:, None, :]).sum(-1)
            eb = e @ b.transpose(1, 2)  # [N, K, M]
            bp = (b @ p[:, :, None]).squeeze(-1)  # [N, M]
            logits = (self.temperature * eb).masked_fill(~bmask[:, None, :], float("-inf"))
            none = self.none_logit.expand(n, k, 1)
            att = torch.softmax(torch.cat([logits, none], -1), -1)[..., :-1]
            hop = (att * bp[:, None, :]).sum(-1)
            best = eb.masked_fill(~bmask[:, None, :], -1.0).max(-1).values
            attended = att @ b  # [N, K, d]
            valid = t["cmask"].float()
            count = valid.sum(-1, keepdim=True).clamp(min=1)
            centre = [x - (x * valid).sum(-1, keepdim=True) / count for x in (ep, hop)]
            scalars = torch.stack([ep, hop, best, 1 - att.sum(-1), *centre], -1)
            if self.proj is None:  # rank 0: the named features only
                return scalars, scalars[..., :0]
            pe, pb, pp = self.proj(e), self.proj(attended), self.proj(p)[:, None, :]
            return scalars, torch.cat([pe * pp, pb * pp, pe * pb], -1)

        def forward(self, t: dict[str, Any]) -> Any:
            scalars, inter = self.features(t)
            score = self.mlp(torch.cat([scalars, inter], -1)).squeeze(-1) + \
                self.direct(scalars).squeeze(-1)
            return score.masked_fill(~t["cmask"], float("-inf"))

    return Head()


HEAD_DEFAULTS = {"hidden": 64, "rank": 16, "dropout": 0.3}


class EncoderHeadModel(ChoiceModel):
    name = "encoder-head"
    batch_size = 256
    OPTIONS: ClassVar[tuple[Option, ...]] = (
        Option("features", str, "", "a sentence-vector cache folder to read (default: the "
                                    "training folder's features/, when it exists)"),
        Option("device", str, "auto", DEVICE_HELP))

    def __init__(self, argument: str | None = None, **options: Any) -> None:
        super().__init__(argument, **options)
        if not argument:
            raise RefbenchError("encoder-head needs a trained folder: --model encoder-head:DIR "
                                "(refbench train --model encoder-head)")
        self.dir = Path(argument)
        cfg_path = self.dir / "config.json"
        if not cfg_path.is_file():
            raise RefbenchError("not a trained encoder-head folder (no config.json); train one "
                                "with refbench train --model encoder-head", path=self.dir)
        self.cfg = json.loads(cfg_path.read_text())
        state = load_safe(self.dir / "head.pt", what="encoder-head weights (head.pt)")
        self.device = resolve_device(str(self.option("device")))
        self.net = build_head(**{k: self.cfg.get(k, v) for k, v in HEAD_DEFAULTS.items()})
        load_state_dict(self.net, state, what="encoder-head weights", path=self.dir / "head.pt")
        self.net.to(self.device).eval()
        where = str(self.option("features")) or str(self.dir / "features")
        self.cache = FeatureCache(Path(where) if Path(where).is_dir() else None)

    def config(self) -> dict[str, Any]:
        return {"name": self.name, "weights": file_fingerprint(self.dir / "head.pt"),
                "encoder": "all-MiniLM-L6-v2 mean-pooled", "device": self.device.type}

    def scores(self, batch: Sequence[ChoiceInstance]) -> list[tuple[float, ...]]:
        import torch

        if not batch:
            return []
        t = {k: v.to(self.device) for k, v in
             tensorise([instance_texts(x) for x in batch], self.cache).items()}
        with torch.inference_mode():
            s = self.net(t).cpu().tolist()
        return [tuple(float(v) for v in row[:len(x.candidates)])
                for row, x in zip(s, batch, strict=True)]

    def predict(self, batch: Sequence[ChoiceInstance]) -> list[ModelOutput]:
        return [ModelOutput(argmax(s), s) for s in self.scores(batch)]
