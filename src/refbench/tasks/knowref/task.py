"""KnowRef through the :class:`~refbench.tasks.base.Task` interface: two formats (the bracketed
JSON and the substitution TSV), its own decision-based scorer, switched twins."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from refbench.core.invalid import InvalidInstances
from refbench.core.types import ChoiceInstance
from refbench.tasks.base import FileHead, Task

SWITCHED = ":switched"


class KnowRefTask(Task):
    name = "knowref"
    title = "KnowRef"
    summary = "KnowRef: knowref_test.json (bracketed pronoun) and substitution TSVs; accuracy"
    pretty_name = "KnowRef"
    licence = "cc-by-sa-3.0"
    citation = ("Emami, Trichelair, Trischler, Suleman, Schulz and Cheung. The KnowRef Coreference "
                "Corpus: Removing Gender and Number Cues for Difficult Pronominal Anaphora "
                "Resolution. ACL 2019.")
    bibtex = """@inproceedings{emami-etal-2019-knowref,
    title = "The {K}now{R}ef Coreference Corpus: Removing Gender and Number Cues for Difficult
             Pronominal Anaphora Resolution",
    author = "Emami, Ali and Trichelair, Paul and Trischler, Adam and Suleman, Kaheer and
              Schulz, Hannes and Cheung, Jackie Chi Kit",
    booktitle = "Proceedings of ACL",
    year = "2019",
}"""
    source = "aemami1/KnowRef"
    annotations_creators = ("crowdsourced",)
    card_notes = ("The gold answer is the candidate named by `correct_candidate`: in 299 of the "
                  "1,269 test instances the release's `correct_candidate_idx` disagrees with the "
                  "names, and the names are right (`metadata.gold_source` says which field "
                  "decided). A CC BY-SA 3.0 derivative: share it under the same licence.")
    sniff_order = 40  # before KITMUS and GAP, as the formats were first told apart
    slice_keys = ("pronoun",)
    headline_metrics = ("accuracy", "task_specific_accuracy", "consistency")
    facets = (("format", "source format"), ("version", "original / switched"),
              ("pronoun", "pronoun"))
    leaderboard_columns = (("accuracy", "accuracy"),)

    def sniff(self, head: FileHead) -> bool:
        if head.name.endswith(".tsv"):
            cols = head.tsv_columns()
            return "sentence1" in cols and "candidate0" in cols
        return head.name.endswith(".json") and "sentence_with_pronoun" in head.text

    def read_choices(self, path: Path, *, options: dict[str, Any] | None = None,
                     on_invalid: InvalidInstances | None = None) -> Iterator[ChoiceInstance]:
        from refbench.core.inputs import format_name
        from refbench.tasks.knowref.read import read_knowref_json, read_knowref_tsv

        reader = read_knowref_tsv if format_name(Path(path)).endswith(".tsv") \
            else read_knowref_json
        return reader(path, on_invalid=on_invalid)

    def run_warnings(self, instances: Sequence[ChoiceInstance]) -> list[str]:
        from refbench.tasks.knowref.read import absent_candidates_warning

        warning = absent_candidates_warning(instances)
        return [warning] if warning else []

    def run_metrics(self, data: Path, predictions: Path, instances: Sequence[ChoiceInstance],
                    answers: Sequence[int | None], *, skip_invalid: bool = False
                    ) -> dict[str, Any]:
        from refbench.tasks.knowref.metrics import evaluate_knowref

        r = evaluate_knowref(data, predictions,
                             on_invalid=InvalidInstances() if skip_invalid else None)
        return {k: r[k] for k in ("decisions", "task_specific_accuracy", "coverage")}

    def evaluate(self, gold: Path, preds: Sequence[Path], *, systems: Sequence[str] = (),
                 split: str = "test", bootstrap: int = 1000, seed: int = 0,
                 reader_options: dict[str, Any] | None = None,
                 on_invalid: InvalidInstances | None = None, **options: Any) -> dict[str, Any]:
        """Accuracy with slices, plus the decision breakdown; ``switched_pred`` /
        ``switched_gold`` add consistency over antecedent-switched pairs."""
        from refbench.tasks.answers import prediction_file
        from refbench.tasks.knowref.metrics import base_id, evaluate_knowref, read_answers
        from refbench.tasks.metrics import task_choice_metrics
        from refbench.tasks.scoring import gold_choices, one_prediction

        pred = one_prediction(preds, self.name, " (plus --switched-pred)")
        switched_pred = options.get("switched_pred")
        switched_gold = options.get("switched_gold")
        file = prediction_file(pred)
        instances = gold_choices(self, gold, None, on_invalid)
        links = read_answers(file, instances)
        answers = [next(iter(s)) if len(s := links.get(base_id(i.id), set())) == 1 else None
                   for i in instances]
        result = task_choice_metrics(self.name, instances, answers, bootstrap=bootstrap,
                                     seed=seed)
        # evaluate_knowref reads the gold again: the same instances are skipped, reported once.
        again = InvalidInstances() if on_invalid is not None else None
        sp = Path(switched_pred) if switched_pred else None
        sg = Path(switched_gold) if switched_gold else None
        result.update(evaluate_knowref(gold, file, sp and prediction_file(sp), sg,
                                       on_invalid=again))
        return result

    def result_text(self, result: dict[str, Any], *, ci: bool = False) -> str | None:
        from refbench.tasks.knowref.text import knowref_text

        return knowref_text(result)

    def facet_values(self, inst: ChoiceInstance) -> dict[str, Any]:
        m = inst.metadata
        return {"format": m.get("format"), "pronoun": m.get("pronoun"),
                "version": "switched" if inst.id.endswith(SWITCHED) else "original"}

    def twin_ids(self, iid: str) -> list[str]:
        twin = iid.removesuffix(SWITCHED) if iid.endswith(SWITCHED) else iid + SWITCHED
        return [twin, iid]  # and the same instance in another (switched) file


TASK = KnowRefTask()
